/**
 * Recording the attempts' answers as they arrive (docs/webhooks.md, docs/performance.md): the
 * answers of one I/O turn are recorded together, for up to ON_PATH_MS of real time (what is left
 * waits for the next turn, so a thousand answers that arrive at once do not hold the requests
 * behind them). Each answer is one statement (attempt_results, migration 0009: the attempt's row,
 * its event and the delivery's new state), with its retry time from the schedule (retries.ts), and
 * a settled delivery lets its orderKey's next one go. What those answers made due now is claimed in
 * the same batch and sent once it commits. A settling run waits on `pending()`.
 */
import { performance } from "node:perf_hooks";
import { writesPaused } from "../db/checkpointer.js";
import type { Db } from "../db/client.js";
import { commitNow, inBatch } from "../db/commit.js";
import type { Logger } from "../logger.js";
import { type Clock, toIso } from "../platform/clock.js";
import { claimDue } from "./claim.js";
import { type Destinations, type Flight, maskUrl } from "./destinations.js";
import type { Outbox } from "./outbox.js";
import { INTERRUPTED_ERROR, nextAttemptAfter } from "./retries.js";
import { syncSender } from "./sender.js";
import type { DeliveryStatus, DueRow, WebhooksRepo } from "./webhooks.repo.js";

/**
 * Real ms a claim at a request's commit, and a recording of answers, may take before they leave the
 * rest to the next turn: both run on the request path.
 */
export const ON_PATH_MS = 4;

/** How one attempt ended. */
export interface Outcome {
  row: DueRow;
  /** Its destination (`destinationOf`), whose room it frees. */
  dest: string;
  n: number;
  at: number;
  endedAt: number;
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** Attempt `n` of `row`, started at `at`, cut off at `now` (a crash, a stop). */
export function interrupted(row: DueRow, n: number, at: number, now: number): Outcome {
  return {
    row,
    dest: "",
    n,
    at,
    endedAt: Math.max(now, at),
    ok: false,
    httpStatus: null,
    error: INTERRUPTED_ERROR,
    durationMs: 0,
  };
}

export interface ResultsDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  repo: WebhooksRepo;
  lanes: Destinations;
  /** What the outbox wrote: whether a settled delivery had anything written behind it. */
  outbox: Pick<Outbox, "settledAlone">;
  /** Its dispatcher sends nothing new any more. */
  stopped(): boolean;
  /** Asks the runner for a run soon. */
  poke(): void;
  /** Sends committed claims. */
  start(flights: Flight[]): void;
}

export class AttemptResults {
  /** Its sandbox is being deleted: an attempt that fails now is the last (nothing would retry it). */
  deleting = false;
  /** Outcomes arrived and not yet recorded. */
  private done: Outcome[] = [];
  private flushScheduled = false;
  /** Deliveries flush() started since took() was last asked. */
  private took_ = 0;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];

  constructor(private readonly deps: ResultsDeps) {}

  /** An attempt's answer came in: recorded with the others of this turn. */
  arrived(outcome: Outcome): void {
    this.done.push(outcome);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * While requests are on the wire, a promise that settles once some of their results are
   * recorded (rejects if recording failed); undefined when nothing is in flight.
   */
  pending(): Promise<void> | undefined {
    if (this.deps.lanes.flights.size === 0 && this.done.length === 0) return undefined;
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * The journal's read barrier (docs/webhooks.md): every answer the sender thread has read by now
   * is recorded when this resolves, so a client whose receiver just answered never reads its
   * delivery as pending. At once when nothing is on the wire or waiting to be recorded.
   */
  async settled(): Promise<void> {
    if (this.deps.lanes.flights.size > 0) await syncSender();
    if (this.done.length === 0 || !this.deps.db.$client.open) return;
    const paused = writesPaused(this.deps.db.$client);
    if (paused) await paused;
    if (this.done.length > 0) this.flush();
  }

  /** Deliveries started by flush() (claimed with the results that made them due) since the last call. */
  took(): { deliveries: number } | undefined {
    const n = this.took_;
    this.took_ = 0;
    return n > 0 ? { deliveries: n } : undefined;
  }

  /**
   * Writes an attempt's result (inside the caller's transaction or batch) and moves its orderKey on
   * when it settled; true when that made another delivery due.
   */
  record(o: Outcome): boolean {
    const next = o.ok || this.deleting ? null : nextAttemptAfter(o.n, o.endedAt);
    const status: DeliveryStatus = o.ok ? "delivered" : next === null ? "failed" : "pending";
    this.deps.repo.recordResult({
      seq: o.row.seq,
      n: o.n,
      at: o.at,
      httpStatus: o.httpStatus,
      error: o.error,
      durationMs: o.durationMs,
      status,
      nextAttemptAt: next,
      endedAt: o.endedAt,
      url: maskUrl(o.row.url),
    });
    if (!o.ok) this.logFailure(o, next);
    if (status === "pending") return false;
    // nothing was written behind it: no next delivery to make due
    if (this.deps.outbox.settledAlone(o.row.orderKey)) return false;
    return this.deps.repo.promoteNext(o.row.orderKey, o.endedAt);
  }

  private flush(): void {
    const { lanes, db } = this.deps;
    // the WAL's restart holds background writes a moment (src/db/checkpointer.ts): the results wait in memory
    const paused = writesPaused(db.$client);
    if (paused) {
      void paused.then(() => this.flush());
      return;
    }
    this.flushScheduled = false;
    const all = this.done;
    this.done = [];
    const waiters = this.waiters;
    this.waiters = [];
    if (!db.$client.open) {
      // the database closed while requests were on the wire (shutdown, a test's end): their results
      // cannot be written, as after a crash (the rows stay in flight and recover() reschedules
      // them), and nobody waits for them any more
      for (const o of all) lanes.flights.delete(o.row.seq);
      for (const w of waiters) w.resolve();
      return;
    }
    let n = 0;
    const starts: Flight[] = [];
    let more = false;
    try {
      const deadline = performance.now() + ON_PATH_MS;
      // no savepoint: each answer is one statement, whole or not at all, and a promote or a claim
      // stands on its own
      inBatch(db, () => {
        let promoted = false;
        for (const o of all) {
          if (n > 0 && performance.now() > deadline) break;
          if (this.record(o)) promoted = true;
          lanes.leave(o.row.seq, o.dest);
          n++;
        }
        // what these results made due now (the next delivery of an orderKey, a parked row that has
        // room) is claimed in the same batch: one COMMIT for the results and the next requests, and
        // no run of the runner in between (docs/performance.md). A retry is minutes away: the
        // runner's tick finds it.
        if (!this.deps.stopped() && (promoted || lanes.ready.size > 0)) {
          const at = this.deps.clock.nowMs();
          more = claimDue(this.deps.repo, lanes, at, at, starts, deadline);
        }
      });
      if (n < all.length) {
        this.done = all.slice(n).concat(this.done);
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    } catch (err) {
      // what was written stays written; the rest is dropped, as if the process had died (their rows
      // stay in flight: recover() reschedules them at the next start)
      lanes.unclaim(starts);
      for (const o of all.slice(n)) lanes.leave(o.row.seq, o.dest);
      if (waiters.length === 0) this.deps.logger.error({ err }, "recording webhook attempts failed");
      for (const w of waiters) w.reject(err);
      if (!this.deps.stopped()) this.deps.poke();
      return;
    }
    if (starts.length > 0) {
      // a claimed attempt number is never sent twice: it leaves once its claim is committed
      commitNow(db.$client);
      this.took_ += starts.length;
      this.deps.start(starts);
    }
    for (const w of waiters) w.resolve();
    if (more) this.deps.poke(); // a full claim: more may be due
  }

  private logFailure(o: Outcome, next: number | null): void {
    this.deps.logger.warn(
      {
        deliveryId: o.row.id,
        url: maskUrl(o.row.url),
        attempt: o.n,
        httpStatus: o.httpStatus,
        error: o.error,
        nextAttemptAt: next === null ? null : toIso(next),
      },
      `webhook attempt ${o.n} failed (${o.httpStatus ?? o.error}); ${next === null ? (this.deleting ? "no more attempts: its sandbox is deleted" : "no more attempts") : `next at ${toIso(next)}`}`,
    );
  }
}
