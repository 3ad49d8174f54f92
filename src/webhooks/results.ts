/**
 * Recording an attempt's result (docs/webhooks.md): inside the caller's transaction, the delivery
 * is settled (delivered, failed, or pending again with its next attempt's time: retries.ts), the
 * attempt is written, listeners hear of it (the live events, docs/events.md), a failure is logged,
 * and a settled delivery lets its orderKey's next one go.
 */

import type { AttemptResult } from "../events/event-log.js";
import type { Logger } from "../logger.js";
import { toIso } from "../platform/clock.js";
import { maskUrl } from "./journal.js";
import { INTERRUPTED_ERROR, nextAttemptAfter } from "./retries.js";
import type { DeliveryStatus, DueRow, WebhooksRepo } from "./webhooks.repo.js";

/** How one attempt ended. */
export interface Outcome {
  row: DueRow;
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
  return { row, n, at, endedAt: Math.max(now, at), ok: false, httpStatus: null, error: INTERRUPTED_ERROR, durationMs: 0 };
}

export class AttemptResults {
  /** Its sandbox is being deleted: an attempt that fails now is the last (nothing would retry it). */
  deleting = false;
  private readonly listeners: Array<(a: AttemptResult) => void> = [];
  /**
   * orderKeys whose pending delivery was written with no pending delivery of its key before it, and
   * none has been written after it since: when it settles, nothing waits behind it, so the promote
   * statement is skipped (docs/performance.md). Any other write of a key takes it out; a restart or
   * a reset starts empty, and a full set is emptied: either only costs the statement again.
   */
  private readonly alone = new Set<string>();

  constructor(
    private readonly repo: WebhooksRepo,
    private readonly logger: Logger,
  ) {}

  /** Runs inside the transaction that records each attempt's result (interrupted ones included). */
  onAttempt(listener: (a: AttemptResult) => void): void {
    this.listeners.push(listener);
  }

  /** The outbox wrote a delivery of `orderKey`; `alone`: no pending one of its key before it. */
  wrote(orderKey: string, alone: boolean): void {
    if (!alone) this.alone.delete(orderKey);
    else {
      if (this.alone.size >= 100_000) this.alone.clear(); // a long advance's parked deliveries, rolled-back writes
      this.alone.add(orderKey);
    }
  }

  /** Forgets every key (reset dropped the deliveries). */
  clear(): void {
    this.alone.clear();
  }

  /**
   * Writes an attempt's result (inside the caller's transaction) and moves its orderKey on when it
   * settled; true when that made another delivery due.
   */
  record(o: Outcome): boolean {
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
    const r = o.row;
    const facts =
      r.mid === undefined ? undefined : { transactionId: r.transactionId ?? null, chaos: r.chaos ?? null, mid: r.mid };
    for (const l of this.listeners) {
      l({
        seq: o.row.seq,
        deliveryId: o.row.id,
        url: maskUrl(o.row.url),
        attempt: o.n,
        at: o.at,
        httpStatus: o.httpStatus,
        error: o.error,
        facts,
      });
    }
    if (!o.ok) this.logFailure(o, next);
    if (status === "pending") return false;
    // nothing was written behind it: no next delivery to make due
    if (this.alone.delete(o.row.orderKey)) return false;
    return this.repo.promoteNext(o.row.orderKey, o.endedAt);
  }

  private logFailure(o: Outcome, next: number | null): void {
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
}
