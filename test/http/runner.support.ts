/**
 * Shared by the `paysandbox run` suites: scenario files written to a temp folder, run in this
 * process on fresh in-process sandboxes (the way the command runs them), and their output caught.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";
import { runCommand } from "../../src/cli/run.js";
import { loadScenarioFile } from "../../src/runner/load.js";
import { type FileResult, runFiles } from "../../src/runner/run.js";
import { cardPaymentBody, threeDsBody } from "./payments.body.js";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-run-"));
let n = 0;

/** Writes a scenario document (an object → JSON, a string → YAML as given); returns its path. */
export function scenarioFile(doc: Record<string, unknown> | string, ext = typeof doc === "string" ? "yaml" : "json"): string {
  const file = join(dir, `s${++n}.${ext}`);
  writeFileSync(file, typeof doc === "string" ? doc : JSON.stringify(doc, null, 2));
  return file;
}

/** Runs one document's steps; the file must be valid. */
export async function runDoc(doc: Record<string, unknown>): Promise<FileResult> {
  const loaded = loadScenarioFile(scenarioFile(doc));
  if (!loaded.ok) throw new Error(loaded.message);
  const [result] = await runFiles([loaded.loaded]);
  return result as FileResult;
}

/** `paysandbox run` as the command runs it, in this process: exit status and what it printed. */
export async function runCli(
  files: string[],
  opts: Partial<Parameters<typeof runCommand>[1]> = {},
  tty = false,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  const wasTty = process.stdout.isTTY;
  process.stdout.isTTY = tty;
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out += chunk.toString();
    return true;
  });
  const e = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    err += `${args.join(" ")}\n`;
  });
  try {
    const code = await runCommand(files, { reporter: "pretty", ...opts });
    return { code, out, err };
  } finally {
    process.stdout.isTTY = wasTty;
    o.mockRestore();
    e.mockRestore();
  }
}

/** A card payment step body (docs/cards.md) whose requestId is a fresh `${uuid}`. */
export const payment = (over: Parameters<typeof cardPaymentBody>[0] = {}) => cardPaymentBody({ requestId: "${uuid}", ...over });

/** A 3DS payment step body sending its webhooks to the run's receiver. */
export const threeDsPayment = (over: Parameters<typeof cardPaymentBody>[0] = {}) =>
  threeDsBody("${callbackUrl}", { requestId: "${uuid}", ...over });

export const START = "2026-03-01T09:00:00Z";
