/**
 * A sandbox's live events (docs/events.md): what the stream `GET /_sandbox/events` sends, written as
 * rows of the `events` table in the same transaction as the change that causes them (a status
 * change, a webhook attempt's result, a clock move, a scenario load, a reset), and read back from
 * there by each listener, so a listener that reconnects, or one that comes back after a restart,
 * resumes exactly after the last id it saw: nothing is sent that was not committed, nothing
 * committed is skipped.
 *
 * Many listeners cost the request path nothing measurable: a write is one INSERT into a table with
 * no secondary index; after each commit that wrote events, one in-memory notifier wakes the
 * listeners that are caught up, and each reads what is new in batches, only once its client has
 * taken the previous batch (backpressure: a listener that never reads holds one batch, never more).
 *
 * Commit tracking: listeners read only ids up to `high`, the newest id known committed. With group
 * commit (src/db/commit.ts) a batch stays open across a turn and the one connection sees its
 * uncommitted rows, so `high` moves only in an atCommit hook (the batch's newest id, read just
 * before its COMMIT, kept once the COMMIT succeeded); without it every transaction is synchronous and
 * has ended by the next microtask, where the newest id is committed.
 *
 * Retention: the newest `keep` events are kept; older ones are deleted in the background, a chunk
 * per turn of the event loop, once the log is over `keep` by a small slack. A listener that the
 * retention passed (it was behind the oldest kept) is ended, and its reconnect is answered 410.
 *
 * LIMITATIONS:
 * - filters are applied as rows are read (no index on transactionId or merchant): a filtered
 *   listener that resumes far back reads every event since, in batches.
 */
import { type Db, inTransaction } from "../db/client.js";
import { atCommit } from "../db/commit.js";
import { toIso } from "../platform/clock.js";
import { EventsRepo, type StoredEvent } from "./events.repo.js";

export type { StoredEvent };

export const EVENT_TYPES = ["transaction", "webhook", "clock", "scenario", "reset"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The default retention (SANDBOX_EVENTS_KEEP). */
export const DEFAULT_KEEP = 100_000;
/** A comment is sent on an idle stream this often (real ms; docs/events.md: 15 s). */
export const KEEP_ALIVE_MS = 15_000;
/** Rows a listener reads at once. */
const BATCH = 256;
/**
 * Listeners are woken at most this often (real ms): at once after a quiet spell, and under load once
 * per this many ms for all the commits in between, so a listener's cost (a read, a write) is paid per
 * batch of commits rather than per commit, for at most this much more latency.
 */
const WAKE_EVERY_MS = 10;
/** Recent rows kept for the listeners near the head of the log. */
const WINDOW = 2_048;
/** Rows one retention step deletes. */
const PRUNE_CHUNK = 2_000;

/** A status change (or the creation) of a transaction of any kind. */
export interface TransactionChange {
  id: string;
  kind: string;
  status: string;
  declineCode: number | null;
  /** Virtual ms of the change. */
  updatedAt: number;
}

/** One webhook attempt's result, as the dispatcher records it. */
export interface AttemptResult {
  /** The delivery's row (its transaction, chaos and merchant are read from there). */
  seq: number;
  deliveryId: string;
  /** Where it was sent, userinfo masked. */
  url: string;
  attempt: number;
  /** Virtual ms the attempt started. */
  at: number;
  httpStatus: number | null;
  error: string | null;
}

export interface EventFilter {
  types?: ReadonlySet<string> | undefined;
  transactionId?: string | undefined;
  /** A merchant's mid. */
  merchant?: string | undefined;
}

/** Where a new listener starts: after an id, or why it cannot. */
export type Start = { after: number } | { gone: number } | { ahead: number };

export interface EventLogOptions {
  db: Db;
  /** Events kept (the newest); default 100,000. */
  keep?: number;
  /** Real ms between keep-alives of an idle stream; default 15 s. */
  keepAliveMs?: number;
}

export class EventLog {
  private readonly repo: EventsRepo;
  private readonly keep: number;
  private readonly slack: number;
  readonly keepAliveMs: number;
  /** The newest id known committed: what listeners may read up to. */
  private high: number;
  /** Every id up to this one is gone (retention): a listener behind it cannot resume. */
  private floor: number;
  private hooked = false;
  private pruning = false;
  private closed = false;
  private readonly waiters = new Set<() => void>();
  private followers = 0;
  private lastWake = Number.NEGATIVE_INFINITY;
  private wakeTimer: NodeJS.Timeout | undefined;
  /**
   * The newest rows read, exactly the events with ids in (winFrom, winTo]: listeners near the head of
   * the log read them from here, the same row objects for all (so each is framed once, see
   * src/events/events.handlers.ts), and only a listener further behind queries the database.
   */
  private window: StoredEvent[] = [];
  private winFrom = 0;
  private winTo = 0;

  constructor(private readonly opts: EventLogOptions) {
    this.repo = new EventsRepo(opts.db);
    this.keep = Math.max(1, opts.keep ?? DEFAULT_KEEP);
    this.slack = Math.min(1_000, Math.ceil(this.keep / 100));
    this.keepAliveMs = opts.keepAliveMs ?? KEEP_ALIVE_MS;
    // only this log writes events, and it has written none yet: what the file holds is committed
    this.high = this.repo.newest();
    const oldest = this.repo.oldest();
    this.floor = oldest === undefined ? this.high : oldest - 1;
    this.schedulePrune();
  }

  /** Listeners attached now (a sandbox is not closed under them). */
  get listening(): number {
    return this.followers;
  }

  /** The newest committed event id (0 when none). */
  get newest(): number {
    return this.high;
  }

  // --- writes: each inside the transaction of the change it reports ---

  /** A transaction's status changed, or it was created (its first status). */
  transaction(t: TransactionChange, mid: string): void {
    const data = {
      transactionId: t.id,
      kind: t.kind,
      merchant: mid,
      status: t.status,
      declineCode: t.declineCode,
      at: toIso(t.updatedAt),
    };
    this.append({ type: "transaction", transactionId: t.id, merchant: mid, data: JSON.stringify(data) });
  }

  /** A webhook attempt ended (delivered, failed, or interrupted by a stop). */
  webhook(a: AttemptResult): void {
    const facts = this.repo.deliveryFacts(a.seq);
    const transactionId = facts?.transactionId ?? null;
    const data: Record<string, unknown> = { deliveryId: a.deliveryId, transactionId, url: a.url, attempt: a.attempt };
    if (a.httpStatus !== null) data.httpStatus = a.httpStatus;
    else data.error = a.error ?? "no answer";
    if (facts?.chaos) data.chaos = facts.chaos;
    data.at = toIso(a.at);
    this.append({ type: "webhook", transactionId, merchant: facts?.mid ?? null, data: JSON.stringify(data) });
  }

  /** The virtual clock moved (an advance, a reset), from `fromMs` to `nowMs`. */
  clock(fromMs: number, nowMs: number): void {
    this.append({
      type: "clock",
      transactionId: null,
      merchant: null,
      data: JSON.stringify({ now: toIso(nowMs), from: toIso(fromMs) }),
    });
  }

  /** A scenario was loaded (at start, by POST /_sandbox/scenarios, by a reset). */
  scenario(name: string): void {
    this.append({ type: "scenario", transactionId: null, merchant: null, data: JSON.stringify({ name }) });
  }

  /** The sandbox was reset. */
  reset(): void {
    this.append({ type: "reset", transactionId: null, merchant: null, data: "{}" });
  }

  // --- reads ---

  /**
   * Where a listener that saw `since` starts (undefined: after the newest, only what comes next).
   * `gone` (410) when the retention dropped events after it; `ahead` (400) when no such id was
   * ever written here (another database's id).
   */
  start(since: number | undefined): Start {
    if (since === undefined) return { after: this.high };
    if (since > this.high) return { ahead: this.high };
    const oldest = this.repo.oldest() ?? this.high + 1;
    if (since < oldest - 1 || since < this.floor) return { gone: Math.max(oldest, this.floor + 1) };
    return { after: since };
  }

  /**
   * The events after `after` that pass `filter`, a batch at a time, oldest first, for as long as the
   * caller keeps asking (it asks again once it has written the batch: backpressure). An empty batch
   * means nothing was sent for `keepAliveMs` (time for a keep-alive). Ends when `signal` aborts,
   * when the log closes (its sandbox closes) or when the retention has passed the listener.
   */
  async *follow(after: number, filter: EventFilter, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    let cursor = after;
    let lastSent = performance.now();
    let lastRead = Number.NEGATIVE_INFINITY;
    this.followers++;
    try {
      while (!signal.aborted && !this.closed) {
        if (cursor < this.floor) return;
        if (cursor < this.high) {
          if (!this.opts.db.$client.open) return;
          // under load, one read (and one write) per WAKE_EVERY_MS for what came meanwhile, unless a
          // whole batch is waiting (a listener catching up reads on at once)
          const gap = lastRead + WAKE_EVERY_MS - performance.now();
          if (gap > 0 && this.high - cursor < BATCH) {
            await this.changed(gap, signal);
            continue;
          }
          lastRead = performance.now();
          const rows = this.read(cursor);
          if (rows.length === 0) {
            cursor = this.high; // pruned underneath (cannot pass the floor check above) or rolled back
            continue;
          }
          cursor = (rows[rows.length - 1] as StoredEvent).id;
          const out = passing(rows, filter);
          if (out.length > 0) {
            lastSent = performance.now();
            yield out;
            continue;
          }
          // nothing for this listener in a whole batch: let the rest of the server run before the next
          await new Promise((resolve) => setImmediate(resolve));
        } else {
          const idle = this.keepAliveMs - (performance.now() - lastSent);
          if (idle > 0) await this.changed(idle, signal);
        }
        if (performance.now() - lastSent >= this.keepAliveMs) {
          lastSent = performance.now();
          yield [];
        }
      }
    } finally {
      this.followers--;
    }
  }

  /** The rows after `cursor` up to the newest committed, one batch. */
  private read(cursor: number): StoredEvent[] {
    if (cursor >= this.winFrom && cursor < this.winTo) {
      // ids grow along the window: the first row after the cursor by binary search
      let lo = 0;
      let hi = this.window.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((this.window[mid] as StoredEvent).id <= cursor) lo = mid + 1;
        else hi = mid;
      }
      return this.window.slice(lo, lo + BATCH);
    }
    const rows = this.repo.after(cursor, this.high, BATCH);
    // what this read covers: up to its last row when it was cut at BATCH, else up to the newest
    const to = rows.length === BATCH ? (rows[rows.length - 1] as StoredEvent).id : this.high;
    if (cursor === this.winTo && this.window.length > 0) {
      for (const r of rows) this.window.push(r);
      this.winTo = to;
      if (this.window.length > WINDOW) {
        const dropped = this.window.splice(0, this.window.length - WINDOW);
        this.winFrom = (dropped[dropped.length - 1] as StoredEvent).id;
      }
    } else if (cursor >= this.winTo || this.window.length === 0) {
      // the head moved past the window (or there is none yet): start it again here
      this.window = [...rows];
      this.winFrom = cursor;
      this.winTo = to;
    }
    return rows;
  }

  /** Ends every listener (its sandbox is closing); nothing is written after. */
  close(): void {
    this.closed = true;
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.wakeAll();
  }

  /** Runs the retention now, to the end (tests; the server does it in the background). */
  pruneNow(): void {
    while (this.pruneStep()) {}
  }

  // --- internals ---

  private append(row: Omit<StoredEvent, "id">): void {
    this.repo.insert(row);
    if (this.hooked) return;
    const sqlite = this.opts.db.$client;
    // group commit: the batch's newest id once its COMMIT is done
    const hooked = atCommit(
      sqlite,
      this,
      () => {
        const newest = this.repo.newest();
        return (committed) => {
          this.hooked = false;
          if (committed) this.committed(newest);
        };
      },
      () => {
        this.hooked = false;
      },
    );
    this.hooked = true;
    // a plain transaction: synchronous, so it has committed (or rolled back) by the next microtask
    if (!hooked) queueMicrotask(() => this.settled());
  }

  private settled(): void {
    this.hooked = false;
    const sqlite = this.opts.db.$client;
    if (!sqlite.open) return;
    if (sqlite.inTransaction) {
      // cannot happen outside group commit; wait for that transaction to end
      this.hooked = true;
      setImmediate(() => this.settled());
      return;
    }
    this.committed(this.repo.newest());
  }

  private committed(newest: number): void {
    if (newest <= this.high) return;
    this.high = newest;
    this.wakeSoon();
    this.schedulePrune();
  }

  private wakeSoon(): void {
    if (this.waiters.size === 0 || this.wakeTimer !== undefined) return;
    const wait = this.lastWake + WAKE_EVERY_MS - performance.now();
    if (wait <= 0) {
      this.lastWake = performance.now();
      this.wakeAll();
      return;
    }
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.lastWake = performance.now();
      this.wakeAll();
    }, wait);
  }

  private wakeAll(): void {
    if (this.waiters.size === 0) return;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }

  /** Settles on the next commit of events, after `ms`, on abort, or on close. */
  private changed(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      this.waiters.add(done);
    });
  }

  private schedulePrune(): void {
    if (this.pruning || this.closed || this.high - this.floor <= this.keep + this.slack) return;
    this.pruning = true;
    const step = () => {
      let more = false;
      try {
        more = this.pruneStep();
      } catch {
        // a busy or closed file: the next commit tries again
      }
      if (more && !this.closed) setImmediate(step);
      else this.pruning = false;
    };
    setImmediate(step);
  }

  /** Deletes one chunk of what is beyond the retention; true when more is left. */
  private pruneStep(): boolean {
    if (this.closed || !this.opts.db.$client.open) return false;
    const target = this.high - this.keep;
    if (target <= this.floor) return false;
    const upTo = Math.min(target, this.floor + PRUNE_CHUNK);
    const from = this.floor;
    inTransaction(this.opts.db, () => this.repo.prune(from, upTo));
    this.floor = upTo;
    return upTo < target;
  }
}

function passing(rows: StoredEvent[], f: EventFilter): StoredEvent[] {
  if (f.types === undefined && f.transactionId === undefined && f.merchant === undefined) return rows;
  return rows.filter(
    (r) =>
      (f.types === undefined || f.types.has(r.type)) &&
      (f.transactionId === undefined || r.transactionId === f.transactionId) &&
      (f.merchant === undefined || r.merchant === f.merchant),
  );
}
