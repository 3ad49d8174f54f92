/**
 * Writing the live events (docs/events.md) that code writes: a clock move, a scenario load, a reset,
 * one row of the `events` table each, inside the transaction of the change it reports. A
 * transaction's creation, its status change and a webhook attempt's result are written by the
 * storage layer with the change itself (src/modules/transactions/transactions.repo.ts; migration
 * 0009: transaction_moves, attempt_results), in the same transaction; nothing above it writes them.
 *
 * Commit tracking: with group commit (src/db/commit.ts) a batch stays open across a turn and the one
 * connection sees its uncommitted rows, so the newest committed id is read right after a COMMIT (a
 * commit listener: event-log.ts decides after which); a write outside any transaction has committed
 * by the next microtask.
 */
import type { Db } from "../db/client.js";
import { toIso } from "../platform/clock.js";
import type { EventsRepo, StoredEvent } from "./events.repo.js";

export interface EventWriterDeps {
  db: Db;
  repo: EventsRepo;
}

export abstract class EventWriter {
  private settling = false;
  protected readonly db: Db;
  protected readonly repo: EventsRepo;

  constructor(deps: EventWriterDeps) {
    this.db = deps.db;
    this.repo = deps.repo;
  }

  /** Events up to `newest` are committed. */
  protected abstract committed(newest: number): void;

  /**
   * A COMMIT of its database just ended (the composition root registers the log with the database's
   * commits, src/db/commit.ts `onCommit`): what it wrote, events included, is committed.
   */
  abstract afterCommit(): void;

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

  private append(row: Omit<StoredEvent, "id">): void {
    this.repo.insert(row);
    // in a transaction, its COMMIT tells; else the row committed alone: by the next microtask
    if (this.db.$client.inTransaction || this.settling) return;
    this.settling = true;
    queueMicrotask(() => this.settled());
  }

  private settled(): void {
    this.settling = false;
    const sqlite = this.db.$client;
    if (!sqlite.open || sqlite.inTransaction) return; // a transaction since: its COMMIT tells
    this.committed(this.repo.newest());
  }
}
