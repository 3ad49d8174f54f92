/**
 * The billing run of subscriptions (docs/lifecycles.md#subscriptions, docs/webhooks.md, docs/gateway.md#how-faithful, docs/subscriptions.md): the
 * scheduler's BillingSource. Each due subscription is charged on the card payment path (kind
 * "subscription_charge") and its outcome moves the schedule: success → failureCount 0 and the next
 * slot; failure → retried the next day, and after maxRetries consecutive failures PAUSED; past
 * endDate → CANCELED. Each scheduled charge is reported by a subscription callback, in the
 * same database transaction as the charge.
 *
 * LIMITATIONS:
 * - a scheduled charge does not re-check the token's lifetime: the subscription holds the card
 *   from creation (otherwise the 90-day default would stop every monthly plan after 3 charges);
 * - the retry of a failed charge waits one day whatever the plan's period is.
 */
import { performance } from "node:perf_hooks";
import type { Db } from "../../db/client.js";
import { inTransaction } from "../../db/client.js";
import type { Logger } from "../../logger.js";
import { type Seen, UNSEEN } from "../../platform/behaviours.js";
import type { Clock } from "../../platform/clock.js";
import { toDateString } from "../../platform/clock.js";
import { addDays, midnightOf } from "../../platform/dates.js";
import { DAY_MS } from "../../platform/duration.js";
import { declineName } from "../../platform/fixtures.js";
import { toMajorNumber } from "../../platform/money.js";
import type { Outbox } from "../../webhooks/outbox.js";
import type { Merchant, MerchantService } from "../merchants/merchants.service.js";
import type { CardOnFile } from "../payments/card.js";
import type { PaymentResult, PaymentService } from "../payments/payments.service.js";
import { type TransactionRow, WAITING } from "../transactions/lifecycle.js";
import { asFinal } from "../transactions/transitions.js";
import { slotAfter } from "./schedule.js";
import { CHARGE_RETRIED, subscriptionMove } from "./subscriptions.behaviours.js";
import {
  DUE_START,
  type DueCursor,
  type DueRow,
  SCHEDULED_STATUSES,
  type SubscriptionRow,
  type SubscriptionsRepo,
} from "./subscriptions.repo.js";
import {
  anchorOf,
  assertSubscriptionMove,
  isScheduled,
  lookAtOf,
  NONE,
  periodOf,
  type SubscriptionVia,
  visibleNext,
} from "./subscriptions.rules.js";
import type { SubscriptionCallback } from "./subscriptions.wire.js";

/** Due rows read at a time within a batch, at most. */
const DUE_PAGE = 32;

export interface BillingDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  repo: SubscriptionsRepo;
  payments: PaymentService;
  merchants: MerchantService;
  outbox: Outbox;
  /** Notes each status move and each retried charge for the coverage report (docs/coverage.md). */
  seen?: Seen;
}

/**
 * One charge of a subscription on the card payment path. The first charge reports by a card
 * callback (docs/subscriptions.md); scheduled ones keep no callbackUrl: their callback is the subscription's.
 */
export function chargeSubscription(
  payments: PaymentService,
  merchant: Merchant,
  sub: SubscriptionRow,
  card: CardOnFile,
  flow: "recurring_first" | "recurring_later",
  requestId: string | null,
  first: boolean,
): PaymentResult {
  return payments.authorize({
    merchant,
    kind: "subscription_charge",
    requestId,
    card,
    amountMinor: sub.amount,
    currency: sub.currency,
    flow,
    threeDSRequested: false,
    callbackUrl: first ? sub.callbackUrl : null,
    successRedirectUrl: sub.successRedirectUrl,
    failureRedirectUrl: sub.failureRedirectUrl,
    billingDetails: sub.billingDetails,
    order: sub.orderData,
    device: sub.device,
    metadata: sub.metadata,
    tokenId: sub.cardToken,
    subscriptionId: sub.id,
  });
}

export class SubscriptionBilling {
  private readonly repo: SubscriptionsRepo;
  /**
   * How many rows the last batch handled when it ended at its deadline (a whole page when it did not):
   * the next batch's first read asks for that many, its later reads for a quarter of it or as many as
   * the batch has handled, so a batch stopped by its deadline has read few rows it did not reach. A
   * full page of 32 read for the ~8 charges a 5 ms slice holds was three quarters wasted: the due read
   * was the largest cost of a long advance (docs/performance.md "A long advance: what grows with it").
   */
  private fits = DUE_PAGE;

  constructor(private readonly deps: BillingDeps) {
    this.repo = deps.repo;
  }

  /** The scheduler's BillingSource: the earliest instant a subscription must be looked at. */
  earliestLookAt(): number | undefined {
    return this.repo.earliestLookAt();
  }

  /**
   * The scheduler's batch (docs/subscriptions.md): up to `limit` subscriptions due by
   * `now`, in ONE database transaction with their charge rows and callbacks, so a crash
   * never charges twice. The batch ends early, after at least one row, once `performance.now()`
   * passes `deadline` (a batch holds the event loop a few ms, not 100 charges' worth);
   * the rows it read but did not reach stay due and come first in the next batch, in the same
   * order. Returns how many rows it handled, how many charges it made, and whether more may be due.
   */
  runDue(now: number, limit: number, deadline = Number.POSITIVE_INFINITY): { rows: number; charges: number; more: boolean } {
    try {
      return inTransaction(this.deps.db, () => this.batch(now, limit, deadline, false));
    } catch (err) {
      // one row failed and the whole batch rolled back: redo it with a savepoint per row, so
      // the bad row is skipped (looked at again a day later) and the others still charge
      this.deps.logger.warn({ err }, "subscription batch failed; retrying it row by row");
      return inTransaction(this.deps.db, () => this.batch(now, limit, deadline, true));
    }
  }

  private batch(
    now: number,
    limit: number,
    deadline: number,
    isolate: boolean,
  ): { rows: number; charges: number; more: boolean } {
    let rows = 0;
    let charges = 0;
    // handled in this batch: a row whose next slot is still due comes back after the cursor; it
    // waits for the next batch, as when a batch was one read (and the pending answers stay true)
    const handled = new Set<string>();
    let skipped = false;
    const bounded = deadline !== Number.POSITIVE_INFINITY;
    let reads = 0;
    for (const status of SCHEDULED_STATUSES) {
      let after: DueCursor = DUE_START;
      while (rows < limit) {
        // a few rows at a time (keyset pages): a batch that ends at its deadline has read few it
        // did not reach, however many it was allowed, and reads none past it
        if (rows > 0 && performance.now() > deadline) return this.stopped(rows, charges);
        // later reads grow with what this batch has charged, so a slice with room soon reads whole pages
        const size = !bounded ? DUE_PAGE : reads === 0 ? this.fits : Math.max(Math.ceil(this.fits / 4), rows);
        const want = Math.min(size, limit - rows);
        reads++;
        const page = this.repo.dueRows(status, now, want, after);
        after = page.end;
        // which of them have an earlier callback still pending (their orderKey is the
        // subscription's id): asked once per page, not once per charge
        let pending: Set<string> | undefined;
        const pendingOf = (id: string) => {
          pending ??= this.deps.outbox.pendingOrderKeys(page.rows.map((d) => d.sub.id));
          return pending.has(id);
        };
        for (const due of page.rows) {
          if (handled.has(due.sub.id)) {
            skipped = true;
            continue;
          }
          if (rows > 0 && performance.now() > deadline) return this.stopped(rows, charges);
          rows++;
          handled.add(due.sub.id);
          if (!isolate) {
            if (this.handleDue(due, now, pendingOf)) charges++;
            continue;
          }
          try {
            if (this.deps.db.$client.transaction(() => this.handleDue(due, now, pendingOf))()) charges++;
          } catch (err) {
            this.deps.logger.error({ err, subscriptionId: due.sub.id }, "subscription charge failed; retrying in a day");
            this.repo.update(due.sub.id, { nextChargeAt: now + DAY_MS, updatedAt: now });
          }
        }
        if (page.rows.length < want) break;
      }
    }
    // not stopped by its deadline: the next batch starts from a whole page again
    this.fits = DUE_PAGE;
    return { rows, charges, more: rows >= limit || skipped };
  }

  /** A batch ended at its deadline after `rows`: the next one's first read asks for about as many. */
  private stopped(rows: number, charges: number): { rows: number; charges: number; more: boolean } {
    this.fits = Math.min(DUE_PAGE, rows);
    return { rows, charges, more: true };
  }

  private handleDue({ sub, card }: DueRow, now: number, pendingOf: (orderKey: string) => boolean): boolean {
    const chargeable =
      isScheduled(sub.status) && sub.nextChargeDate !== null && (!sub.endDate || sub.nextChargeDate <= sub.endDate);
    if (chargeable && midnightOf(sub.nextChargeDate as string) <= now) {
      if (!card) throw new Error(`token ${sub.cardToken} of subscription ${sub.id} is gone`);
      const merchant = this.merchantOf(sub);
      const flow = sub.chargeCount === 0 ? "recurring_first" : "recurring_later";
      const r = chargeSubscription(this.deps.payments, merchant, sub, toCardOnFile(card), flow, null, false);
      if (sub.failureCount > 0) this.seen(CHARGE_RETRIED, { subscriptionId: sub.id, transactionId: r.transactionId, at: now });
      if (WAITING.has(r.transactionStatus)) {
        // settles later: onSettled applies the outcome and sends the callback
        this.schedule(sub, { nextChargeAt: null }, now);
      } else {
        this.applyOutcome(sub, r.row, sub.nextChargeDate as string, now, pendingOf(sub.id));
      }
      return true;
    }
    if (sub.endDate && now >= midnightOf(sub.endDate) + DAY_MS) {
      this.schedule(sub, { status: "CANCELED", nextChargeDate: null, nextChargeAt: null }, now, "endDate");
      return false;
    }
    // not due after all (defensive): recompute, and never leave the row due at `now`
    const at = lookAtOf(sub);
    this.schedule(sub, { nextChargeAt: at !== null && at <= now ? null : at }, now);
    return false;
  }

  /**
   * A scheduled charge's final outcome: move the schedule and send the callback. `pending`:
   * whether an earlier callback of the subscription is still pending, when the caller knows.
   */
  private applyOutcome(sub: SubscriptionRow, tx: TransactionRow, chargeDate: string, now: number, pending?: boolean): void {
    const next: SubscriptionRow = { ...sub };
    if (tx.status === "SUCCEED") {
      next.chargeCount = sub.chargeCount + 1;
      next.failureCount = 0;
      if (isScheduled(sub.status)) {
        next.status = "ACTIVE";
        next.nextChargeDate = slotAfter(anchorOf(sub), periodOf(sub), chargeDate);
      }
    } else {
      next.failureCount = sub.failureCount + 1;
      if (isScheduled(sub.status)) {
        if (next.failureCount >= sub.maxRetries) {
          next.status = "PAUSED";
          next.nextChargeDate = null;
        } else {
          next.nextChargeDate = addDays(chargeDate, 1);
        }
      }
    }
    next.nextChargeAt = lookAtOf(next);
    this.schedule(sub, next, now, "charge");
    const merchant = this.merchantOf(sub);
    const body: SubscriptionCallback = {
      subscriptionId: sub.id,
      transactionId: tx.id,
      chargeDate,
      amount: toMajorNumber(tx.orderAmount, tx.orderCurrency),
      currency: tx.orderCurrency,
      transactionStatus: asFinal(tx.status),
      declineCode: tx.declineCode,
      declineReason: tx.declineCode === null ? null : (declineName(tx.declineCode) ?? null),
      failureCount: next.failureCount,
      nextChargeDate: visibleNext(next),
      metadata: sub.metadata ?? null,
    };
    this.deps.outbox.enqueue({
      merchant,
      kind: "subscription_charge",
      callbackUrl: sub.callbackUrl,
      paymentMethod: "card",
      transactionId: tx.id,
      subscriptionId: sub.id,
      orderKey: sub.id,
      ...(pending === undefined ? {} : { pending }),
      eventStatus: tx.status,
      body,
    });
  }

  /** Writes the schedule; a status change is asserted against SUBSCRIPTION_MOVES under `via`. */
  private schedule(sub: SubscriptionRow, change: Partial<SubscriptionRow>, now: number, via?: SubscriptionVia): void {
    const v = { ...sub, ...change };
    if (v.status !== sub.status) {
      assertSubscriptionMove(sub.status, v.status, via);
      this.seen(subscriptionMove(sub.status, v.status, via as SubscriptionVia), { subscriptionId: sub.id, at: now });
    }
    this.repo.setSchedule(sub.id, {
      status: v.status,
      nextChargeDate: v.nextChargeDate,
      nextChargeAt: v.nextChargeAt,
      failureCount: v.failureCount,
      chargeCount: v.chargeCount,
      updatedAt: now,
    });
  }

  /** A lifecycle settled listener, inside its transaction: a charge that waited (3DS, PROCESSING) ended. */
  onSettled(tx: TransactionRow): void {
    if (tx.kind !== "subscription_charge" || !tx.subscriptionId) return;
    const sub = this.repo.byId(tx.subscriptionId);
    if (!sub) return;
    const now = this.deps.clock.nowMs();
    if (sub.firstTransactionId === tx.id) {
      if (sub.status !== "PENDING") return; // canceled while the first charge waited
      if (tx.status === "SUCCEED") {
        const active = { ...sub, status: "ACTIVE", chargeCount: 1 };
        this.schedule(sub, { status: "ACTIVE", chargeCount: 1, nextChargeAt: lookAtOf(active) }, now, "first charge");
      } else {
        assertSubscriptionMove(sub.status, NONE, "first charge");
        this.repo.delete(sub.id);
        this.seen(subscriptionMove(sub.status, NONE, "first charge"), { subscriptionId: sub.id, transactionId: tx.id, at: now });
      }
      return;
    }
    this.applyOutcome(sub, tx, sub.nextChargeDate ?? toDateString(tx.createdAt), now);
  }

  private seen(behaviour: string, evidence: Parameters<Seen>[1]): void {
    (this.deps.seen ?? UNSEEN)(behaviour, evidence);
  }

  private merchantOf(s: SubscriptionRow): Merchant {
    const m = this.deps.merchants.byKey(s.merchantKey);
    if (!m) throw new Error(`merchant ${s.merchantKey} of subscription ${s.id} is gone`);
    return m;
  }
}

type TokenCardFields = NonNullable<DueRow["card"]>;

const toCardOnFile = (c: TokenCardFields): CardOnFile => ({
  bin: c.cardBin,
  last4: c.cardLast4,
  length: c.cardLength,
  expMonth: c.expMonth,
  expYear: c.expYear,
  holder: c.cardHolder,
  brand: c.cardBrand,
  profile: c.cardProfile,
});
