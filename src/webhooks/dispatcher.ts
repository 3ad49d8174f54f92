/**
 * The webhook dispatcher (docs/webhooks.md): the main thread's owner of the second road, outbox row →
 * sender thread → result row → retry schedule. At every commit of its database it places what the
 * batch wrote for the sender (the outbox's `written`): each delivery goes at once if its destination
 * has room, else it waits parked in memory (destinations.ts); those that go are marked in flight in
 * the same batch and sent right after its COMMIT (sender.ts, one message for the batch). Answers come
 * back from the thread and are recorded as they arrive (results.ts, with the retry schedule of
 * retries.ts). As a DueWork it claims what time made due (retries, claim.ts), and it survives a crash
 * without losing a delivery or repeating an attempt number (recovery.ts). The journal and replay are
 * journal.ts.
 *
 * One receiver cannot hold up another (docs/webhooks.md#one-receiver-cannot-hold-up-another):
 * nothing waits for a request; each destination has at most `concurrency` requests (and sockets) at
 * once, and what is beyond waits parked. A settling run (`runUntil`, clock advance) waits through
 * `pending()` before it moves the clock on.
 */
import { performance } from "node:perf_hooks";
import pino from "pino";
import { type Db, inTransaction } from "../db/client.js";
import { type CommitListener, commitNow } from "../db/commit.js";
import type { Logger } from "../logger.js";
import type { Clock } from "../platform/clock.js";
import type { DueWork } from "../scheduler/due-work.js";
import { claimDue } from "./claim.js";
import { Destinations, destinationOf, type Flight } from "./destinations.js";
import type { Outbox, PreparedDelivery } from "./outbox.js";
import { recordInterrupted, recoverInFlight } from "./recovery.js";
import { AttemptResults, ON_PATH_MS } from "./results.js";
import { INTERRUPTED_ERROR } from "./retries.js";
import { type Answers, abortJob, closeOwner, type Jobs, nextJob, sendJobs, splitUserinfo } from "./sender.js";
import { WebhooksRepo } from "./webhooks.repo.js";

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

export interface DispatcherDeps extends DispatcherOptions {
  db: Db;
  clock: Clock;
  /** Where the deliveries come from: what it wrote since the last commit, and what settled alone. */
  outbox: Outbox;
  /** Asks the due-work runner for a run soon. */
  poke: () => void;
}

/** Waits for `settled` (its failure too) for at most `ms` real ms. */
async function within(settled: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([settled.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export class WebhookDispatcher implements DueWork, Answers, CommitListener {
  readonly name = "deliveries";
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly outbox: Outbox;
  private readonly poke: () => void;
  private readonly repo: WebhooksRepo;
  /** This dispatcher's Agent in the sender thread, and its settings there. */
  private readonly send: { owner: number; connections: number; timeoutMs: number };
  private readonly logger: Logger;
  private readonly lanes: Destinations;
  private readonly results: AttemptResults;
  /** The flights on the wire by their job in the sender thread. */
  private readonly jobs = new Map<number, Flight>();
  /** Written outside a group-commit batch (tests, tools): placed by the next run, as a claim would find them. */
  private unplaced: PreparedDelivery[] = [];
  private unplacedAt = 0;
  private stopped = false;

  constructor(deps: DispatcherDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.outbox = deps.outbox;
    this.poke = deps.poke;
    this.repo = new WebhooksRepo(deps.db);
    this.logger = deps.logger ?? pino({ level: "silent" });
    this.lanes = new Destinations(Math.max(1, deps.concurrency ?? 64));
    this.send = { owner: ++owners, connections: this.lanes.concurrency, timeoutMs: deps.timeoutMs ?? 10_000 };
    this.results = new AttemptResults({
      db: deps.db,
      clock: deps.clock,
      logger: this.logger,
      repo: this.repo,
      lanes: this.lanes,
      outbox: deps.outbox,
      stopped: () => this.stopped,
      poke: () => this.poke(),
      start: (flights) => this.start(flights),
    });
  }

  /** Requests on the wire now (tests, shutdown). */
  get inFlight(): number {
    return this.lanes.flights.size;
  }

  /** Requests on the wire or rows parked for room: a sandbox is not closed under them. */
  get busy(): boolean {
    return this.lanes.flights.size > 0 || this.lanes.parkedCount > 0 || this.unplaced.length > 0;
  }

  /**
   * DueWork: the earliest due time of a delivery that run() would send now: a parked row whose
   * destination has room, else the due index (parked rows and rows blocked behind their orderKey have none).
   */
  nextDueAt(): number | undefined {
    if (this.stopped) return undefined;
    let next = this.repo.nextDueAt();
    if (this.lanes.ready.size > 0) next = next === undefined ? this.lanes.parkedAt : Math.min(next, this.lanes.parkedAt);
    if (this.unplaced.length > 0) next = next === undefined ? this.unplacedAt : Math.min(next, this.unplacedAt);
    return next;
  }

  /**
   * DueWork: starts every delivery due at `now` that its destination has room for and parks the
   * rest; does not wait for the requests (their results are recorded as they arrive, results.ts).
   * Rows are marked in flight in one committed transaction before they are sent.
   */
  run(now: number, deadline?: number): { deliveries: number } {
    if (this.stopped) return { deliveries: 0 };
    const at = this.clock.nowMs();
    const starts: Flight[] = [];
    const unplaced = this.unplaced;
    this.unplaced = [];
    try {
      // a running clock (time scale) may have moved past `now`: what is due by then is due too
      inTransaction(this.db, () => {
        this.place(unplaced, at, starts);
        claimDue(this.repo, this.lanes, Math.max(now, at), at, starts, deadline);
      });
    } catch (err) {
      this.lanes.unclaim(starts);
      throw err;
    }
    // what goes on the wire is a committed payment, and a claimed attempt number is never sent twice
    commitNow(this.db.$client);
    this.start(starts);
    return { deliveries: starts.length };
  }

  /**
   * Just before a COMMIT of its database (the composition root registers the dispatcher with the
   * database's commits, src/db/commit.ts `onCommit`): what the batch wrote for the sender goes in
   * flight where its destination has room (one UPDATE for the batch, which also drops what was
   * rolled back with its request) and is sent once the COMMIT is done; the rest waits parked, in
   * memory, behind its destination's others. Rows written another way (chaos) or left waiting with
   * room are claimed.
   */
  beforeCommit(grouped: boolean): ((committed: boolean) => void) | undefined {
    const written = this.outbox.written();
    if (written.deliveries.length === 0 && !written.claim) return undefined;
    // stopped: they stay waiting in the file, where the next start (or this stop's own reschedule) finds them
    if (this.stopped) return undefined;
    if (!grouped) {
      // a plain transaction (tests, tools): the next run places them, as it would claim a due row
      if (this.unplaced.length === 0) this.unplacedAt = this.clock.nowMs();
      for (const d of written.deliveries) this.unplaced.push(d);
      return () => this.poke();
    }
    const at = this.clock.nowMs();
    const starts: Flight[] = [];
    let more = false;
    try {
      this.place(written.deliveries, at, starts);
      if (written.claim || this.lanes.ready.size > 0) {
        // several statements: a savepoint, so a failure leaves none of them
        more = inTransaction(this.db, () => claimDue(this.repo, this.lanes, at, at, starts, performance.now() + ON_PATH_MS));
      }
    } catch (err) {
      this.lanes.unclaim(starts);
      this.logger.error({ err }, "placing webhooks at commit failed; a run will");
      this.poke();
      return undefined;
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

  /** Places deliveries written for the sender: in flight where there is room (into `starts`), else parked. */
  private place(deliveries: readonly PreparedDelivery[], at: number, starts: Flight[]): void {
    if (deliveries.length === 0) return;
    const go: string[] = [];
    const wait: PreparedDelivery[] = [];
    const planned = new Map<string, number>();
    for (const d of deliveries) {
      const key = destinationOf(d.url);
      const dest = this.lanes.get(key);
      const taken = planned.get(key) ?? 0;
      // parked rows were due first: a new one goes behind them
      if ((dest === undefined || dest.queue.length === 0) && (dest?.active ?? 0) + taken < this.lanes.concurrency) {
        planned.set(key, taken + 1);
        go.push(d.id);
      } else wait.push(d);
    }
    const byId = new Map<string, PreparedDelivery>();
    for (const d of deliveries) byId.set(d.id, d);
    for (const { seq, id } of this.repo.flyWritten(go, at)) {
      const d = byId.get(id) as PreparedDelivery;
      const key = destinationOf(d.url);
      const row = { seq, id, orderKey: d.orderKey, url: d.url, headers: d.headers, body: d.body, attemptCount: 0 };
      starts.push(this.lanes.fly(row, key, this.lanes.of(key), at));
    }
    if (wait.length === 0) return;
    // parked by seq: one the outbox wrote itself says its own (a claim of it checks the row is still
    // that delivery), the others' are read in one statement
    const unknown = wait.filter((d) => d.seq === undefined).map((d) => d.id);
    const seqs = new Map<string, number>();
    if (unknown.length > 0) for (const { seq, id } of this.repo.seqsOf(unknown)) seqs.set(id, seq);
    for (const d of wait) {
      const seq = d.seq ?? seqs.get(d.id);
      if (seq === undefined) continue; // rolled back with its request
      const key = destinationOf(d.url);
      this.lanes.park(this.lanes.of(key), seq, d.id, at, key);
    }
  }

  /** Sends committed claims (one message to the sender thread); answers come back to `answered`. */
  private start(flights: Flight[]): void {
    if (flights.length === 0) return;
    // filled by push, not made at its length: a holey array is cloned as a sparse one (its keys listed),
    // ~20% more CPU a job on this thread and more on the sender's (docs/performance.md)
    const jobs: Jobs = [];
    for (const f of flights) {
      f.job = nextJob();
      this.jobs.set(f.job, f);
      const { url, authorization } = splitUserinfo(f.row.url);
      jobs.push(f.job, url, f.row.headers, f.row.body, f.n, authorization);
    }
    sendJobs(this.send, jobs, this);
  }

  /** The sender thread's answer to a job (its outcome, or a timeout, or the thread's loss). */
  answered(job: number, ok: boolean, httpStatus: number | null, error: string | null, durationMs: number): void {
    const f = this.jobs.get(job);
    if (!f) return;
    this.jobs.delete(job);
    this.results.arrived({
      row: f.row,
      dest: f.dest,
      n: f.n,
      at: f.at,
      endedAt: Math.max(f.at, this.clock.nowMs()),
      ok,
      httpStatus,
      error,
      durationMs,
    });
  }

  /**
   * DueWork: while requests are on the wire, a promise that settles once some of their results
   * are recorded (rejects if recording failed); undefined when nothing is in flight.
   */
  pending(): Promise<void> | undefined {
    // what the run itself wrote (a charge's webhook) goes in flight at its batch's COMMIT, which
    // group commit holds to the end of the turn: committed now, it is waited for like the others,
    // so a settling advance answers only once it has its answer (docs/control-plane.md#time-travel)
    if (this.outbox.hasWritten && !this.stopped) commitNow(this.db.$client);
    return this.results.pending();
  }

  /** The journal's read barrier (docs/webhooks.md): every answer read by now is recorded when this resolves. */
  settled(): Promise<void> {
    return this.results.settled();
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
    const deadline = performance.now() + this.send.timeoutMs + 100;
    const dueBy = this.clock.nowMs();
    while (!this.stopped && this.db.$client.open) {
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
    // a deleted sandbox's database goes next: with nothing on the wire there is nothing to record
    if (flights.length > 0 || !opts.deleted) recordInterrupted(this.db, this.repo, this.results, flights, this.clock.nowMs());
    for (const f of flights) {
      this.lanes.flights.delete(f.row.seq); // recorded: its aborted request's answer is dropped
      this.jobs.delete(f.job);
      if (f.job !== 0) abortJob(f.job, INTERRUPTED_ERROR);
    }
    return flights.length;
  }

  /** Forgets parked rows (reset dropped them). */
  clear(): void {
    this.lanes.clearParked();
    this.unplaced = [];
    this.outbox.clear();
  }

  /** Closes the keep-alive connections (tests, shutdown). */
  async close(): Promise<void> {
    await closeOwner(this.send.owner);
  }

  /** DueWork: deliveries started by the recording of results (claimed with the results that made them due) since the last call. */
  took(): { deliveries: number } | undefined {
    return this.results.took();
  }
}
