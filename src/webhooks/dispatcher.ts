/**
 * The webhook dispatcher (CONTRACT §3 Webhooks, §4 journal and replay): a DueWork that POSTs the
 * due rows of the outbox with undici, retries on the live gateway's schedule, keeps one orderKey's
 * deliveries in order, and survives a crash without losing a delivery or repeating an attempt number.
 *
 * LIMITATIONS:
 * - "within 10 s" is real time, not virtual: a timer aborts the request (undici's own headersTimeout
 *   and bodyTimeout are set too, but tick in ~1 s steps).
 * - A run returns when its last request settles, so one slow receiver (up to 10 s) delays the
 *   next run (later retries, other due work) though not the other deliveries of the same run.
 * - Redirects are not followed: a 3xx is a failed attempt, as any non-2xx.
 */
import { performance } from "node:perf_hooks";
import type { Agent } from "undici";
import { type Db, inTransaction } from "../db/client.js";
import { type Clock, toIso } from "../platform/clock.js";
import { notFound } from "../platform/errors.js";
import type { Ids } from "../platform/ids.js";
import type { DueWork } from "../scheduler/due-work.js";
import { type DeliveryRow, type DeliveryStatus, type DueRow, type JournalFilter, WebhooksRepo } from "./webhooks.repo.js";

/** Minutes between a failed attempt n (1-based) and attempt n+1 (CONTRACT §3: 2, 4, 8, 16, 32). */
export const RETRY_DELAYS_MIN = [2, 4, 8, 16, 32] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MIN.length + 1;
export const INTERRUPTED_ERROR = "interrupted: sandbox stopped during the attempt";
const MINUTE = 60_000;

/** undici is loaded on the first delivery, not at start: it is ~1 MiB that cold start need not parse. */
let undici: Promise<typeof import("undici")> | undefined;
const loadUndici = () => {
  undici ??= import("undici");
  return undici;
};

export interface DispatcherOptions {
  /** A delivery succeeds on a 2xx within this many real ms (CONTRACT: 10 s; tests shorten it). */
  timeoutMs?: number;
  /** Deliveries in flight at once (different orderKeys only). */
  concurrency?: number;
}

/** One entry of `GET /_sandbox/webhooks` (CONTRACT §4). */
export interface JournalEntry {
  id: string;
  kind: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  status: DeliveryStatus;
  transactionId: string | null;
  subscriptionId: string | null;
  eventStatus: string;
  createdAt: string;
  nextAttemptAt: string | null;
  replayOf: string | null;
  attempts: Array<{ at: string; httpStatus: number | null; error: string | null }>;
}

interface Outcome {
  row: DueRow;
  n: number;
  at: number;
  endedAt: number;
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** When attempt `n` (1-based) failed at `failedAt`: the next attempt's time, or null when it was the last. */
export function nextAttemptAfter(n: number, failedAt: number): number | null {
  const delay = RETRY_DELAYS_MIN[n - 1];
  return delay === undefined ? null : failedAt + delay * MINUTE;
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e?.code === "string" ? e.code : typeof e?.cause?.code === "string" ? e.cause.code : undefined;
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

export class WebhookDispatcher implements DueWork {
  readonly name = "deliveries";
  private readonly repo: WebhooksRepo;
  private agent: Promise<Agent> | undefined;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly batch: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly poke: () => void,
    opts: DispatcherOptions = {},
  ) {
    this.repo = new WebhooksRepo(db);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.concurrency = opts.concurrency ?? 64;
    this.batch = Math.max(1, Math.floor(this.concurrency / 4));
  }

  /** One keep-alive agent for every delivery, made on first use. */
  private http(): Promise<Agent> {
    this.agent ??= loadUndici().then(
      ({ Agent }) =>
        new Agent({
          keepAliveTimeout: 4_000,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          connect: { timeout: this.timeoutMs },
        }),
    );
    return this.agent;
  }

  /** DueWork: the earliest due time of a delivery that run() would send (blocked rows have none). */
  nextDueAt(): number | undefined {
    return this.repo.nextDueAt();
  }

  /**
   * DueWork: sends every delivery due at `now`, up to `concurrency` at a time, including those that
   * become due during the run because the delivery ahead of them in their orderKey settled.
   * Each batch is marked in flight in one committed transaction before it is sent; results are
   * recorded (and the next batch claimed) in one transaction per wake-up.
   */
  async run(now: number): Promise<{ deliveries: number }> {
    let attempts = 0;
    let inFlight = 0;
    const done: Outcome[] = [];
    let wake: (() => void) | undefined;
    for (;;) {
      const room = this.concurrency - inFlight;
      const claimed = inTransaction(this.db, () => {
        for (const o of done.splice(0)) this.record(o);
        return this.claim(now, room);
      });
      for (const c of claimed) {
        inFlight++;
        attempts++;
        void this.send(c.row, c.n, c.at).then((o) => {
          inFlight--;
          done.push(o);
          wake?.();
        });
      }
      if (inFlight === 0 && done.length === 0) break;
      // While the queue is deep, record results in batches (one transaction each); once it is
      // drained, record each result at once so the next delivery of its orderKey leaves promptly.
      const want = claimed.length === room ? this.batch : 1;
      if (done.length < want && inFlight > 0) {
        await new Promise<void>((resolve) => {
          wake = () => {
            if (done.length >= want || inFlight === 0) resolve();
          };
        });
      }
      wake = undefined;
      // let the other responses of this I/O turn arrive too
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { deliveries: attempts };
  }

  /**
   * Startup (CONTRACT §3: durable deliveries): attempts a crash left in flight are recorded as
   * interrupted and rescheduled like failed ones, so none is lost and no attempt number repeats;
   * a pending head that lost its due time gets one. Returns the number of interrupted attempts.
   */
  recover(): number {
    return inTransaction(this.db, () => {
      const now = this.clock.nowMs();
      const rows = this.repo.inFlightRows();
      for (const row of rows) {
        const at = row.inFlightSince ?? now;
        this.record({
          row,
          n: row.attemptCount,
          at,
          endedAt: Math.max(now, at),
          ok: false,
          httpStatus: null,
          error: INTERRUPTED_ERROR,
          durationMs: 0,
        });
      }
      for (const row of this.repo.orphanHeads()) this.repo.setNextAttempt(row.seq, now);
      return rows.length;
    });
  }

  /** `GET /_sandbox/webhooks` (CONTRACT §4): newest first. */
  journal(filter: JournalFilter): JournalEntry[] {
    const rows = this.repo.list(filter);
    const attempts = new Map<string, JournalEntry["attempts"]>();
    for (const a of this.repo.attemptsOf(rows.map((r) => r.id))) {
      const list = attempts.get(a.deliveryId) ?? [];
      if (list.length === 0) attempts.set(a.deliveryId, list);
      list.push({ at: toIso(a.at), httpStatus: a.httpStatus, error: a.error });
    }
    return rows.map((r) => this.present(r, attempts.get(r.id) ?? []));
  }

  /** One journal entry, or 404. */
  get(id: string): JournalEntry {
    const row = this.repo.byId(id);
    if (!row) throw notFound(`Webhook delivery not found: ${id}`);
    const attempts = this.repo.attemptsOf([id]).map((a) => ({ at: toIso(a.at), httpStatus: a.httpStatus, error: a.error }));
    return this.present(row, attempts);
  }

  /**
   * `POST /_sandbox/webhooks/{id}/replay` (CONTRACT §4): the same url, body and signature as a new
   * delivery, due now, under its own orderKey so nothing queued ahead of the original blocks it.
   */
  replay(id: string): JournalEntry {
    const original = this.repo.byId(id);
    if (!original) throw notFound(`Webhook delivery not found: ${id}`);
    const now = this.clock.nowMs();
    const newId = this.ids.next("webhook");
    this.repo.insert({
      id: newId,
      merchantKey: original.merchantKey,
      kind: original.kind,
      orderKey: newId,
      transactionId: original.transactionId,
      subscriptionId: original.subscriptionId,
      eventStatus: original.eventStatus,
      url: original.url,
      headers: { ...original.headers, "X-Sandbox-Delivery-Id": newId },
      body: original.body,
      status: "pending",
      attemptCount: 0,
      nextAttemptAt: now,
      replayOf: original.id,
      createdAt: now,
      updatedAt: now,
    });
    this.poke();
    return this.get(newId);
  }

  /** Closes the keep-alive connections (tests, shutdown). */
  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  private claim(now: number, limit: number): Array<{ row: DueRow; n: number; at: number }> {
    if (limit <= 0) return [];
    const at = this.clock.nowMs();
    // a running clock (time scale) may have moved past `now`: what is due by then is due too
    return this.repo.dueRows(Math.max(now, at), limit).map((row) => {
      this.repo.markInFlightRow(row.seq, at);
      return { row, n: row.attemptCount + 1, at };
    });
  }

  private async send(row: DueRow, n: number, at: number): Promise<Outcome> {
    const start = performance.now();
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new Error(`timeout: no complete answer within ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    const end = (ok: boolean, httpStatus: number | null, error: string | null): Outcome => ({
      row,
      n,
      at,
      endedAt: Math.max(at, this.clock.nowMs()),
      ok,
      httpStatus,
      error,
      durationMs: Math.round(performance.now() - start),
    });
    try {
      const [{ request }, agent] = await Promise.all([loadUndici(), this.http()]);
      const res = await request(row.url, {
        dispatcher: agent,
        method: "POST",
        headers: { ...row.headers, "X-Sandbox-Attempt": String(n) },
        body: row.body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: abort.signal,
      });
      await res.body.dump().catch(() => undefined);
      return end(res.statusCode >= 200 && res.statusCode < 300, res.statusCode, null);
    } catch (err) {
      return end(false, null, describe(abort.signal.aborted ? abort.signal.reason : err));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Writes an attempt's result (inside the caller's transaction) and moves its orderKey on when it settled. */
  private record(o: Outcome): void {
    const next = o.ok ? null : nextAttemptAfter(o.n, o.endedAt);
    const status: DeliveryStatus = o.ok ? "delivered" : next === null ? "failed" : "pending";
    if (!this.repo.settleRow(o.row.seq, status, next, o.endedAt)) return;
    this.repo.insertAttempt({
      deliveryId: o.row.id,
      n: o.n,
      at: o.at,
      httpStatus: o.httpStatus,
      error: o.error,
      durationMs: o.durationMs,
    });
    if (status !== "pending") this.repo.promoteNext(o.row.orderKey, o.endedAt);
  }

  private present(r: DeliveryRow, attempts: JournalEntry["attempts"]): JournalEntry {
    let body: unknown = r.body;
    try {
      body = JSON.parse(r.body);
    } catch {}
    return {
      id: r.id,
      kind: r.kind,
      url: r.url,
      headers: r.headers,
      body,
      status: r.status,
      transactionId: r.transactionId,
      subscriptionId: r.subscriptionId,
      eventStatus: r.eventStatus,
      createdAt: toIso(r.createdAt),
      nextAttemptAt: r.nextAttemptAt === null ? null : toIso(r.nextAttemptAt),
      replayOf: r.replayOf,
      attempts,
    };
  }
}
