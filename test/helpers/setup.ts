/**
 * Run before each test file (vitest's setupFiles), also where files share a process and their
 * modules: every test fails on an answer or a webhook that does not conform to /openapi.json
 * (test/helpers/conformance.ts). A hook a shared module registered when first imported would
 * belong to the first file that imported it, and later files' mismatches would go unreported; and
 * a webhook is checked against a document only where this file's own servers served one.
 */
import { afterEach } from "vitest";
import { failOnMismatches, forgetLatestDocument } from "./conformance.js";

forgetLatestDocument();
afterEach(failOnMismatches);
