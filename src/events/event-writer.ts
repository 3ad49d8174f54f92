/**
 * Writing the live events (docs/events.md): one row of the `events` table per change, inside the
 * transaction of the change it reports (a status change, a webhook attempt's result, a clock move,
 * a scenario load, a reset), and the commit tracking that tells when those rows are committed.
 *
 * Commit tracking: with group commit (src/db/commit.ts) a batch stays open across a turn and the
 * one connection sees its uncommitted rows, so the newest committed id moves only in an atCommit
 * hook (the batch's newest id, read just before its COMMIT, kept once the COMMIT succeeded);
 * without it every transaction is synchronous and has ended by the next microtask, where the
 * newest id is committed.
 */
import type { Db } from "../db/client.js";
import { atCommit } from "../db/commit.js";
import { toIso } from "../platform/clock.js";
import type { DeliveryFacts, EventsRepo, StoredEvent } from "./events.repo.js";

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
  /**
   * The delivery's transaction, chaos mode and merchant mid when the dispatcher already holds them
   * (written with the delivery, or read with its claim): no read of the delivery's row per attempt.
   */
  facts?: DeliveryFacts | undefined;
}

export abstract class EventWriter {
  private hooked = false;

  constructor(
    protected readonly db: Db,
    protected readonly repo: EventsRepo,
  ) {}

  /** Events up to `newest` are committed. */
  protected abstract committed(newest: number): void;

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
    const facts = a.facts ?? this.repo.deliveryFacts(a.seq);
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

  private append(row: Omit<StoredEvent, "id">): void {
    this.repo.insert(row);
    if (this.hooked) return;
    const sqlite = this.db.$client;
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
    const sqlite = this.db.$client;
    if (!sqlite.open) return;
    if (sqlite.inTransaction) {
      // cannot happen outside group commit; wait for that transaction to end
      this.hooked = true;
      setImmediate(() => this.settled());
      return;
    }
    this.committed(this.repo.newest());
  }
}
