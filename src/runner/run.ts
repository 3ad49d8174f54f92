/**
 * `paysandbox run` (docs/run.md): runs each file's steps in order
 * against a target of its own (a fresh in-process sandbox, or with `--target URL` a new sandbox on
 * that server, deleted after the run unless kept) and returns one result per step. A file stops at
 * its first failed step; the steps after it are reported as skipped. Files run side by side
 * (`parallel`, default the number of files up to 8); results keep the files' order.
 *
 * LIMITATIONS:
 * - Against `--target`, `${callbackUrl}` is on 127.0.0.1 of the machine running the command: the
 *   target must reach it there (a container needs the host's network) or the deliveries fail
 *   (the journal still records their bodies, which is what webhook steps check).
 */
import { basename } from "node:path";
import { performance } from "node:perf_hooks";
import type { CoverageReport } from "../coverage/coverage.wire.js";
import { describeStep, FileRun, StepFailure } from "./file-run.js";
import { httpTarget, TargetError } from "./http-target.js";
import { inProcessTarget, snapshotInProcessTarget } from "./in-process.js";
import type { LoadedFile } from "./load.js";
import { Receiver } from "./receiver.js";
import type { Target } from "./target.js";

export type StepStatus = "passed" | "failed" | "skipped";

export interface StepResult {
  index: number;
  /** The step's `name`, or what it does (`POST /api/v1/payments/card`). */
  name: string;
  status: StepStatus;
  ms: number;
  /** What happened, one line: `POST /api/v1/payments/card → 200`. */
  summary: string;
  /** Why it failed, one line. */
  message?: string;
  /** On failure: what was expected and what came, at the path of the first difference. */
  expected?: unknown;
  actual?: unknown;
  /** The response body (trimmed), on failure. */
  response?: string;
}

export interface FileResult {
  file: string;
  scenario: string;
  steps: StepResult[];
  ms: number;
  /** A problem before any step could run (target unreachable, scenario refused by the target). */
  error?: string;
  /** With `--target`: the sandbox the file ran in, and whether it was kept. */
  sandbox?: { id: string; baseUrl: string; kept: boolean };
  /** A line for the reader about what outlived the run (`kept sandbox … at …`, a failed delete). */
  note?: string;
  /** With `coverage`: the file's sandbox's coverage report, read after its steps (docs/coverage.md). */
  coverage?: CoverageReport;
}

/** Files run side by side by default, at most this many. */
export const DEFAULT_PARALLEL_MAX = 8;
export const defaultParallel = (files: number) => Math.max(1, Math.min(files, DEFAULT_PARALLEL_MAX));

export interface RunOptions {
  target?: string;
  adminToken?: string;
  /** With `target`: leave each file's sandbox on the server. */
  keep?: boolean;
  /** Files run at once (default: defaultParallel). */
  parallel?: number;
  /** Read each file's sandbox's coverage report after its steps (`--coverage`, docs/coverage.md). */
  coverage?: boolean;
  /**
   * Called as each file starts and ends, and as each step starts (the live progress line) and ends;
   * `fileIndex` is the file's place in the list (files run side by side).
   */
  onFileStart?: (file: LoadedFile, fileIndex: number) => void;
  onStepStart?: (file: LoadedFile, index: number, name: string, fileIndex: number) => void;
  onStepEnd?: (file: LoadedFile, result: StepResult, fileIndex: number) => void;
  onFileEnd?: (file: LoadedFile, result: FileResult, fileIndex: number) => void;
}

/** Runs one loaded file on its own target; never throws for a step, only records. */
export async function runFile(loaded: LoadedFile, opts: RunOptions, receiver: Receiver, fileIndex = 0): Promise<FileResult> {
  const result = await runSteps(loaded, opts, receiver, fileIndex);
  opts.onFileEnd?.(loaded, result, fileIndex);
  return result;
}

async function runSteps(loaded: LoadedFile, opts: RunOptions, receiver: Receiver, fileIndex: number): Promise<FileResult> {
  const t0 = performance.now();
  const steps = loaded.scenario.steps ?? [];
  const result: FileResult = { file: loaded.file, scenario: loaded.scenario.name, steps: [], ms: 0 };
  opts.onFileStart?.(loaded, fileIndex);
  let target: Target;
  try {
    if (loaded.usesReceiver) await receiver.start();
    target = opts.target
      ? await httpTarget(opts.target, loaded.scenario, {
          name: basename(loaded.file),
          adminToken: opts.adminToken,
          keep: opts.keep,
          snapshot: loaded.snapshot?.bytes,
        })
      : loaded.snapshot
        ? await snapshotInProcessTarget(loaded.scenario, loaded.snapshot.bytes, basename(loaded.file))
        : inProcessTarget(loaded.scenario, loaded.file);
  } catch (err) {
    result.error = err instanceof TargetError ? err.message : `cannot load the scenario: ${(err as Error).message}`;
    result.steps = steps.map((s, index) => ({ index, name: s.name ?? describeStep(s), status: "skipped", ms: 0, summary: "" }));
    result.ms = performance.now() - t0;
    return result;
  }
  if (target.sandbox) result.sandbox = { ...target.sandbox, kept: opts.keep === true };
  const run = new FileRun(loaded, target, receiver);
  let failed = false;
  try {
    for (const [index, step] of steps.entries()) {
      const name = step.name ?? describeStep(step);
      if (failed) {
        const skipped: StepResult = { index, name, status: "skipped", ms: 0, summary: "skipped after a failed step" };
        result.steps.push(skipped);
        opts.onStepEnd?.(loaded, skipped, fileIndex);
        continue;
      }
      opts.onStepStart?.(loaded, index, name, fileIndex);
      const s0 = performance.now();
      let r: StepResult;
      try {
        const summary = await run.step(step);
        r = { index, name, status: "passed", ms: performance.now() - s0, summary };
      } catch (err) {
        failed = true;
        const f =
          err instanceof StepFailure
            ? err
            : new StepFailure(err instanceof TargetError ? err.message : `unexpected error: ${(err as Error).stack ?? err}`);
        r = {
          index,
          name,
          status: "failed",
          ms: performance.now() - s0,
          summary: f.details.summary ?? describeStep(step),
          message: f.message,
          ...(f.details.expected !== undefined ? { expected: f.details.expected } : {}),
          ...(f.details.actual !== undefined ? { actual: f.details.actual } : {}),
          ...(f.details.response !== undefined ? { response: f.details.response } : {}),
        };
      }
      result.steps.push(r);
      opts.onStepEnd?.(loaded, r, fileIndex);
    }
  } finally {
    // the webhooks of the last steps go out and are answered before the sandbox ends (docs/run.md)
    await target.runDue().catch(() => undefined);
    if (opts.coverage) {
      const coverage = await readCoverage(target);
      if (typeof coverage === "string") result.note = coverage;
      else result.coverage = coverage;
    }
    const note = await target.close();
    if (note) result.note = result.note ? `${result.note}\n${note}` : note;
  }
  result.ms = performance.now() - t0;
  return result;
}

/** The sandbox's coverage report (GET /_sandbox/coverage), or why it could not be read. */
async function readCoverage(target: Target): Promise<CoverageReport | string> {
  try {
    const reply = await target.send("GET", "/_sandbox/coverage", { headers: { accept: "application/json" } });
    if (reply.status === 200) return JSON.parse(reply.text) as CoverageReport;
    return `no coverage: GET /_sandbox/coverage answered ${reply.status}${reply.status === 404 ? " (a server from before coverage, docs/coverage.md)" : ""}`;
  } catch (err) {
    return `no coverage: ${(err as Error).message}`;
  }
}

/**
 * Runs the files, `parallel` at once (each on its own target), in this process, sharing one webhook
 * receiver (opened only if used). The results are in the files' order whatever order they end in.
 */
export async function runFiles(files: LoadedFile[], opts: RunOptions = {}): Promise<FileResult[]> {
  const receiver = new Receiver();
  const results: FileResult[] = new Array(files.length);
  const lanes = Math.max(1, Math.min(opts.parallel ?? defaultParallel(files.length), files.length));
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const i = next++;
      results[i] = await runFile(files[i] as LoadedFile, opts, receiver, i);
    }
  };
  try {
    await Promise.all(Array.from({ length: lanes }, lane));
  } finally {
    await receiver.close();
  }
  return results;
}
