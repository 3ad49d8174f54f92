/**
 * Reads and validates the files given to `paysandbox run` before any runs (docs/run.md: exit 2
 * when a file is missing or invalid, the message naming the file and the path in it).
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import { SandboxError } from "../platform/errors.js";
import { BUILTIN_MERCHANT } from "../platform/fixtures.js";
import { didYouMean } from "../platform/unknown-keys.js";
import { type Scenario, scenarioSchema } from "../scenarios/scenario.schema.js";
import { parseDocument } from "../scenarios/scenario.service.js";

export interface LoadedFile {
  file: string;
  scenario: Scenario;
  /** What the file's steps may act as: its merchants and the built-in one, by merchantKey. */
  secrets: Map<string, string>;
  /** The merchant a step without `as` acts as. */
  defaultMerchant: string;
  /** Whether the file uses `${callbackUrl}` (the run's receiver is opened only then). */
  usesReceiver: boolean;
  /** `snapshot:` at its top (docs/snapshots.md): the file it names (resolved) and its bytes, read once for every run. */
  snapshot?: { path: string; bytes: Uint8Array };
}

/** A zod issue path as a file's reader writes it: `steps[3].expect.status`, `headers["content-type"]`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((p, i) => {
      if (typeof p === "number") return `[${p}]`;
      const key = String(p);
      return /^[A-Za-z_$][\w$]*$/.test(key) ? `${i ? "." : ""}${key}` : `[${JSON.stringify(key)}]`;
    })
    .join("");
}

/** Every problem of a file, `path: message`, joined by "; " (as the loader's, with bracketed paths). */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = formatPath(i.path);
      if (i.code === "unrecognized_keys") {
        return i.keys.map((k) => `${path ? `${path}.` : ""}${k}: unknown key${didYouMean(k, i.keys)}`).join("; ");
      }
      return `${path || "(root)"}: ${i.message}`;
    })
    .join("; ");
}

export type LoadResult = { ok: true; loaded: LoadedFile } | { ok: false; file: string; message: string };

export function loadScenarioFile(file: string): LoadResult {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, file, message: code === "ENOENT" ? "no such file" : `cannot read: ${(err as Error).message}` };
  }
  let document: unknown;
  try {
    document = parseDocument(text, file);
  } catch (err) {
    const message = err instanceof SandboxError ? err.message.replace(/^Invalid scenario \([^)]*\): /, "") : String(err);
    return { ok: false, file, message };
  }
  const parsed = scenarioSchema.safeParse(document);
  if (!parsed.success) return { ok: false, file, message: describeIssues(parsed.error) };
  const scenario = parsed.data;
  const secrets = new Map<string, string>([[BUILTIN_MERCHANT.merchantKey, BUILTIN_MERCHANT.merchantSecret]]);
  for (const m of scenario.merchants) secrets.set(m.merchantKey, m.merchantSecret);
  const problems: string[] = [];
  (scenario.steps ?? []).forEach((step, i) => {
    if (step.as !== undefined && !secrets.has(step.as)) {
      const known = [...secrets.keys()].join(", ");
      problems.push(`${formatPath(["steps", i, "as"])}: not a merchant of this file nor the built-in one (${known})`);
    }
  });
  let snapshot: LoadedFile["snapshot"];
  if (scenario.snapshot !== undefined) {
    // a path relative to the steps file, so a file and its snapshot move together (docs/snapshots.md)
    const path = resolve(dirname(file), scenario.snapshot);
    if (scenario.startTime !== undefined)
      problems.push("startTime: not with snapshot (its sandbox's clock is at the snapshot's now)");
    try {
      snapshot = { path, bytes: readFileSync(path) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push(`snapshot: ${code === "ENOENT" ? "no such file" : `cannot read (${(err as Error).message})`}: ${path}`);
    }
  }
  if (problems.length > 0) return { ok: false, file, message: problems.join("; ") };
  return {
    ok: true,
    loaded: {
      file,
      scenario,
      secrets,
      defaultMerchant: scenario.merchants[0]?.merchantKey ?? BUILTIN_MERCHANT.merchantKey,
      usesReceiver: /\$\{callbackUrl\}/.test(text),
      ...(snapshot ? { snapshot } : {}),
    },
  };
}
