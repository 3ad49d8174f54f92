/**
 * Results recorded as they arrive (docs/performance.md): the attempts' outcomes that arrive in one
 * I/O turn are recorded in one transaction (results.ts writes each), for up to ON_PATH_MS of real
 * time; what is left waits for the next turn, so a thousand results that arrive at once do not
 * hold the requests behind them. What those results made due now is claimed in the same
 * transaction and sent once it commits. A settling run waits on `pending()`.
 */
import { performance } from "node:perf_hooks";
import { type Db, inTransaction } from "../db/client.js";
import type { Logger } from "../logger.js";
import type { Clock } from "../platform/clock.js";
import { claimDue } from "./claim.js";
import { type Destinations, destinationOf, type Flight } from "./destinations.js";
import type { DeliveryCommits } from "./group-commit.js";
import type { AttemptResults, Outcome } from "./results.js";
import { syncSender } from "./sender.js";
import type { WebhooksRepo } from "./webhooks.repo.js";

/**
 * Real ms a claim inside a request's group commit (wake → claimAtCommit) may take, and a flush of
 * results before it leaves the rest to the next turn: both run on the request path.
 */
export const ON_PATH_MS = 4;

/** What the batches need of their dispatcher. */
export interface BatchesOwner {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly repo: WebhooksRepo;
  readonly commits: DeliveryCommits;
  readonly lanes: Destinations;
  readonly results: AttemptResults;
  /** It sends nothing new any more. */
  readonly stopped: boolean;
  /** Asks the runner for a run soon. */
  poke(): void;
  /** Sends committed claims. */
  start(flights: Flight[]): void;
}

export class ResultBatches {
  /** Outcomes arrived and not yet recorded. */
  private done: Outcome[] = [];
  private flushScheduled = false;
  /** Deliveries flush() started since took() was last asked. */
  private took_ = 0;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];

  constructor(private readonly o: BatchesOwner) {}

  /** An attempt's outcome came in: recorded with the others of this turn. */
  arrived(outcome: Outcome): void {
    this.done.push(outcome);
    this.scheduleFlush();
  }

  /**
   * While requests are on the wire, a promise that settles once some of their results are
   * recorded (rejects if recording failed); undefined when nothing is in flight.
   */
  pending(): Promise<void> | undefined {
    if (this.o.lanes.flights.size === 0 && this.done.length === 0) return undefined;
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * The journal's read barrier (docs/webhooks.md): every answer the sender thread has read by now
   * is recorded when this resolves, so a client whose receiver just answered never reads its
   * delivery as pending. At once when nothing is on the wire or waiting to be recorded.
   */
  async settled(): Promise<void> {
    if (this.o.lanes.flights.size > 0) await syncSender();
    if (this.done.length === 0 || !this.o.commits.dbOpen) return;
    const paused = this.o.commits.writesPaused();
    if (paused) await paused;
    if (this.done.length > 0) this.flush();
  }

  /** Deliveries started by flush() (claimed with the results that made them due) since the last call. */
  took(): { deliveries: number } | undefined {
    const n = this.took_;
    this.took_ = 0;
    return n > 0 ? { deliveries: n } : undefined;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const { lanes, commits } = this.o;
    // the WAL's restart holds background writes a moment (src/db/checkpointer.ts): the results wait in memory
    const paused = commits.writesPaused();
    if (paused) {
      void paused.then(() => this.flush());
      return;
    }
    this.flushScheduled = false;
    const all = this.done;
    this.done = [];
    const waiters = this.waiters;
    this.waiters = [];
    if (!commits.dbOpen) {
      // the database closed while requests were on the wire (shutdown, a test's end): their results
      // cannot be written, as after a crash (the rows stay in flight and recover() reschedules
      // them), and nobody waits for them any more
      for (const o of all) lanes.flights.delete(o.row.seq);
      for (const w of waiters) w.resolve();
      return;
    }
    let batch = all;
    let released = false;
    const starts: Flight[] = [];
    let more = false;
    try {
      const deadline = performance.now() + ON_PATH_MS;
      inTransaction(this.o.db, () => {
        let promoted = false;
        let n = 0;
        for (const o of all) {
          if (n > 0 && performance.now() > deadline) break;
          if (this.o.results.record(o)) promoted = true;
          n++;
        }
        if (n < all.length) {
          batch = all.slice(0, n);
          this.done = all.slice(n);
        }
        this.release(batch);
        released = true;
        // what these results made due now (the next delivery of an orderKey, a parked row that has
        // room) is claimed in the same transaction: one COMMIT for the results and the next
        // requests, and no run of the runner in between (docs/performance.md). A retry is minutes away: the
        // runner's tick finds it.
        if (!this.o.stopped && (promoted || lanes.ready.size > 0)) {
          const at = this.o.clock.nowMs();
          more = claimDue(this.o.repo, lanes, at, at, starts, deadline);
        }
      });
      if (this.done.length > 0) this.scheduleFlush();
    } catch (err) {
      // rolled back whole: every result taken is dropped, as if the process had died
      lanes.unclaim(starts);
      if (!released) this.release(all);
      this.done = [];
      if (waiters.length === 0) this.o.logger.error({ err }, "recording webhook attempts failed");
      for (const w of waiters) w.reject(err);
      if (!this.o.stopped) this.o.poke();
      return;
    }
    if (starts.length > 0) {
      // a claimed attempt number is never sent twice: it leaves once its claim is committed
      commits.commitBeforeSending();
      this.took_ += starts.length;
      this.o.start(starts);
    }
    for (const w of waiters) w.resolve();
    if (more) this.o.poke(); // a full claim: more may be due
  }

  /** The attempts whose results were just recorded (or dropped) leave the wire and free their destination's room. */
  private release(batch: Outcome[]): void {
    for (const o of batch) this.o.lanes.leave(o.row.seq, destinationOf(o.row.url));
  }
}
