/**
 * The webhook dispatcher (docs/webhooks.md): a DueWork that coordinates the delivery pipeline. It
 * claims the due rows of the outbox (claim.ts), sends them through the sender thread (sender.ts,
 * one job each: attempt-job.ts), records the results as they arrive (result-batches.ts, each one:
 * results.ts) with the retry schedule of retries.ts, keeps one orderKey's deliveries in order, and
 * survives a crash without losing a delivery or repeating an attempt number (recovery.ts). The
 * journal and replay are journal.ts.
 *
 * One receiver cannot hold up another (docs/webhooks.md#one-receiver-cannot-hold-up-another): `run()` starts requests and returns without
 * waiting for them; each result is recorded as it arrives (the results of one I/O turn in one
 * transaction) and pokes the runner, so newly due work is picked up while earlier requests are in
 * flight. Each destination has at most `concurrency` requests (and sockets) at once; due rows
 * beyond that are parked (destinations.ts). A settling run (`runUntil`, clock advance) waits
 * through `pending()` before it moves the clock on. Where it meets group commit (a delivery sent
 * right after the COMMIT of the request that enqueued it: taken.ts) is group-commit.ts.
 */
import { performance } from "node:perf_hooks";
import pino from "pino";
import { type Db, inTransaction } from "../db/client.js";
import type { AttemptResult } from "../events/event-log.js";
import type { Logger } from "../logger.js";
import type { Clock } from "../platform/clock.js";
import type { DueWork } from "../scheduler/due-work.js";
import { attemptJob } from "./attempt-job.js";
import { claimDue } from "./claim.js";
import { Destinations, destinationOf, type Flight } from "./destinations.js";
import { DeliveryCommits } from "./group-commit.js";
import { recordInterrupted, recoverInFlight } from "./recovery.js";
import { ON_PATH_MS, ResultBatches } from "./result-batches.js";
import { AttemptResults, type Outcome } from "./results.js";
import { INTERRUPTED_ERROR } from "./retries.js";
import { closeOwner, sendJobs } from "./sender.js";
import { TakenDeliveries } from "./taken.js";
import { type DueRow, WebhooksRepo } from "./webhooks.repo.js";

/** Dispatchers made so far (each one's Agent in the sender thread). */
let owners = 0;

export interface DispatcherOptions {
  /** A delivery succeeds on a 2xx within this many real ms (docs/webhooks.md#retries: 10 s; tests shorten it). */
  timeoutMs?: number;
  /** Requests (and sockets) in flight at once to one destination (different orderKeys only). */
  concurrency?: number;
  /** Failed attempts are logged at warn. */
  logger?: Logger;
}

/** Waits for `settled` (its failure too) for at most `ms` real ms. */
async function within(settled: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([settled.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export class WebhookDispatcher implements DueWork {
  readonly name = "deliveries";
  private readonly repo: WebhooksRepo;
  /** This dispatcher's Agent in the sender thread (src/webhooks/sender.ts). */
  private readonly owner = ++owners;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly commits: DeliveryCommits;
  private readonly lanes: Destinations;
  private readonly results: AttemptResults;
  private readonly taken: TakenDeliveries;
  private readonly batches: ResultBatches;
  private stopped = false;
  private readonly wakeKey = {};

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly poke: () => void,
    opts: DispatcherOptions = {},
  ) {
    this.repo = new WebhooksRepo(db);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.logger = opts.logger ?? pino({ level: "silent" });
    this.commits = new DeliveryCommits(db.$client);
    this.lanes = new Destinations(Math.max(1, opts.concurrency ?? 64));
    this.results = new AttemptResults(this.repo, this.logger);
    this.taken = new TakenDeliveries(this.commits, this.lanes, this.repo, this.logger, (flights) => this.start(flights));
    const dispatcher = this;
    this.batches = new ResultBatches({
      db,
      clock,
      logger: this.logger,
      repo: this.repo,
      commits: this.commits,
      lanes: this.lanes,
      results: this.results,
      get stopped() {
        return dispatcher.stopped;
      },
      poke: () => this.poke(),
      start: (flights) => this.start(flights),
    });
  }

  /** Runs inside the transaction that records each attempt's result (interrupted ones included). */
  onAttempt(listener: (a: AttemptResult) => void): void {
    this.results.onAttempt(listener);
  }

  /** Requests on the wire now (tests, shutdown). */
  get inFlight(): number {
    return this.lanes.flights.size;
  }

  /** Requests on the wire or rows parked for room: a sandbox is not closed under them. */
  get busy(): boolean {
    return this.lanes.flights.size > 0 || this.lanes.parkedCount > 0 || this.taken.size > 0;
  }

  /**
   * DueWork: the earliest due time of a delivery that run() would send now: a parked row whose
   * destination has room, else the due index (parked rows and rows blocked behind their orderKey have none).
   */
  nextDueAt(): number | undefined {
    if (this.stopped) return undefined;
    const dbNext = this.repo.nextDueAt();
    if (this.lanes.ready.size > 0) return dbNext === undefined ? this.lanes.parkedAt : Math.min(dbNext, this.lanes.parkedAt);
    return dbNext;
  }

  /**
   * DueWork: starts every delivery due at `now` that its destination has room for and parks the
   * rest; does not wait for the requests (their results are recorded as they arrive, see flush).
   * Rows are marked in flight in one committed transaction before they are sent.
   */
  run(now: number, deadline?: number): { deliveries: number } {
    if (this.stopped) return { deliveries: 0 };
    const at = this.clock.nowMs();
    const starts: Flight[] = [];
    try {
      // a running clock (time scale) may have moved past `now`: what is due by then is due too
      inTransaction(this.db, () => claimDue(this.repo, this.lanes, Math.max(now, at), at, starts, deadline));
    } catch (err) {
      this.lanes.unclaim(starts);
      throw err;
    }
    // what goes on the wire is a committed payment, and a claimed attempt number is never sent twice
    this.commits.commitBeforeSending();
    this.start(starts);
    return { deliveries: starts.length };
  }

  /**
   * The outbox's wake (every enqueue). With a group-commit batch open (the server), the claim runs
   * inside that batch just before its COMMIT, so a payment and the claim of its webhook share one
   * COMMIT and the webhook leaves right after it, with no run of the runner; else (or if that
   * claim fails) a run soon, as before.
   */
  wake(): void {
    if (this.stopped) return;
    if (!this.commits.beforeCommit(this.wakeKey, () => this.claimAtCommit())) this.poke();
  }

  /**
   * Where a delivery the outbox is about to write, due now, goes (one look at its destination):
   * - "take": written already in flight (attempt 1 now) and sent right after the open group commit,
   *   with no due-index entry, no claim query and no claim UPDATE (docs/performance.md). Only inside a batch,
   *   when its destination has room and no parked rows waiting before it;
   * - "park": its destination is known and full, so a claim would only park it: written parked and
   *   queued (during a long advance nearly every callback; no due-index entry, claim read
   *   or park UPDATE);
   * - undefined: written due, for a claim to find (or this dispatcher is stopped).
   */
  placement(url: string): "take" | "park" | undefined {
    if (this.stopped) return undefined;
    const dest = this.lanes.get(destinationOf(url));
    if (dest !== undefined && dest.active >= this.lanes.concurrency) return "park";
    if (this.commits.isOpen() && (dest === undefined || dest.queue.length === 0)) return "take";
    return undefined;
  }

  /**
   * A delivery the outbox wrote parked ("park"): queued behind its destination's parked rows.
   * If its write is rolled back, the claim that reaches it finds the row gone (or another id at
   * that seq) and skips it, as for a row reset or settled meanwhile.
   */
  park(seq: number, id: string, url: string, at: number): void {
    this.lanes.park(this.lanes.of(destinationOf(url)), seq, id, at);
  }

  /** A delivery the outbox wrote in flight ("take"): counted against its destination now, sent after the COMMIT. */
  take(row: DueRow, at: number): void {
    const key = destinationOf(row.url);
    // a request rolled back earlier in this batch may have freed this seq: forget what it took
    const stale = this.lanes.flights.get(row.seq);
    if (stale) this.lanes.unclaim([stale]);
    this.taken.add(this.lanes.fly(row, key, this.lanes.of(key), at));
  }

  private claimAtCommit(): (committed: boolean) => void {
    const at = this.clock.nowMs();
    const starts: Flight[] = [];
    let more = false;
    try {
      more = claimDue(this.repo, this.lanes, at, at, starts, performance.now() + ON_PATH_MS);
    } catch (err) {
      this.lanes.unclaim(starts);
      this.logger.error({ err }, "claiming webhooks at commit failed; a run will");
      this.poke();
      throw err; // undoes the claim's savepoint
    }
    return (committed) => {
      if (!committed) {
        this.lanes.unclaim(starts);
        this.poke();
        return;
      }
      this.start(starts);
      if (more) this.poke(); // a full claim: more may be due
    };
  }

  /** Sends committed claims (one message to the sender thread); results are recorded as they come. */
  private start(flights: Flight[]): void {
    if (flights.length === 0) return;
    const record = (o: Outcome) => this.batches.arrived(o);
    sendJobs(
      { owner: this.owner, connections: this.lanes.concurrency, timeoutMs: this.timeoutMs },
      flights.map((f) => attemptJob(f, this.clock, this.timeoutMs, record)),
    );
  }

  /**
   * DueWork: while requests are on the wire, a promise that settles once some of their results
   * are recorded (rejects if recording failed); undefined when nothing is in flight.
   */
  pending(): Promise<void> | undefined {
    return this.batches.pending();
  }

  /** The journal's read barrier (docs/webhooks.md): every answer read by now is recorded when this resolves. */
  settled(): Promise<void> {
    return this.batches.settled();
  }

  /**
   * Startup (docs/webhooks.md: durable deliveries): attempts a crash left in flight are recorded as
   * interrupted and rescheduled like failed ones (recovery.ts). Returns the number of interrupted attempts.
   */
  recover(): number {
    return recoverInFlight(this.db, this.repo, this.results, () => this.clock.nowMs());
  }

  /**
   * Shutdown (docs/configuration.md: within 2 s, even with a hung receiver): sends nothing new, gives the requests
   * on the wire up to `graceMs` real ms to answer (their results are recorded as usual, so a clean
   * stop does not resend what a receiver just took), then interrupts the rest. Returns the number
   * of attempts interrupted.
   */
  async drain(graceMs: number): Promise<number> {
    this.stopped = true;
    const deadline = performance.now() + graceMs;
    for (;;) {
      const left = deadline - performance.now();
      const settled = this.pending();
      if (!settled || left <= 0) break;
      await within(settled, left);
    }
    return this.interrupt();
  }

  /**
   * Before its sandbox is deleted (docs/parallel-suites.md#deleting-a-sandbox): sends every delivery
   * due by now (parked ones included, and those their orderKey lets go meanwhile) and waits for the
   * answers, for at most the attempt timeout of real time from now. What is still on the wire then
   * is for the caller to end (`interrupt({ deleted: true })`).
   */
  async settleDue(): Promise<void> {
    this.results.deleting = true;
    // a little over the timeout: an attempt started now ends by its own timer first, as a timeout
    const deadline = performance.now() + this.timeoutMs + 100;
    const dueBy = this.clock.nowMs();
    while (!this.stopped && this.commits.dbOpen) {
      const started = this.run(dueBy).deliveries;
      const settled = this.pending();
      const left = deadline - performance.now();
      if ((!settled && started === 0) || left <= 0) break;
      if (!settled) continue;
      await within(settled, left);
    }
  }

  /**
   * Stops sending at once, records every attempt on the wire as interrupted and aborts its request:
   * rescheduled as after a crash, or, when its sandbox is being `deleted`, the last one (nothing
   * would retry it). Parked rows get their due time back. Returns the number of attempts interrupted.
   */
  interrupt(opts: { deleted?: boolean } = {}): number {
    this.stopped = true;
    if (opts.deleted) this.results.deleting = true;
    const flights = [...this.lanes.flights.values()];
    recordInterrupted(this.db, this.repo, this.results, flights, this.clock.nowMs());
    for (const f of flights) {
      this.lanes.flights.delete(f.row.seq); // recorded: its aborted request's result is ignored (settleRow finds it settled)
      f.abort(new Error(INTERRUPTED_ERROR));
    }
    return flights.length;
  }

  /** The outbox wrote a delivery of `orderKey`; `alone`: no pending one of its key before it. */
  wrote(orderKey: string, alone: boolean): void {
    this.results.wrote(orderKey, alone);
  }

  /** Forgets parked rows (reset dropped them). */
  clear(): void {
    this.lanes.clearParked();
    this.results.clear();
  }

  /** Closes the keep-alive connections (tests, shutdown). */
  async close(): Promise<void> {
    await closeOwner(this.owner);
  }

  /** DueWork: deliveries started by the recording of results (claimed with the results that made them due) since the last call. */
  took(): { deliveries: number } | undefined {
    return this.batches.took();
  }
}
