import { execFileSync } from "node:child_process";
import { ROOT } from "./server.js";

/** The e2e suites run the built server: build dist/ once per test run. */
export default function setup() {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
}
