/**
 * The HTTP side of webhook delivery in a worker thread (docs/performance.md): the dispatcher keeps every
 * decision and every database write on the main thread (what is due, attempt numbers, timeouts,
 * results) and hands this thread only "POST this body to this URL, tell me the status". Socket
 * writes, response parsing and undici's bookkeeping, about a fifth of a card payment's CPU, then
 * run beside the requests instead of between them.
 *
 * One thread per process, started on the first delivery and unref'd (it never keeps a process
 * alive); each dispatcher has its own undici Agent in it (its keep-alive sockets, closed by
 * `close(owner)`). Jobs go over in one message per claim, results come back in one message per
 * I/O turn of the thread. If the thread dies, the attempts it held end as failed (and are retried
 * on the schedule) and the next delivery starts a new one.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

export interface SendJob {
  /** Unique per attempt in this process (never reused: a late answer cannot reach a later attempt). */
  id: number;
  url: string;
  /** The delivery's stored headers (JSON text); the thread adds `authorization` first and X-Sandbox-Attempt last. */
  headers: string;
  body: string;
  /** The attempt number (X-Sandbox-Attempt). */
  attempt: number;
  /** HTTP Basic credentials from the callbackUrl's userinfo (`Basic ...`), if any. */
  authorization: string | undefined;
}

/** One dispatcher's jobs: its own Agent and sockets, with its settings. */
export interface SendBatch {
  owner: number;
  /** Per-destination sockets of the owner's Agent, and undici's header/body timeouts (ms). */
  connections: number;
  timeoutMs: number;
}

export interface SendResult {
  id: number;
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
}

/**
 * Jobs cross to the thread, and results back, as flat arrays of strings and numbers (JOB_FIELDS
 * values per job, RESULT_FIELDS per result): cloning them costs a fraction of cloning an object,
 * with its headers object, per job (docs/performance.md).
 */
const JOB_FIELDS = 6;
const RESULT_FIELDS = 4;

type Message =
  | { type: "send"; owner: number; connections: number; timeoutMs: number; jobs: Array<string | number | null> }
  | { type: "abort"; id: number; reason: string }
  | { type: "close"; owner: number; ack: number }
  | { type: "sync"; ack: number };

/** The thread: plain CommonJS, so it runs the same from src/ (tsx, vitest) and from the bundle. */
const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { Agent } = require(workerData.undici);
const agents = new Map();
const live = new Map();
const targets = new Map();
let out = [];
let scheduled = false;
const flush = () => { scheduled = false; const batch = out; out = []; parentPort.postMessage({ results: batch }); };
const report = (id, ok, status, error) => { out.push(id, ok ? 1 : 0, status, error); if (!scheduled) { scheduled = true; setImmediate(flush); } };
const describe = (err) => {
  const code = typeof err?.code === "string" ? err.code : typeof err?.cause?.code === "string" ? err.cause.code : undefined;
  const message = typeof err?.message === "string" && err.message ? err.message : String(err);
  return code && !message.includes(code) ? code + ": " + message : message;
};
const target = (url) => {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: u.pathname + u.search };
    if (targets.size >= 1000) targets.clear();
    targets.set(url, t);
  }
  return t;
};
const agentOf = (m) => {
  let a = agents.get(m.owner);
  if (!a) {
    a = new Agent({ keepAliveTimeout: 4000, connections: m.connections, headersTimeout: m.timeoutMs, bodyTimeout: m.timeoutMs, connect: { timeout: m.timeoutMs } });
    agents.set(m.owner, a);
  }
  return a;
};
const send = (agent, timeoutMs, id, url, stored, body, attempt, authorization) => {
  const st = { controller: null, reason: null, status: null, ended: false };
  live.set(id, st);
  const end = (ok, error) => {
    if (st.ended) return;
    st.ended = true;
    live.delete(id);
    report(id, ok, st.status, error);
  };
  try {
    const t = target(url);
    const headers = authorization ? Object.assign({ Authorization: authorization }, JSON.parse(stored)) : JSON.parse(stored);
    headers["X-Sandbox-Attempt"] = String(attempt);
    agent.dispatch(
      { origin: t.origin, path: t.path, method: "POST", headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
      {
        onRequestStart(c) { st.controller = c; if (st.reason) c.abort(st.reason); },
        onResponseStart(_c, code) { st.status = code; },
        onResponseData() {},
        onResponseEnd() { end(st.status !== null && st.status >= 200 && st.status < 300, null); },
        onResponseError(_c, err) { end(false, describe(st.reason ?? err)); },
      },
    );
  } catch (err) {
    end(false, describe(err));
  }
};
parentPort.on("message", (m) => {
  if (m.type === "send") {
    const agent = agentOf(m);
    const j = m.jobs;
    for (let i = 0; i < j.length; i += ${JOB_FIELDS}) send(agent, m.timeoutMs, j[i], j[i + 1], j[i + 2], j[i + 3], j[i + 4], j[i + 5]);
  }
  else if (m.type === "abort") {
    const st = live.get(m.id);
    if (st) { st.reason = new Error(m.reason); if (st.controller) st.controller.abort(st.reason); }
  } else if (m.type === "sync") {
    // a poll phase more for answers already in the socket buffers, then they go before the ack
    setImmediate(() => setImmediate(() => { if (out.length > 0) flush(); parentPort.postMessage({ ack: m.ack }); }));
  } else if (m.type === "close") {
    const a = agents.get(m.owner);
    agents.delete(m.owner);
    Promise.resolve(a?.close()).catch(() => undefined).then(() => parentPort.postMessage({ ack: m.ack }));
  }
});
`;

type Done = (r: SendResult) => void;

let thread: Worker | undefined;
const waiting = new Map<number, Done>();
const acks = new Map<number, () => void>();
let nextAck = 0;

function start(): Worker {
  const undici = createRequire(import.meta.url).resolve("undici");
  const w = new Worker(SOURCE, { eval: true, workerData: { undici } });
  w.on("message", (m: { results?: Array<number | string | null>; ack?: number }) => {
    if (m.results) {
      const r = m.results;
      for (let i = 0; i < r.length; i += RESULT_FIELDS) {
        const id = r[i] as number;
        const done = waiting.get(id);
        if (!done) continue;
        waiting.delete(id);
        done({ id, ok: r[i + 1] === 1, httpStatus: r[i + 2] as number | null, error: r[i + 3] as string | null });
      }
    } else if (m.ack !== undefined) {
      acks.get(m.ack)?.();
      acks.delete(m.ack);
    }
  });
  const lost = (why: string) => {
    if (thread !== w) return;
    thread = undefined;
    const held = [...waiting];
    waiting.clear();
    for (const [id, done] of held) done({ id, ok: false, httpStatus: null, error: why });
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

function post(m: Message): void {
  thread ??= start();
  thread.postMessage(m);
}

/** Sends a claim's jobs (one dispatcher's) in one message; each `done` runs once, with its job's result. */
export function sendJobs(batch: SendBatch, jobs: Array<{ job: SendJob; done: Done }>): void {
  if (jobs.length === 0) return;
  // filled by push, not made at its length: a holey array is cloned as a sparse one (its keys listed),
  // ~20% more CPU a job on this thread and more on the sender's (docs/performance.md)
  const flat: Array<string | number | null> = [];
  for (const { job, done } of jobs) {
    waiting.set(job.id, done);
    flat.push(job.id, job.url, job.headers, job.body, job.attempt, job.authorization ?? null);
  }
  post({ type: "send", owner: batch.owner, connections: batch.connections, timeoutMs: batch.timeoutMs, jobs: flat });
}

/** Aborts a job on the wire (its result, if one still comes, is dropped: the caller ended the attempt). */
export function abortJob(id: number, reason: string): void {
  waiting.delete(id);
  if (thread) thread.postMessage({ type: "abort", id, reason } satisfies Message);
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
