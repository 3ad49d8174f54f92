/**
 * The main thread's side of the webhook sender thread (sender.worker.ts; docs/performance.md): jobs
 * go over in one message per batch, answers come back in one message per I/O turn of the thread and
 * go to the dispatcher that sent them. Socket writes, response parsing, undici's bookkeeping and the
 * attempts' timeouts, about a fifth of a card payment's CPU, run there, beside the requests.
 *
 * One thread per process, started on the first delivery and unref'd (it never keeps a process
 * alive); each dispatcher has its own undici Agent in it (its keep-alive sockets, closed by
 * `closeOwner`). If the thread dies, the attempts it held end as failed (and are retried on the
 * schedule) and the next delivery starts a new one.
 */
import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";
import { startWorker } from "../platform/worker-thread.js";
import { type FromSender, JOB_FIELDS, RESULT_FIELDS, ROLE, type SenderData, type ToSender } from "./sender.worker.js";

/** Where a job's answer goes: its dispatcher (one call per job, the first of its answer or the thread's loss). */
export interface Answers {
  answered(job: number, ok: boolean, httpStatus: number | null, error: string | null, durationMs: number): void;
}

/** One dispatcher's jobs: its own Agent and sockets, with its settings. */
export interface SendSettings {
  owner: number;
  /** Per-destination sockets of the owner's Agent. */
  connections: number;
  /** An attempt's whole time, real ms (docs/webhooks.md#retries: 10 s). */
  timeoutMs: number;
}

/** A flat array of jobs (JOB_FIELDS values each): id, url, stored headers, body, attempt, authorization or null. */
export type Jobs = Array<string | number | null>;

let thread: Worker | undefined;
const waiting = new Map<number, Answers>();
const acks = new Map<number, () => void>();
let nextAck = 0;
let jobs = 0;

/** A new job id: unique in this process, never reused (a late answer cannot reach a later attempt). */
export function nextJob(): number {
  return ++jobs;
}

/**
 * A callbackUrl's `user:password@` becomes HTTP Basic auth, as curl and browsers send it (fetch
 * and undici refuse or drop userinfo); the URL goes without it.
 */
export function splitUserinfo(raw: string): { url: string; authorization: string | null } {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) return { url: raw, authorization: null };
  const u = new URL(raw);
  const creds = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = "";
  u.password = "";
  return { url: u.toString(), authorization: `Basic ${Buffer.from(creds).toString("base64")}` };
}

function start(): Worker {
  const workerData: SenderData = { role: ROLE, undici: createRequire(import.meta.url).resolve("undici") };
  const w = startWorker(
    import.meta.url,
    { built: "./sender-worker.js", source: "./sender.worker.ts" },
    { workerData: { ...workerData } },
  );
  w.on("message", (m: FromSender) => {
    if ("results" in m) {
      const r = m.results;
      for (let i = 0; i < r.length; i += RESULT_FIELDS) {
        const id = r[i] as number;
        const to = waiting.get(id);
        if (!to) continue; // ended here first (an abort)
        waiting.delete(id);
        to.answered(id, r[i + 1] === 1, r[i + 2] as number | null, r[i + 3] as string | null, r[i + 4] as number);
      }
    } else {
      acks.get(m.ack)?.();
      acks.delete(m.ack);
    }
  });
  const lost = (why: string) => {
    if (thread !== w) return;
    thread = undefined;
    const held = [...waiting];
    waiting.clear();
    for (const [id, to] of held) to.answered(id, false, null, why, 0);
    for (const ack of acks.values()) ack();
    acks.clear();
  };
  w.on("error", (err) => lost(`webhook sender thread failed: ${err.message}`));
  w.on("exit", () => lost("webhook sender thread exited"));
  // after the listeners: adding a "message" listener refs the worker's port again, and a process
  // whose deliveries were all answered (a bench, a CLI run) then never exited
  w.unref();
  return w;
}

function post(m: ToSender): void {
  thread ??= start();
  thread.postMessage(m);
}

/** Sends one dispatcher's jobs in one message; each job's answer goes to `to`, once. */
export function sendJobs(settings: SendSettings, jobs: Jobs, to: Answers): void {
  if (jobs.length === 0) return;
  for (let i = 0; i < jobs.length; i += JOB_FIELDS) waiting.set(jobs[i] as number, to);
  post({ type: "send", owner: settings.owner, connections: settings.connections, timeoutMs: settings.timeoutMs, jobs });
}

/** Aborts a job on the wire; its answer, if one still comes, is dropped (the caller ended the attempt). */
export function abortJob(id: number, reason: string): void {
  waiting.delete(id);
  if (thread) thread.postMessage({ type: "abort", id, reason } satisfies ToSender);
}

/**
 * Resolves once the thread has reported every answer it had read, or that was already waiting in
 * its sockets, when asked (their results arrive before this resolves): the journal's read barrier.
 */
export function syncSender(): Promise<void> {
  if (!thread) return Promise.resolve();
  const ack = ++nextAck;
  return new Promise<void>((resolve) => {
    acks.set(ack, resolve);
    post({ type: "sync", ack });
  });
}

/** Closes one owner's Agent (its keep-alive sockets); resolves once done, at once if no thread runs. */
export function closeOwner(owner: number): Promise<void> {
  if (!thread) return Promise.resolve();
  const ack = ++nextAck;
  return new Promise<void>((resolve) => {
    acks.set(ack, resolve);
    post({ type: "close", owner, ack });
  });
}
