/**
 * `paysandbox run` (CONTRACT §6 "Steps and `paysandbox run`"): runs each file's steps in order
 * against a target (a fresh in-process sandbox per file, or `--target URL`) and returns one result
 * per step. A file stops at its first failed step; the steps after it are reported as skipped.
 *
 * LIMITATIONS:
 * - Against `--target`, `${callbackUrl}` is on 127.0.0.1 of the machine running the command: the
 *   target must reach it there (a container needs the host's network) or the deliveries fail
 *   (the journal still records their bodies, which is what webhook steps check).
 * - Against `--target`, a file's `startTime` only moves the shared clock forward; it never goes back.
 */
import { performance } from "node:perf_hooks";
import { describeStep, FileRun, StepFailure } from "./file-run.js";
import { httpTarget, TargetError } from "./http-target.js";
import { inProcessTarget } from "./in-process.js";
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
}

export interface RunOptions {
  target?: string;
  adminToken?: string;
  /** Called as each step starts (the live progress line) and ends. */
  onStepStart?: (file: LoadedFile, index: number, name: string) => void;
  onStepEnd?: (file: LoadedFile, result: StepResult) => void;
  onFileStart?: (file: LoadedFile) => void;
}

/** Runs one loaded file on its own target; never throws for a step, only records. */
export async function runFile(loaded: LoadedFile, opts: RunOptions, receiver: Receiver): Promise<FileResult> {
  const t0 = performance.now();
  const steps = loaded.scenario.steps ?? [];
  const result: FileResult = { file: loaded.file, scenario: loaded.scenario.name, steps: [], ms: 0 };
  opts.onFileStart?.(loaded);
  if (loaded.usesReceiver) await receiver.start();
  let target: Target;
  try {
    target = opts.target
      ? await httpTarget(opts.target, loaded.scenario, opts.adminToken)
      : inProcessTarget(loaded.scenario, loaded.file);
  } catch (err) {
    result.error = err instanceof TargetError ? err.message : `cannot load the scenario: ${(err as Error).message}`;
    result.steps = steps.map((s, index) => ({ index, name: s.name ?? describeStep(s), status: "skipped", ms: 0, summary: "" }));
    result.ms = performance.now() - t0;
    return result;
  }
  const run = new FileRun(loaded, target, receiver);
  let failed = false;
  try {
    for (const [index, step] of steps.entries()) {
      const name = step.name ?? describeStep(step);
      if (failed) {
        const skipped: StepResult = { index, name, status: "skipped", ms: 0, summary: "skipped after a failed step" };
        result.steps.push(skipped);
        opts.onStepEnd?.(loaded, skipped);
        continue;
      }
      opts.onStepStart?.(loaded, index, name);
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
      opts.onStepEnd?.(loaded, r);
    }
  } finally {
    await target.close();
  }
  result.ms = performance.now() - t0;
  return result;
}

/** Runs the files one after the other, in this process, sharing one webhook receiver (opened only if used). */
export async function runFiles(files: LoadedFile[], opts: RunOptions = {}): Promise<FileResult[]> {
  const receiver = new Receiver();
  const results: FileResult[] = [];
  try {
    for (const f of files) results.push(await runFile(f, opts, receiver));
  } finally {
    await receiver.close();
  }
  return results;
}
