/**
 * One attempt as a job for the sender thread (sender.ts): its URL without userinfo (sent as Basic
 * auth instead), its real-time timeout, and its outcome from the first of the thread's answer, the
 * timeout or an abort.
 *
 * LIMITATIONS:
 * - "within 10 s" is real time, not virtual: a timer aborts the request.
 * - Redirects are not followed: a 3xx is a failed attempt, as any non-2xx.
 */
import { performance } from "node:perf_hooks";
import type { Clock } from "../platform/clock.js";
import type { Flight } from "./destinations.js";
import type { Outcome } from "./results.js";
import { abortJob, type SendJob, type SendResult } from "./sender.js";

/** Attempts sent so far in this process (job ids). */
let jobs = 0;

/**
 * A callbackUrl's `user:password@` becomes HTTP Basic auth, as curl and browsers send it (fetch
 * and undici refuse or drop userinfo); the URL goes without it.
 */
function splitUserinfo(raw: string): { url: string; authorization: string | undefined } {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) return { url: raw, authorization: undefined };
  const u = new URL(raw);
  const creds = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = "";
  u.password = "";
  return { url: u.toString(), authorization: `Basic ${Buffer.from(creds).toString("base64")}` };
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e?.code === "string" ? e.code : typeof e?.cause?.code === "string" ? e.cause.code : undefined;
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * The job of flight `f`. Its outcome goes to `done` once, from the first of: the thread's answer
 * (a 2xx whose body fully arrived is a success, anything else a failure with its status or error),
 * the `timeoutMs` real-time timeout, or `f.abort` (shutdown); the others are dropped.
 */
export function attemptJob(
  f: Flight,
  clock: Clock,
  timeoutMs: number,
  done: (o: Outcome) => void,
): { job: SendJob; done: (r: SendResult) => void } {
  const { row, n, at } = f;
  const id = ++jobs;
  const start = performance.now();
  let ended = false;
  const end = (ok: boolean, httpStatus: number | null, error: string | null) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    done({
      row,
      n,
      at,
      endedAt: Math.max(at, clock.nowMs()),
      ok,
      httpStatus,
      error,
      durationMs: Math.round(performance.now() - start),
    });
  };
  f.abort = (reason) => {
    abortJob(id, reason.message);
    end(false, null, describe(reason));
  };
  const timer = setTimeout(() => f.abort(new Error(`timeout: no complete answer within ${timeoutMs} ms`)), timeoutMs);
  const { url, authorization } = splitUserinfo(row.url);
  return {
    job: { id, url, headers: row.headers, body: row.body, attempt: n, authorization },
    done: (r) => end(r.ok, r.httpStatus, r.error),
  };
}
