/**
 * A sandbox's live events (docs/events.md): what the stream `GET /_sandbox/events` sends, written as
 * rows of the `events` table in the same transaction as the change that causes them
 * (event-writer.ts), and read back from there by each listener (followers.ts), so a listener that
 * reconnects, or one that comes back after a restart, resumes exactly after the last id it saw:
 * nothing is sent that was not committed, nothing committed is skipped. Old events are deleted in
 * the background (retention.ts); a listener that the retention passed is ended, and its reconnect
 * is answered 410.
 *
 * Many listeners cost the request path nothing measurable: a write is one INSERT into a table with
 * no secondary index, and listeners read only ids up to `newest`, the newest id known committed.
 */
import type { Db } from "../db/client.js";
import { EventWriter } from "./event-writer.js";
import { EventsRepo, type StoredEvent } from "./events.repo.js";
import { type EventFilter, Followers } from "./followers.js";
import { Retention } from "./retention.js";

export type { AttemptResult, TransactionChange } from "./event-writer.js";
export type { EventFilter } from "./followers.js";
export type { StoredEvent };

export const EVENT_TYPES = ["transaction", "webhook", "clock", "scenario", "reset"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The default retention (SANDBOX_EVENTS_KEEP). */
export const DEFAULT_KEEP = 100_000;
/** A comment is sent on an idle stream this often (real ms; docs/events.md: 15 s). */
export const KEEP_ALIVE_MS = 15_000;

/** Where a new listener starts: after an id, or why it cannot. */
export type Start = { after: number } | { gone: number } | { ahead: number };

export interface EventLogOptions {
  db: Db;
  /** Events kept (the newest); default 100,000. */
  keep?: number;
  /** Real ms between keep-alives of an idle stream; default 15 s. */
  keepAliveMs?: number;
}

export class EventLog extends EventWriter {
  readonly keepAliveMs: number;
  /** The newest id known committed: what listeners may read up to. */
  private high: number;
  private closed = false;
  private readonly retention: Retention;
  private readonly followers: Followers;
  private readonly commitListeners: Array<(newest: number) => void> = [];
  private readonly pruneListeners: Array<(upTo: number) => void> = [];

  constructor(opts: EventLogOptions) {
    const repo = new EventsRepo(opts.db);
    super(opts.db, repo);
    this.keepAliveMs = opts.keepAliveMs ?? KEEP_ALIVE_MS;
    // only this log writes events, and it has written none yet: what the file holds is committed
    this.high = repo.newest();
    this.retention = new Retention(opts.db, repo, Math.max(1, opts.keep ?? DEFAULT_KEEP), this.high, (upTo) => {
      for (const l of this.pruneListeners) l(upTo);
    });
    const log = this;
    this.followers = new Followers(
      opts.db,
      repo,
      {
        get high() {
          return log.high;
        },
        get floor() {
          return log.retention.floor;
        },
        get closed() {
          return log.closed;
        },
      },
      this.keepAliveMs,
    );
    this.schedulePrune();
  }

  /** Listeners attached now (a sandbox is not closed under them). */
  get listening(): number {
    return this.followers.count;
  }

  /** The newest committed event id (0 when none). */
  get newest(): number {
    return this.high;
  }

  /**
   * Where a listener that saw `since` starts (undefined: after the newest, only what comes next).
   * `gone` (410) when the retention dropped events after it; `ahead` (400) when no such id was
   * ever written here (another database's id).
   */
  start(since: number | undefined): Start {
    if (since === undefined) return { after: this.high };
    if (since > this.high) return { ahead: this.high };
    const oldest = this.repo.oldest() ?? this.high + 1;
    const floor = this.retention.floor;
    if (since < oldest - 1 || since < floor) return { gone: Math.max(oldest, floor + 1) };
    return { after: since };
  }

  /** The events after `after` that pass `filter`, a batch at a time, with backpressure (followers.ts). */
  follow(after: number, filter: EventFilter, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    return this.followers.follow(after, filter, signal);
  }

  /** Hears the newest committed id after each commit that wrote events (the coverage's fold, docs/coverage.md). */
  onCommitted(listener: (newest: number) => void): void {
    this.commitListeners.push(listener);
  }

  /** Hears, inside the deleting transaction, that the retention is about to delete the events up to `upTo`. */
  onBeforePrune(listener: (upTo: number) => void): void {
    this.pruneListeners.push(listener);
  }

  /** Ends every listener (its sandbox is closing); nothing is written after. */
  close(): void {
    this.closed = true;
    this.followers.close();
  }

  /** Runs the retention now, to the end (tests; the server does it in the background). */
  pruneNow(): void {
    while (this.retention.step(this.high, this.closed)) {}
  }

  protected committed(newest: number): void {
    if (newest <= this.high) return;
    this.high = newest;
    this.followers.wakeSoon();
    for (const l of this.commitListeners) l(newest);
    this.schedulePrune();
  }

  private schedulePrune(): void {
    this.retention.schedule(
      () => this.high,
      () => this.closed,
    );
  }
}
