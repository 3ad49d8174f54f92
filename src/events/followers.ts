/**
 * The listeners of the live events (docs/events.md), with backpressure: after each commit that
 * wrote events, one in-memory notifier wakes the listeners that are caught up, and each reads what
 * is new in batches, only once its client has taken the previous batch (a listener that never
 * reads holds one batch, never more). Listeners near the head of the log read from a window of the
 * newest rows, shared by all; only one further behind queries the database.
 *
 * LIMITATIONS:
 * - filters are applied as rows are read (no index on transactionId or merchant): a filtered
 *   listener that resumes far back reads every event since, in batches.
 */
import type { Db } from "../db/client.js";
import type { EventsRepo, StoredEvent } from "./events.repo.js";

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

export interface EventFilter {
  types?: ReadonlySet<string> | undefined;
  transactionId?: string | undefined;
  /** A merchant's mid. */
  merchant?: string | undefined;
}

/** What the followers read of the log's state. */
export interface LogHead {
  /** The newest id known committed: what listeners may read up to. */
  readonly high: number;
  /** Every id up to this one is gone (retention). */
  readonly floor: number;
  /** The log is closed (its sandbox closes). */
  readonly closed: boolean;
}

export interface FollowersDeps {
  db: Db;
  repo: EventsRepo;
  /** The log's state they read (its newest committed id, its retention's floor, whether it is closed). */
  head: LogHead;
  /** Real ms of silence before a listener gets a keep-alive. */
  keepAliveMs: number;
}

export class Followers {
  private readonly waiters = new Set<() => void>();
  /** Listeners attached now. */
  count = 0;
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

  private readonly db: Db;
  private readonly repo: EventsRepo;
  private readonly head: LogHead;
  private readonly keepAliveMs: number;

  constructor(deps: FollowersDeps) {
    ({ db: this.db, repo: this.repo, head: this.head, keepAliveMs: this.keepAliveMs } = deps);
  }

  /**
   * The events after `after` that pass `filter`, a batch at a time, oldest first, for as long as the
   * caller keeps asking (it asks again once it has written the batch: backpressure). An empty batch
   * means nothing was sent for `keepAliveMs` (time for a keep-alive). Ends when `signal` aborts,
   * when the log closes (its sandbox closes) or when the retention has passed the listener.
   */
  async *follow(after: number, filter: EventFilter, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    const head = this.head;
    let cursor = after;
    let lastSent = performance.now();
    let lastRead = Number.NEGATIVE_INFINITY;
    this.count++;
    try {
      while (!signal.aborted && !head.closed) {
        if (cursor < head.floor) return;
        if (cursor < head.high) {
          if (!this.db.$client.open) return;
          // under load, one read (and one write) per WAKE_EVERY_MS for what came meanwhile, unless a
          // whole batch is waiting (a listener catching up reads on at once)
          const gap = lastRead + WAKE_EVERY_MS - performance.now();
          if (gap > 0 && head.high - cursor < BATCH) {
            await this.changed(gap, signal);
            continue;
          }
          lastRead = performance.now();
          const rows = this.read(cursor);
          if (rows.length === 0) {
            cursor = head.high; // pruned underneath (cannot pass the floor check above) or rolled back
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
      this.count--;
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
    const high = this.head.high;
    const rows = this.repo.after(cursor, high, BATCH);
    // what this read covers: up to its last row when it was cut at BATCH, else up to the newest
    const to = rows.length === BATCH ? (rows[rows.length - 1] as StoredEvent).id : high;
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

  /** New events were committed: the waiting listeners read on (at most once per WAKE_EVERY_MS). */
  wakeSoon(): void {
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

  /** The log closed: every waiting listener wakes (and ends). */
  close(): void {
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.wakeAll();
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
