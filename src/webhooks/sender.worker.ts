/**
 * The webhook sender thread (started by sender.ts; docs/performance.md): "POST this body to this
 * URL, tell me how it ended". The main thread keeps every decision and every write (what is due,
 * attempt numbers, results, retries); this thread holds the sockets, writes the requests, parses
 * the answers and times each attempt out, beside the requests of the main thread instead of between them.
 *
 * Each dispatcher (one per sandbox) has its own undici Agent here (its keep-alive sockets, closed by
 * `close`). Jobs come in one message per batch, as flat arrays; results go back in one message per
 * I/O turn, as flat arrays too (cloning a flat array of strings and numbers costs a fraction of an
 * object per job).
 *
 * Built, this is dist/sender-worker.js (scripts/build.mjs); from src/ (tsx, vitest) the TypeScript
 * file itself (src/platform/worker-thread.ts). It imports only Node's own modules: undici is the one
 * the main thread resolved (`workerData.undici`). Imported by the main thread (sender.ts) for its
 * message shapes, it does nothing there: it serves only in a worker thread.
 *
 * LIMITATIONS:
 * - "within 10 s" is real time, not virtual: a timer here aborts the request.
 * - Redirects are not followed: a 3xx is a failed attempt, as any non-2xx.
 */
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import type * as Undici from "undici";

/** What the main thread passes (sender.ts). */
export interface SenderData {
  /** Marks the thread as this one (a test runner's own worker threads have a parentPort too). */
  role: typeof ROLE;
  /** The resolved entry of undici. */
  undici: string;
}

export const ROLE = "webhook-sender";

/** Values per job in a `send` message's `jobs`: id, url, stored headers (JSON text), body, attempt, authorization. */
export const JOB_FIELDS = 6;
/** Values per result in a `results` message: id, ok (1 or 0), HTTP status, error, duration ms. */
export const RESULT_FIELDS = 5;

/** Messages from the main thread. */
export type ToSender =
  | {
      type: "send";
      /** The dispatcher whose Agent sends them. */
      owner: number;
      /** Sockets per destination of that Agent. */
      connections: number;
      /** A job's whole attempt, real ms: past it the attempt ends as a timeout. */
      timeoutMs: number;
      jobs: Array<string | number | null>;
    }
  | { type: "abort"; id: number; reason: string }
  | { type: "close"; owner: number; ack: number }
  | { type: "sync"; ack: number };

/** Messages to the main thread. */
export type FromSender = { results: Array<number | string | null> } | { ack: number };

let Agent: typeof Undici.Agent;
let port: NonNullable<typeof parentPort>;

interface Live {
  controller: { abort(reason: Error): void } | null;
  reason: Error | null;
  status: number | null;
  ended: boolean;
  timer: NodeJS.Timeout | undefined;
  start: number;
}

const agents = new Map<number, Undici.Agent>();
const live = new Map<number, Live>();
/** A callback URL's origin and path, parsed once (a merchant sends the same few). */
const targets = new Map<string, { origin: string; path: string }>();
let out: Array<number | string | null> = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  const results = out;
  out = [];
  port.postMessage({ results } satisfies FromSender);
}

function report(id: number, ok: boolean, status: number | null, error: string | null, durationMs: number): void {
  out.push(id, ok ? 1 : 0, status, error, durationMs);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}

/** An error as the journal shows it: its code first when its message lacks it (`ECONNREFUSED: connect ...`). */
function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === "string" ? e.code : typeof e?.cause?.code === "string" ? e.cause.code : undefined;
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function target(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: u.pathname + u.search };
    if (targets.size >= 1000) targets.clear();
    targets.set(url, t);
  }
  return t;
}

function agentOf(owner: number, connections: number, timeoutMs: number): Undici.Agent {
  let a = agents.get(owner);
  if (!a) {
    a = new Agent({
      keepAliveTimeout: 4000,
      connections,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs },
    });
    agents.set(owner, a);
  }
  return a;
}

/** Ends an attempt once: the first of its answer, its timeout or an abort. */
function end(id: number, st: Live, ok: boolean, error: string | null): void {
  if (st.ended) return;
  st.ended = true;
  clearTimeout(st.timer);
  live.delete(id);
  report(id, ok, st.status, error, Math.round(performance.now() - st.start));
}

function abort(id: number, st: Live, reason: Error): void {
  st.reason = reason;
  st.controller?.abort(reason);
  end(id, st, false, describe(reason));
}

function send(
  agent: Undici.Agent,
  timeoutMs: number,
  id: number,
  url: string,
  stored: string,
  body: string,
  attempt: number,
  authorization: string | null,
): void {
  const st: Live = { controller: null, reason: null, status: null, ended: false, timer: undefined, start: performance.now() };
  live.set(id, st);
  st.timer = setTimeout(() => abort(id, st, new Error(`timeout: no complete answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    const t = target(url);
    const headers = (authorization ? { Authorization: authorization, ...JSON.parse(stored) } : JSON.parse(stored)) as Record<
      string,
      string
    >;
    headers["X-Sandbox-Attempt"] = String(attempt);
    agent.dispatch(
      { origin: t.origin, path: t.path, method: "POST", headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
      {
        onRequestStart(c) {
          st.controller = c;
          if (st.reason) c.abort(st.reason);
        },
        onResponseStart(_c, code) {
          st.status = code;
        },
        onResponseData() {},
        onResponseEnd() {
          end(id, st, st.status !== null && st.status >= 200 && st.status < 300, null);
        },
        onResponseError(_c, err) {
          end(id, st, false, describe(st.reason ?? err));
        },
      },
    );
  } catch (err) {
    end(id, st, false, describe(err));
  }
}

function onMessage(m: ToSender): void {
  if (m.type === "send") {
    const agent = agentOf(m.owner, m.connections, m.timeoutMs);
    const j = m.jobs;
    for (let i = 0; i < j.length; i += JOB_FIELDS) {
      send(
        agent,
        m.timeoutMs,
        j[i] as number,
        j[i + 1] as string,
        j[i + 2] as string,
        j[i + 3] as string,
        j[i + 4] as number,
        j[i + 5] as string | null,
      );
    }
  } else if (m.type === "abort") {
    const st = live.get(m.id);
    if (st) abort(m.id, st, new Error(m.reason));
  } else if (m.type === "sync") {
    // a poll phase more for answers already in the socket buffers, then they go before the ack
    setImmediate(() =>
      setImmediate(() => {
        if (out.length > 0) flush();
        port.postMessage({ ack: m.ack } satisfies FromSender);
      }),
    );
  } else if (m.type === "close") {
    const a = agents.get(m.owner);
    agents.delete(m.owner);
    Promise.resolve(a?.close())
      .catch(() => undefined)
      .then(() => port.postMessage({ ack: m.ack } satisfies FromSender));
  }
}

const data = workerData as Partial<SenderData> | null;
if (parentPort && data?.role === ROLE && data.undici) {
  port = parentPort;
  Agent = (createRequire(import.meta.url)(data.undici) as typeof Undici).Agent;
  port.on("message", onMessage);
}
