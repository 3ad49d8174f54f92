/**
 * The webhook dispatcher (docs/webhooks.md): a DueWork that POSTs the due rows of the outbox
 * (through undici in the sender thread, sender.ts: the decisions and writes stay here), retries on the live gateway's schedule, keeps one orderKey's deliveries in order,
 * and survives a crash without losing a delivery or repeating an attempt number. The journal and
 * replay are journal.ts.
 *
 * One receiver cannot hold up another (docs/webhooks.md#one-receiver-cannot-hold-up-another): `run()` starts requests and returns without
 * waiting for them; each result is recorded as it arrives (the results of one I/O turn in one
 * transaction) and pokes the runner, so newly due work is picked up while earlier requests are in
 * flight. Each destination (scheme://userinfo@host:port) has at most `concurrency` requests (and
 * sockets) at once; due rows beyond that wait in memory, parked off the due index, in due order.
 * A settling run (`runUntil`, clock advance) waits through `pending()` before it moves the clock on.
 *
 * LIMITATIONS:
 * - "within 10 s" is real time, not virtual: a timer aborts the request.
 * - Redirects are not followed: a 3xx is a failed attempt, as any non-2xx.
 */
import { performance } from "node:perf_hooks";
import pino from "pino";
import { writesPaused } from "../db/checkpointer.js";
import { type Db, inTransaction } from "../db/client.js";
import { atCommit, batchOpen, commitNow, rollbacks } from "../db/commit.js";
import type { Logger } from "../logger.js";
import { type Clock, toIso } from "../platform/clock.js";
import type { DueWork } from "../scheduler/due-work.js";
import { maskUrl } from "./journal.js";
import { abortJob, closeOwner, type SendJob, type SendResult, sendJobs, syncSender } from "./sender.js";
import { type DeliveryStatus, type DueRow, WebhooksRepo } from "./webhooks.repo.js";

/** Dispatchers made so far (each one's Agent in the sender thread) and attempts sent so far (job ids). */
let owners = 0;
let jobs = 0;

/** Minutes between a failed attempt n (1-based) and attempt n+1 (docs/webhooks.md: 2, 4, 8, 16, 32). */
export const RETRY_DELAYS_MIN = [2, 4, 8, 16, 32] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MIN.length + 1;
export const INTERRUPTED_ERROR = "interrupted: sandbox stopped during the attempt";
/** An attempt cut off by its sandbox's deletion: nothing is left to retry it, so it is the last. */
export const DELETED_ERROR = "interrupted: sandbox deleted during the attempt";
const MINUTE = 60_000;
/**
 * Due rows taken off the due index per claim at most (the runner calls run() again while more are
 * due), read CLAIM_CHUNK at a time: a claim stops after the chunk that passes its deadline (issue
 * 19: a claim of 1,000 rows held the event loop for 20–45 ms during a long advance).
 */
const CLAIM_BATCH = 1_000;
const CLAIM_CHUNK = 100;
/**
 * Real ms a claim inside a request's group commit (wake → claimAtCommit) may take, and a flush of
 * results before it leaves the rest to the next turn: both run on the request path.
 */
const ON_PATH_MS = 4;

export interface DispatcherOptions {
  /** A delivery succeeds on a 2xx within this many real ms (docs/webhooks.md#retries: 10 s; tests shorten it). */
  timeoutMs?: number;
  /** Requests (and sockets) in flight at once to one destination (different orderKeys only). */
  concurrency?: number;
  /** Failed attempts are logged at warn. */
  logger?: Logger;
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

/** One attempt's result, as recorded (the live events, docs/events.md); `url` with its userinfo masked. */
export interface AttemptRecord {
  seq: number;
  deliveryId: string;
  url: string;
  attempt: number;
  at: number;
  httpStatus: number | null;
  error: string | null;
}

interface Flight {
  row: DueRow;
  n: number;
  at: number;
  dest: string;
  /** Ends the attempt now with `reason` and drops the request (timeout, shutdown); once sent. */
  abort: (reason: Error) => void;
}

interface ParkedRow {
  seq: number;
  id: string;
}

/**
 * One destination's parked rows, oldest due first: a FIFO whose take is O(1). It was an array
 * taken from with shift(), which copies the whole rest of a large array every time: with 200,000
 * callbacks parked behind one receiver, claims spent 11 s of a 45 s advance in shift(), up to
 * ~64 ms a claim at 1,000,000 (docs/performance.md). Taken slots are dropped once they are half the array.
 */
class ParkedQueue {
  private items: Array<ParkedRow | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(row: ParkedRow): void {
    this.items.push(row);
  }

  shift(): ParkedRow | undefined {
    if (this.head >= this.items.length) return undefined;
    const row = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return row;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

interface Destination {
  active: number;
  /** Parked rows (seq, id), oldest due first. */
  queue: ParkedQueue;
}

/** When attempt `n` (1-based) failed at `failedAt`: the next attempt's time, or null when it was the last. */
export function nextAttemptAfter(n: number, failedAt: number): number | null {
  const delay = RETRY_DELAYS_MIN[n - 1];
  return delay === undefined ? null : failedAt + delay * MINUTE;
}

/** The destination a per-destination limit counts against: `scheme://[userinfo@]host[:port]`. */
export function destinationOf(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? url;
}

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

export class WebhookDispatcher implements DueWork {
  readonly name = "deliveries";
  private readonly repo: WebhooksRepo;
  /** This dispatcher's Agent in the sender thread (src/webhooks/sender.ts). */
  private readonly owner = ++owners;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly logger: Logger;
  private readonly flights = new Map<number, Flight>();
  private readonly dests = new Map<string, Destination>();
  /** Destinations with parked rows and room for another request. */
  private readonly ready = new Set<string>();
  private parkedCount = 0;
  /** When the oldest parked row became due to us (what nextDueAt reports while one can go). */
  private parkedAt = 0;
  private done: Outcome[] = [];
  private flushScheduled = false;
  /** Deliveries flush() started since took() was last asked. */
  private took_ = 0;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private stopped = false;
  /** Its sandbox is being deleted: an attempt that fails now is the last (nothing would retry it). */
  private deleting = false;
  /** Deliveries the outbox handed over in the open batch (take), sent once it commits. */
  private taken: Flight[] = [];
  /** `rollbacks()` when the open batch's first delivery was taken. */
  private takenRollbacks = 0;
  private readonly takenKey = {};
  private readonly attemptListeners: Array<(a: AttemptRecord) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly poke: () => void,
    opts: DispatcherOptions = {},
  ) {
    this.repo = new WebhooksRepo(db);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.concurrency = Math.max(1, opts.concurrency ?? 64);
    this.logger = opts.logger ?? pino({ level: "silent" });
  }

  /** Runs inside the transaction that records each attempt's result (interrupted ones included). */
  onAttempt(listener: (a: AttemptRecord) => void): void {
    this.attemptListeners.push(listener);
  }

  /** Requests on the wire now (tests, shutdown). */
  get inFlight(): number {
    return this.flights.size;
  }

  /** Requests on the wire or rows parked for room: a sandbox is not closed under them. */
  get busy(): boolean {
    return this.flights.size > 0 || this.parkedCount > 0 || this.taken.length > 0;
  }

  /**
   * DueWork: the earliest due time of a delivery that run() would send now: a parked row whose
   * destination has room, else the due index (parked rows and rows blocked behind their orderKey have none).
   */
  nextDueAt(): number | undefined {
    if (this.stopped) return undefined;
    const dbNext = this.repo.nextDueAt();
    if (this.ready.size > 0) return dbNext === undefined ? this.parkedAt : Math.min(dbNext, this.parkedAt);
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
      inTransaction(this.db, () => this.claim(Math.max(now, at), at, starts, deadline));
    } catch (err) {
      this.unclaim(starts);
      throw err;
    }
    // what goes on the wire is a committed payment, and a claimed attempt number is never sent twice
    commitNow(this.db.$client);
    this.start(starts);
    return { deliveries: starts.length };
  }

  /**
   * The outbox's wake (every enqueue). With a group-commit batch open (the server), the claim runs
   * inside that batch just before its COMMIT (src/db/commit.ts atCommit), so a payment and the
   * claim of its webhook share one COMMIT and the webhook leaves right after it, with no run of the
   * runner; else (or if that claim fails) a run soon, as before.
   */
  wake(): void {
    if (this.stopped) return;
    if (!atCommit(this.db.$client, this, () => this.claimAtCommit())) this.poke();
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
    const dest = this.dests.get(destinationOf(url));
    if (dest !== undefined && dest.active >= this.concurrency) return "park";
    if (batchOpen(this.db.$client) && (dest === undefined || dest.queue.length === 0)) return "take";
    return undefined;
  }

  /**
   * A delivery the outbox wrote parked ("park"): queued behind its destination's parked rows.
   * If its write is rolled back, the claim that reaches it finds the row gone (or another id at
   * that seq) and skips it, as for a row reset or settled meanwhile.
   */
  park(seq: number, id: string, url: string, at: number): void {
    this.queueParked(this.dest(destinationOf(url)), seq, id, at);
  }

  /** A parked row waits in memory behind its destination's others. */
  private queueParked(dest: Destination, seq: number, id: string, at: number): void {
    if (this.parkedCount === 0) this.parkedAt = at;
    this.parkedCount++;
    dest.queue.push({ seq, id });
  }

  /** A delivery the outbox wrote in flight ("take"): counted against its destination now, sent after the COMMIT. */
  take(row: DueRow, at: number): void {
    const key = destinationOf(row.url);
    // a request rolled back earlier in this batch may have freed this seq: forget what it took
    const stale = this.flights.get(row.seq);
    if (stale) this.unclaim([stale]);
    const dest = this.dest(key);
    dest.active++;
    const f: Flight = { row, n: row.attemptCount + 1, at, dest: key, abort: () => undefined };
    this.flights.set(row.seq, f);
    if (this.taken.length === 0) this.takenRollbacks = rollbacks(this.db.$client);
    this.taken.push(f);
    atCommit(
      this.db.$client,
      this.takenKey,
      () => this.sendTaken(),
      () => this.unclaim(this.untake()), // SQLite rolled the batch back: the rows are gone
    );
  }

  /** The flights taken in the open batch that are still this dispatcher's (not interrupted or replaced). */
  private untake(): Flight[] {
    const flights = this.taken;
    this.taken = [];
    return flights.filter((f) => this.flights.get(f.row.seq) === f);
  }

  /** Just before the batch's COMMIT: what was taken and is still there (a rolled-back request took its row with it). */
  private sendTaken(): (committed: boolean) => void {
    const rolledBack = rollbacks(this.db.$client) !== this.takenRollbacks;
    const flights = this.untake();
    let kept = flights;
    // no savepoint of the batch was undone since the first take: every taken row is still there
    if (rolledBack) {
      try {
        const still = this.repo.stillInFlight(flights.map((f) => f.row));
        kept = flights.filter((f) => still.has(f.row.seq));
        this.unclaim(flights.filter((f) => !kept.includes(f)));
      } catch (err) {
        // cannot happen short of a broken file (whose COMMIT then fails too); rather send them all
        // than leave rows in flight that nobody sends
        this.logger.error({ err }, "checking the webhooks taken in a batch failed; sending them all");
      }
    }
    return (committed) => {
      if (committed) this.start(kept);
      else this.unclaim(kept);
    };
  }

  private claimAtCommit(): (committed: boolean) => void {
    const at = this.clock.nowMs();
    const starts: Flight[] = [];
    let more = false;
    try {
      more = this.claim(at, at, starts, performance.now() + ON_PATH_MS);
    } catch (err) {
      this.unclaim(starts);
      this.logger.error({ err }, "claiming webhooks at commit failed; a run will");
      this.poke();
      throw err; // undoes the claim's savepoint
    }
    return (committed) => {
      if (!committed) {
        this.unclaim(starts);
        this.poke();
        return;
      }
      this.start(starts);
      if (more) this.poke(); // a full claim: more may be due
    };
  }

  /**
   * Inside a transaction: claims parked rows that now have room, then rows due by `dueBy` (parking
   * those whose destination is full), into `out`, a chunk at a time until CLAIM_BATCH rows or the
   * first chunk that ends past `deadline` (a `performance.now()` instant). True when it stopped
   * with a full chunk (more may be due).
   */
  private claim(dueBy: number, at: number, out: Flight[], deadline = Number.POSITIVE_INFINITY): boolean {
    // parked rows were due first: they go before anything newly due; read and marked in flight
    // as many at a time as their destination has room for
    const claimed: number[] = [];
    for (const key of [...this.ready]) {
      const dest = this.dests.get(key);
      if (!dest) continue;
      while (dest.active < this.concurrency && dest.queue.length > 0) {
        const want: ParkedRow[] = [];
        while (want.length < this.concurrency - dest.active && dest.queue.length > 0) {
          want.push(dest.queue.shift() as ParkedRow);
          this.parkedCount--;
        }
        const rows = new Map<number, DueRow>();
        for (const row of this.repo.parkedRows(want.map((p) => p.seq))) rows.set(row.seq, row);
        for (const p of want) {
          const row = rows.get(p.seq);
          if (!row || row.id !== p.id) continue; // reset or settled meanwhile
          out.push(this.claimRow(row, key, dest, at));
          claimed.push(row.seq);
        }
      }
      this.ready.delete(key);
    }
    this.repo.markInFlightRows(claimed, at);
    for (let taken = 0; taken < CLAIM_BATCH; ) {
      // each chunk's rows leave the due index (in flight or parked), so the next read continues after them
      const rows = this.repo.dueRows(dueBy, Math.min(CLAIM_CHUNK, CLAIM_BATCH - taken));
      const inFlight: number[] = [];
      const parked: number[] = [];
      for (const row of rows) {
        const key = destinationOf(row.url);
        const dest = this.dest(key);
        if (dest.active < this.concurrency) {
          out.push(this.claimRow(row, key, dest, at));
          inFlight.push(row.seq);
        } else {
          parked.push(row.seq);
          this.queueParked(dest, row.seq, row.id, at);
        }
      }
      this.repo.markInFlightRows(inFlight, at);
      this.repo.parkRows(parked);
      taken += rows.length;
      if (rows.length < CLAIM_CHUNK) return false;
      if (performance.now() > deadline) return true;
    }
    return true;
  }

  /** Claims whose writes were rolled back: forgotten (their rows are still due, or parked, in the database). */
  private unclaim(flights: Flight[]): void {
    for (const f of flights) this.leave(f.row.seq, f.dest);
  }

  /** Sends committed claims (one message to the sender thread); results are recorded as they come. */
  private start(flights: Flight[]): void {
    if (flights.length === 0) return;
    const record = (o: Outcome) => {
      this.done.push(o);
      this.scheduleFlush();
    };
    sendJobs(
      { owner: this.owner, connections: this.concurrency, timeoutMs: this.timeoutMs },
      flights.map((f) => this.job(f, record)),
    );
  }

  /**
   * DueWork: while requests are on the wire, a promise that settles once some of their results
   * are recorded (rejects if recording failed); undefined when nothing is in flight.
   */
  pending(): Promise<void> | undefined {
    if (this.flights.size === 0 && this.done.length === 0) return undefined;
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * The journal's read barrier (docs/webhooks.md): every answer the sender thread has read by now
   * is recorded when this resolves, so a client whose receiver just answered never reads its
   * delivery as pending. At once when nothing is on the wire or waiting to be recorded.
   */
  async settled(): Promise<void> {
    if (this.flights.size > 0) await syncSender();
    if (this.done.length === 0 || !this.db.$client.open) return;
    const paused = writesPaused(this.db.$client);
    if (paused) await paused;
    if (this.done.length > 0) this.flush();
  }

  /**
   * Startup (docs/webhooks.md: durable deliveries): attempts a crash left in flight are recorded as
   * interrupted and rescheduled like failed ones, so none is lost and no attempt number repeats;
   * a pending head that lost its due time (a parked row, say) gets one. Returns the number of
   * interrupted attempts.
   */
  recover(): number {
    return inTransaction(this.db, () => {
      const now = this.clock.nowMs();
      const rows = this.repo.inFlightRows();
      for (const row of rows) {
        const at = row.inFlightSince ?? now;
        this.record(this.interrupted({ ...row, headers: JSON.stringify(row.headers) }, row.attemptCount, at, now));
      }
      for (const row of this.repo.orphanHeads()) this.repo.setNextAttempt(row.seq, now);
      return rows.length;
    });
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
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
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
    this.deleting = true;
    // a little over the timeout: an attempt started now ends by its own timer first, as a timeout
    const deadline = performance.now() + this.timeoutMs + 100;
    const dueBy = this.clock.nowMs();
    while (!this.stopped && this.db.$client.open) {
      const started = this.run(dueBy).deliveries;
      const settled = this.pending();
      const left = deadline - performance.now();
      if ((!settled && started === 0) || left <= 0) break;
      if (!settled) continue;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }

  /**
   * Stops sending at once, records every attempt on the wire as interrupted and aborts its request:
   * rescheduled as after a crash, or, when its sandbox is being `deleted`, the last one (nothing
   * would retry it). Parked rows get their due time back. Returns the number of attempts interrupted.
   */
  interrupt(opts: { deleted?: boolean } = {}): number {
    this.stopped = true;
    if (opts.deleted) this.deleting = true;
    const flights = [...this.flights.values()];
    const now = this.clock.nowMs();
    inTransaction(this.db, () => {
      for (const f of flights) {
        const o = this.interrupted(f.row, f.n, f.at, now);
        this.record(this.deleting ? { ...o, error: DELETED_ERROR } : o);
      }
      for (const row of this.repo.orphanHeads()) this.repo.setNextAttempt(row.seq, now);
    });
    for (const f of flights) {
      this.flights.delete(f.row.seq); // recorded: its aborted request's result is ignored (settleRow finds it settled)
      f.abort(new Error(INTERRUPTED_ERROR));
    }
    return flights.length;
  }

  /** Forgets parked rows (reset dropped them). */
  clear(): void {
    for (const dest of this.dests.values()) dest.queue.clear();
    this.ready.clear();
    this.parkedCount = 0;
  }

  /** Closes the keep-alive connections (tests, shutdown). */
  async close(): Promise<void> {
    await closeOwner(this.owner);
  }

  private dest(key: string): Destination {
    let dest = this.dests.get(key);
    if (!dest) {
      dest = { active: 0, queue: new ParkedQueue() };
      this.dests.set(key, dest);
    }
    return dest;
  }

  /** A claimed row's flight (the caller marks it in flight in the database, a chunk at a time). */
  private claimRow(row: DueRow, key: string, dest: Destination, at: number): Flight {
    dest.active++;
    const f: Flight = {
      row,
      n: row.attemptCount + 1,
      at,
      dest: key,
      abort: () => undefined, // set when its job is made
    };
    this.flights.set(row.seq, f);
    return f;
  }

  private interrupted(row: DueRow, n: number, at: number, now: number): Outcome {
    return { row, n, at, endedAt: Math.max(now, at), ok: false, httpStatus: null, error: INTERRUPTED_ERROR, durationMs: 0 };
  }

  /**
   * One attempt as a job for the sender thread. Its outcome comes from the first of: the thread's
   * answer (a 2xx whose body fully arrived is a success, anything else a failure with its status or
   * error), the real-time timeout, or an abort (shutdown); the others are dropped.
   */
  private job(f: Flight, done: (o: Outcome) => void): { job: SendJob; done: (r: SendResult) => void } {
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
        endedAt: Math.max(at, this.clock.nowMs()),
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
    const timer = setTimeout(() => f.abort(new Error(`timeout: no complete answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    const { url, authorization } = splitUserinfo(row.url);
    return {
      job: { id, url, headers: row.headers, body: row.body, attempt: n, authorization },
      done: (r) => end(r.ok, r.httpStatus, r.error),
    };
  }

  /**
   * Results that arrived in one I/O turn are recorded in one transaction (throughput), for up to
   * ON_PATH_MS of real time: what is left waits for the next turn, so a thousand results that
   * arrive at once do not hold the requests behind them (docs/performance.md).
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    // the WAL's restart holds background writes a moment (src/db/checkpointer.ts): the results wait in memory
    const paused = writesPaused(this.db.$client);
    if (paused) {
      void paused.then(() => this.flush());
      return;
    }
    this.flushScheduled = false;
    const all = this.done;
    this.done = [];
    const waiters = this.waiters;
    this.waiters = [];
    if (!this.db.$client.open) {
      // the database closed while requests were on the wire (shutdown, a test's end): their results
      // cannot be written, as after a crash (the rows stay in flight and recover() reschedules
      // them), and nobody waits for them any more
      for (const o of all) this.flights.delete(o.row.seq);
      for (const w of waiters) w.resolve();
      return;
    }
    let batch = all;
    let released = false;
    const starts: Flight[] = [];
    let more = false;
    try {
      const deadline = performance.now() + ON_PATH_MS;
      inTransaction(this.db, () => {
        let promoted = false;
        let n = 0;
        for (const o of all) {
          if (n > 0 && performance.now() > deadline) break;
          if (this.record(o)) promoted = true;
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
        if (!this.stopped && (promoted || this.ready.size > 0)) {
          const at = this.clock.nowMs();
          more = this.claim(at, at, starts, deadline);
        }
      });
      if (this.done.length > 0) this.scheduleFlush();
    } catch (err) {
      // rolled back whole: every result taken is dropped, as if the process had died
      this.unclaim(starts);
      if (!released) this.release(all);
      this.done = [];
      if (waiters.length === 0) this.logger.error({ err }, "recording webhook attempts failed");
      for (const w of waiters) w.reject(err);
      if (!this.stopped) this.poke();
      return;
    }
    if (starts.length > 0) {
      // a claimed attempt number is never sent twice: it leaves once its claim is committed
      commitNow(this.db.$client);
      this.took_ += starts.length;
      this.start(starts);
    }
    for (const w of waiters) w.resolve();
    if (more) this.poke(); // a full claim: more may be due
  }

  /** The attempts whose results were just recorded (or dropped) leave the wire and free their destination's room. */
  private release(batch: Outcome[]): void {
    for (const o of batch) this.leave(o.row.seq, destinationOf(o.row.url));
  }

  /** An attempt leaves the wire (claimed and undone, or its result in): its destination has room again. */
  private leave(seq: number, key: string): void {
    this.flights.delete(seq);
    const dest = this.dests.get(key);
    if (!dest) return;
    dest.active = Math.max(0, dest.active - 1);
    // rows parked behind it (by a claim, or by the outbox) go with the next claim
    if (dest.queue.length > 0) this.ready.add(key);
    else if (dest.active === 0) this.dests.delete(key);
  }

  /** DueWork: deliveries started by flush() (claimed with the results that made them due) since the last call. */
  took(): { deliveries: number } | undefined {
    const n = this.took_;
    this.took_ = 0;
    return n > 0 ? { deliveries: n } : undefined;
  }

  /**
   * Writes an attempt's result (inside the caller's transaction) and moves its orderKey on when it
   * settled; true when that made another delivery due.
   */
  private record(o: Outcome): boolean {
    const next = o.ok || this.deleting ? null : nextAttemptAfter(o.n, o.endedAt);
    const status: DeliveryStatus = o.ok ? "delivered" : next === null ? "failed" : "pending";
    if (!this.repo.settleRow(o.row.seq, status, next, o.endedAt)) return false;
    this.repo.insertAttempt({
      deliveryId: o.row.id,
      n: o.n,
      at: o.at,
      httpStatus: o.httpStatus,
      error: o.error,
      durationMs: o.durationMs,
    });
    for (const l of this.attemptListeners) {
      l({
        seq: o.row.seq,
        deliveryId: o.row.id,
        url: maskUrl(o.row.url),
        attempt: o.n,
        at: o.at,
        httpStatus: o.httpStatus,
        error: o.error,
      });
    }
    if (!o.ok) {
      this.logger.warn(
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
    return status !== "pending" && this.repo.promoteNext(o.row.orderKey, o.endedAt);
  }
}
