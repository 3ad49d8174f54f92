/**
 * Records what is done in a sandbox, call by call (docs/recording.md), for
 * `GET /_sandbox/recording` to turn into a steps file. One INSERT per recorded call (the newest
 * delivery's seq read by the same statement), made before the answer leaves (inside `awaitCommit`),
 * so it joins the call's own group-commit batch: a call that was answered is recorded, across a
 * kill -9 too, and recording adds no commit of its own.
 *
 * What is recorded is what its route declares (src/http/route-use.ts): every gateway call but auth
 * (the runner authenticates by itself), the shopper page posts (3DS, HPP, QR), clock advances, and
 * the control-plane calls a test makes about its transactions (complete, the webhook journal,
 * replay). Not: reads of pages, the dashboard, health, events, scenarios (their documents head the
 * file instead), reset (it empties the recording) and the recording itself. A call whose body is
 * not JSON (or a form, for a page) is not recorded: a steps file cannot send it. Nor is a call
 * refused for its credentials (401): the middleware runs after the auth checks, so anonymous
 * traffic cannot add steps or push a session out.
 *
 * Bounded: a body over the request limit never reaches here (413 first), an answer is kept only
 * when it is JSON of at most RESPONSE_LIMIT bytes, and the newest `keep` calls are kept
 * (SANDBOX_RECORDING_KEEP; 0 turns recording off).
 */

import type { IncomingMessage } from "node:http";
import { sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { Db } from "../db/client.js";
import { inBatch } from "../db/commit.js";
import { lazy } from "../db/lazy.js";
import { type RecordedCall, recordedCalls, webhookDeliveries } from "../db/schema/index.js";
import { receivedText } from "../http/body.js";
import type { AppEnv, Scoped } from "../http/env.js";
import type { RecordedKind } from "../http/route-use.js";
import type { Clock } from "../platform/clock.js";
import type { PageStep } from "../scenarios/steps.schema.js";
import { redactForRecording, redactJsonText } from "./redact.js";

export type { RecordedCall };

/** A webhook delivery as the recording reads it from the journal. */
export interface RecordedDelivery {
  seq: number;
  /** Its `wh_…` id (a replay names it). */
  id: string;
  transactionId: string | null;
  subscriptionId: string | null;
  body: string;
  createdAt: number;
}

/** An answer longer than this is not kept (its ids cannot become references). */
export const RESPONSE_LIMIT = 64 * 1024;
/** Retention runs once per this many recorded calls. */
const PRUNE_EVERY = 256;

export type CallKind = "request" | "advance" | PageStep;

/** RecordedKind (what a route declares, src/http/route-use.ts) and CallKind are one set. */
const sameKinds: [CallKind, RecordedKind] extends [RecordedKind, CallKind] ? true : never = true;
void sameKinds;

export interface CallFacts {
  kind: CallKind;
  at: number;
  method: string;
  path: string;
  merchantKey: string | undefined;
  /** The request body as JSON text, already redacted (src/recording/redact.ts); undefined when none. */
  body: string | undefined;
  status: number;
  /** The answer's JSON text, when it is JSON and small enough. */
  response: string | undefined;
}

export interface RecorderDeps {
  db: Db;
  /** How many calls are kept (0: recording is off). */
  keep: number;
}

export class Recorder {
  private readonly add;
  private readonly pruneStmt;
  private readonly rangeStmt;
  private readonly deliveriesStmt;

  /** How many calls are kept (0: recording is off). */
  readonly keep: number;
  private readonly db: Db;

  constructor(deps: RecorderDeps) {
    const { db } = deps;
    this.db = db;
    this.keep = deps.keep;
    // the newest delivery when the call ended (its own included) by the insert itself: no statement of its own
    this.add = lazy(() =>
      db.$client.prepare(
        `INSERT INTO recorded_calls (at, kind, method, path, merchant_key, body, status, response, webhooks_up_to)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, coalesce((SELECT max(seq) FROM webhook_deliveries), 0))`,
      ),
    );
    this.pruneStmt = lazy(() => db.$client.prepare("DELETE FROM recorded_calls WHERE id <= ?"));
    this.rangeStmt = lazy(() =>
      db
        .select()
        .from(recordedCalls)
        .where(sql`${recordedCalls.at} >= ${sql.placeholder("from")} AND ${recordedCalls.at} <= ${sql.placeholder("to")}`)
        .orderBy(recordedCalls.id)
        .prepare(),
    );
    const d = webhookDeliveries;
    this.deliveriesStmt = lazy(() =>
      db
        .select({
          seq: d.seq,
          id: d.id,
          transactionId: d.transactionId,
          subscriptionId: d.subscriptionId,
          body: d.body,
          createdAt: d.createdAt,
        })
        .from(d)
        .where(sql`${d.createdAt} >= ${sql.placeholder("from")} AND ${d.createdAt} <= ${sql.placeholder("to")}`)
        .orderBy(d.seq)
        .prepare(),
    );
  }

  get enabled(): boolean {
    return recordingEnabled(this.keep);
  }

  /**
   * Keeps one call, in the caller's transaction (or the turn's batch). No savepoint of its own: the
   * insert is one statement, and the prune that may follow stands on its own (an old call dropped).
   */
  record(call: CallFacts): void {
    if (!this.enabled) return;
    inBatch(this.db, () => {
      const { lastInsertRowid } = this.add.run(
        call.at,
        call.kind,
        call.method,
        call.path,
        call.merchantKey ?? null,
        call.body ?? null,
        call.status,
        call.response ?? null,
      );
      const id = Number(lastInsertRowid);
      if (id % PRUNE_EVERY === 0 && id > this.keep) this.pruneStmt.run(id - this.keep);
    });
  }

  /** The calls made between two virtual instants (inclusive), oldest first. */
  calls(from: number, to: number): RecordedCall[] {
    return this.rangeStmt.all({ from, to });
  }

  /** The webhook deliveries made between two virtual instants (inclusive), by `seq`. */
  deliveries(from: number, to: number): RecordedDelivery[] {
    return this.deliveriesStmt.all({ from, to });
  }
}

const JSON_TYPE = /\bjson\b/i;
const FORM_TYPE = /application\/x-www-form-urlencoded/i;

/** The request body (its text) as the recording keeps it (redacted JSON text), or nothing; `false` when it cannot be sent by a step. */
function keptBody(text: string, type: string, kind: CallKind): string | undefined | false {
  if (text === "") return undefined;
  if (kind !== "request" && kind !== "advance") {
    return FORM_TYPE.test(type) ? JSON.stringify(redactForRecording(Object.fromEntries(new URLSearchParams(text)))) : false;
  }
  if (!JSON_TYPE.test(type) && type !== "") return false;
  return redactJsonText(text);
}

/**
 * @hono/node-server's Response keeps the body it was made with (a string, for `c.json`) under a
 * symbol, and answers from there without building a web Response; `clone()` or `text()` would build
 * one and take the answer off that fast path. Reading the kept string costs nothing; overriding
 * `c.json` per request to catch the text cost ~50 µs a payment (it deoptimizes Hono's Context).
 */
let bodyKept: symbol | undefined;

/**
 * A JSON answer's text. @hono/node-server's Response keeps what it was made with (status, body
 * string, headers as a plain object) under a symbol and answers from there; reading its `headers`
 * or `clone()` would build web Headers or a web Response and take the answer off that fast path
 * (~80 µs a payment, measured). So the text and its type are read from what is kept, at once;
 * other runtimes get a clone (a promise).
 */
function jsonTextOf(res: Response): string | undefined | Promise<string | undefined> {
  // the symbol is found on the first answer that has it (node-server puts its Response in place at listen)
  bodyKept ??= Object.getOwnPropertySymbols(res).find((s) => s.description === "cache");
  const kept = bodyKept ? (res as unknown as Record<symbol, [number, unknown, unknown] | undefined>)[bodyKept] : undefined;
  if (kept) {
    const headers = kept[2];
    const type =
      headers instanceof Headers
        ? headers.get("content-type")
        : ((headers as Record<string, string> | undefined)?.["Content-Type"] ??
          (headers as Record<string, string> | undefined)?.["content-type"]);
    return typeof kept[1] === "string" && JSON_TYPE.test(type ?? "") ? kept[1] : undefined;
  }
  return JSON_TYPE.test(res.headers.get("content-type") ?? "") ? res.clone().text() : undefined;
}

/**
 * What is kept of an answer: all of it (its ids become references), but of a clock move only where
 * it ended (`now`): its counts (ticks, charges, deliveries) say nothing a replay needs, and numbers
 * that vary run by run have no place at rest beside what a scan for card data looks for.
 */
function keptOf(kind: CallKind, answer: string): string | undefined {
  if (kind !== "advance") return answer;
  try {
    const { now } = JSON.parse(answer) as { now?: unknown };
    return typeof now === "string" ? JSON.stringify({ now }) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a recorder that keeps `keep` calls records anything (SANDBOX_RECORDING_KEEP=0: nothing, docs/recording.md). */
export const recordingEnabled = (keep: number): boolean => keep > 0;

/**
 * The middleware of a route that declares `recorded: kind` (src/http/route-use.ts), mounted on it
 * after the body reader and the auth checks and inside awaitCommit. It takes the answer's JSON as
 * it was made (jsonTextOf) and records the call.
 */
export function recordCalls(of: Scoped<{ recorder: Recorder; clock: Clock }>, kind: CallKind): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { recorder, clock } = of(c);
    const at = clock.nowMs();
    await next();
    // mounted after the auth checks; a 401 here is a route's own credentials refused (the report's)
    if (c.res.status === 401) return;
    // Node's own request (its headers and url as received) where there is one: the web Request's
    // headers are built on first use, which the gateway's hot path otherwise avoids
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const header = (name: string) => (incoming ? (incoming.headers[name] as string | undefined) : c.req.header(name));
    const method = c.req.method;
    // the text src/http/body.ts read from the socket, taken as it is (no promise, no second copy);
    // Hono's body cache where that reader read none (another runtime)
    const sent = method === "GET" || method === "HEAD" ? "" : (receivedText(c.req) ?? (await c.req.text()));
    const body = keptBody(sent, header("content-type") ?? "", kind);
    if (body === false) return;
    // synchronous on Node (the kept string): no promise to wait for
    const text = jsonTextOf(c.res);
    const answered = typeof text === "object" ? await text : text;
    const response = answered !== undefined && answered.length <= RESPONSE_LIMIT ? keptOf(kind, answered) : undefined;
    const url = incoming?.url ?? c.req.url;
    const query = url.indexOf("?");
    recorder.record({
      kind,
      at,
      method,
      path: query < 0 ? c.req.path : `${c.req.path}${url.slice(query)}`,
      merchantKey: c.get("merchant")?.merchantKey ?? header("x-merchant-key"),
      body,
      status: c.res.status,
      response,
    });
  };
}
