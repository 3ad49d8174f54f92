/**
 * The recurring scheduler as a DueWork (docs/lifecycles.md#subscriptions, docs/gateway.md#how-faithful, docs/control-plane.md#time-travel): it runs every 5
 * virtual minutes, so a charge due at 00:00 UTC of its nextChargeDate runs at the first 5-minute
 * boundary at or after that instant — and never before the next boundary after now, because
 * the ticks already behind the clock did not see it. It wakes only where something is due: a
 * jump over a year runs each due charge at its own instant, in date order, because the runner
 * asks `nextDueAt()` again after every run.
 */

import type { Clock } from "../platform/clock.js";
import type { DueWork } from "./due-work.js";

/** The recurring scheduler runs every 5 virtual minutes (docs/gateway.md#how-faithful). */
export const SCHEDULER_TICK_MS = 5 * 60_000;

/**
 * Subscriptions handled per database transaction and per run() at most (read a page at a time):
 * memory stays flat however many are due. A batch also ends at the runner's deadline (a few ms of
 * charges), which is what bounds it in the server, so a long clock advance yields to
 * other requests between batches however slow a charge is.
 */
export const SUBSCRIPTION_BATCH = 500;

/** The first scheduler tick at or after `ms`. */
export const tickAtOrAfter = (ms: number): number => Math.ceil(ms / SCHEDULER_TICK_MS) * SCHEDULER_TICK_MS;

/** What the scheduler drives (the subscriptions service), seen from below. */
export interface BillingSource {
  /** The earliest instant a subscription must be looked at, or undefined. */
  earliestLookAt(): number | undefined;
  /**
   * Handles up to `limit` subscriptions due by `now` in one database transaction, stopping early
   * (after at least one) once `performance.now()` passes `deadline`; `more` says some may still be due.
   */
  runDue(now: number, limit: number, deadline?: number): { rows: number; charges: number; more: boolean };
}

export interface SchedulerDeps {
  subscriptions: BillingSource;
  clock: Clock;
  /** Subscriptions charged per run at the most (default SUBSCRIPTION_BATCH). */
  batch?: number | undefined;
}

/** Registered with `ctx.work`; reports `{ charges: n }` into clock/advance's `ran`. */
export class SubscriptionScheduler implements DueWork {
  readonly name = "subscriptions";

  constructor(private readonly deps: SchedulerDeps) {}

  /** The tick whose charges did not all fit in one batch: the next run() continues it at that instant. */
  private resumeAt: number | undefined;

  nextDueAt(): number | undefined {
    // a running clock (time scale) moves on while a tick's batches run: they stay that tick's
    if (this.resumeAt !== undefined) return this.resumeAt;
    const at = this.deps.subscriptions.earliestLookAt();
    return at === undefined ? undefined : tickAtOrAfter(Math.max(at, this.deps.clock.nowMs()));
  }

  /**
   * Charges one batch of what is due at `now` (one transaction), ended early at `deadline`. The
   * runner asks again while more is due, so a long advance runs in slices that other requests get
   * between (docs/performance.md): a subscription whose next slot is still due (a late run catching up)
   * comes back in a later batch, in date order.
   */
  run(now: number, deadline?: number): { charges: number } {
    const at = this.resumeAt ?? now;
    const { charges, more } = this.deps.subscriptions.runDue(at, this.deps.batch ?? SUBSCRIPTION_BATCH, deadline);
    this.resumeAt = more ? at : undefined;
    return { charges };
  }
}
