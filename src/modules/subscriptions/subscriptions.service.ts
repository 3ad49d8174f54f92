/**
 * Recurring subscriptions (interface §2.3, §3.2, §4.5–§4.8, §6.5, §7; CONTRACT §3 Subscriptions).
 *
 * Lifecycle:
 * - create: skipFirstCharge → TRIALING (no charge, nextChargeDate = startDate); otherwise the first
 *   charge runs now on the card payment path (reported by a card callback). Declined → no
 *   subscription; approved → ACTIVE; waiting (3DS, PROCESSING) → PENDING until it settles, then
 *   ACTIVE, or deleted when it fails.
 * - scheduled charges (the scheduler calls `runDue`): each is reported by a §6.5 subscription
 *   callback. Success → failureCount 0, next slot of the schedule; failure → retried the next day,
 *   and after maxRetries consecutive failures the subscription is PAUSED.
 * - endDate: no charge after it; once it has passed the subscription is CANCELED.
 *
 * Allowed PUT status moves (others → 400 `Invalid field: status`, nothing changes): ACTIVE →
 * PAUSED|CANCELED; PAUSED → ACTIVE|CANCELED; TRIALING → PAUSED|CANCELED; PENDING → CANCELED; a
 * status to itself is a no-op; nothing leaves CANCELED; nothing moves into PENDING or TRIALING.
 *
 * LIMITATIONS:
 * - a scheduled charge does not re-check the token's lifetime: the subscription holds the card
 *   from creation (otherwise the 90-day default would stop every monthly plan after 3 charges);
 * - the retry of a failed charge waits one day whatever the plan's period is.
 */
import type { Db } from "../../db/client.js";
import { inTransaction } from "../../db/client.js";
import type { Logger } from "../../logger.js";
import type { Clock } from "../../platform/clock.js";
import { toDateString, toIso } from "../../platform/clock.js";
import { DAY_MS } from "../../platform/duration.js";
import { badRequest, invalidField } from "../../platform/errors.js";
import { declineName } from "../../platform/fixtures.js";
import type { Ids } from "../../platform/ids.js";
import { formatAmount, isCurrency, parseAmount, toMajorNumber } from "../../platform/money.js";
import type { Outbox } from "../../webhooks/outbox.js";
import type { IdempotencyService, IdempotentResult } from "../idempotency/idempotency.service.js";
import type { Merchant, MerchantService } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import type { CardOnFile } from "../payments/card.js";
import type { PaymentResult, PaymentService } from "../payments/payments.service.js";
import { billingOf, cardOfToken, type TokenService } from "../tokens/tokens.service.js";
import type { TransactionRow } from "../transactions/lifecycle.js";
import { addDays, type Frequency, isIsoDate, midnightOf, type Period, slotAfter, slotDate, slotOnOrAfter } from "./schedule.js";
import { type DueRow, SCHEDULED_STATUSES, type SubscriptionRow, SubscriptionsRepo } from "./subscriptions.repo.js";

export const SUBSCRIPTION_STATUSES = ["PENDING", "TRIALING", "ACTIVE", "PAUSED", "CANCELED"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The PUT status moves this sandbox allows (README "Subscriptions"). */
export const ALLOWED_MOVES: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = {
  ACTIVE: ["PAUSED", "CANCELED"],
  PAUSED: ["ACTIVE", "CANCELED"],
  TRIALING: ["PAUSED", "CANCELED"],
  PENDING: ["CANCELED"],
  CANCELED: [],
};

/** Upper bound of plan.interval, so no schedule leaves the 4-digit-year calendar. */
export const MAX_INTERVAL = 1000;
/** Plan dates end before this, for the same reason (MONTHLY×1000 is 83 years). */
export const DATE_LIMIT = "9000-01-01";

const planDate = (d: string) => isIsoDate(d) && d < DATE_LIMIT;

const WAITING = new Set(["CUSTOMER_VERIFICATION", "PROCESSING", "PENDING"]);

export interface PlanInput {
  amount: string;
  currency: string;
  frequency: Frequency;
  interval: number;
  startDate: string;
  endDate?: string | undefined;
}

export interface CreateInput {
  requestId: string;
  mid: string;
  cardToken: string;
  plan: PlanInput;
  billingDetails?: Record<string, unknown> | undefined;
  order: Record<string, unknown>;
  device: Record<string, unknown>;
  skipFirstCharge?: boolean | undefined;
  callbackUrl: string;
  successRedirectUrl: string;
  failureRedirectUrl: string;
  metadata?: Record<string, string> | undefined;
}

export interface UpdateInput {
  plan?:
    | {
        amount?: string | undefined;
        currency?: string | undefined;
        frequency?: Frequency | undefined;
        interval?: number | undefined;
        startDate?: string | undefined;
        endDate?: string | null | undefined;
      }
    | undefined;
  status?: SubscriptionStatus | undefined;
}

/** Interface §4.5 response (plus `status`, null when no subscription was created). */
export interface CreateView {
  subscriptionId: string | null;
  status: SubscriptionStatus | null;
  transactionId: string | null;
  transactionStatus: string | null;
  declineCode: number | null;
  challengeUrl: string | null;
  challengeUrlIframe: string | null;
  nextChargeDate: string | null;
}

/** Interface §2.3/§4.6. */
export interface SubscriptionView extends CreateView {
  subscriptionId: string;
  status: SubscriptionStatus;
  createdAt: string;
  plan: {
    amount: string;
    currency: string;
    frequency: Frequency;
    interval: number;
    startDate: string;
    endDate: string | null;
  };
  billingDetails: Record<string, unknown> | null;
  metadata: Record<string, string> | null;
  failureCount: number;
}

export interface SubscriptionDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  idempotency: IdempotencyService;
  payments: PaymentService;
  tokens: TokenService;
  merchants: MerchantService;
  outbox: Outbox;
  /** SANDBOX_MAX_RETRIES: consecutive failures that pause a subscription (interface §8). */
  maxRetries: number;
}

const periodOf = (s: Pick<SubscriptionRow, "frequency" | "interval">): Period => ({
  frequency: s.frequency as Frequency,
  interval: s.interval,
});
const anchorOf = (s: SubscriptionRow): string => s.anchorDate ?? s.startDate;
const isScheduled = (status: string) => status === "ACTIVE" || status === "TRIALING";

/**
 * When the scheduler must next look at a subscription: 00:00 UTC of nextChargeDate for
 * ACTIVE/TRIALING, or 00:00 UTC of the day after endDate when that comes first (also for PAUSED,
 * so an ended paused subscription is canceled); null when nothing is due.
 */
export function lookAtOf(s: Pick<SubscriptionRow, "status" | "nextChargeDate" | "endDate">): number | null {
  const end = s.endDate ? midnightOf(s.endDate) + DAY_MS : null;
  const charge = isScheduled(s.status) && s.nextChargeDate ? midnightOf(s.nextChargeDate) : null;
  if (charge === null) return s.status === "PAUSED" || isScheduled(s.status) ? end : null;
  return end === null ? charge : Math.min(charge, end);
}

/** The nextChargeDate a client sees: the next charge that will really happen, else null. */
function visibleNext(s: Pick<SubscriptionRow, "status" | "nextChargeDate" | "endDate">): string | null {
  if (s.status !== "ACTIVE" && s.status !== "TRIALING" && s.status !== "PENDING") return null;
  if (!s.nextChargeDate || (s.endDate && s.nextChargeDate > s.endDate)) return null;
  return s.nextChargeDate;
}

export class SubscriptionService {
  readonly repo: SubscriptionsRepo;

  constructor(private readonly deps: SubscriptionDeps) {
    this.repo = new SubscriptionsRepo(deps.db);
  }

  /**
   * Interface §4.5, idempotent (operation "subscription"). Validates the plan, resolves the token
   * and billing details (§7 messages), then TRIALING, or the first charge now (kind
   * "subscription_charge", flow "recurring_first", reported by a card callback).
   */
  create(merchant: Merchant, input: CreateInput): IdempotentResult<CreateView> {
    requireOwnMerchant(merchant, "mid", input.mid);
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "subscription", requestId: input.requestId },
      input,
      () => {
        const now = this.deps.clock.nowMs();
        const today = toDateString(now);
        const plan = readPlan(input.plan, today);
        const token = this.deps.tokens.resolve(merchant, input.cardToken);
        const billingDetails = billingOf(input.billingDetails, token);
        const id = this.deps.ids.next("subscription");
        const skip = input.skipFirstCharge === true;
        const row: SubscriptionRow = {
          id,
          merchantKey: merchant.merchantKey,
          requestId: input.requestId,
          cardToken: token.token,
          status: skip ? "TRIALING" : "PENDING",
          amount: plan.amountMinor,
          currency: plan.currency,
          frequency: plan.frequency,
          interval: plan.interval,
          startDate: plan.startDate,
          endDate: plan.endDate,
          anchorDate: null,
          nextChargeDate: skip ? plan.startDate : slotDate(plan.startDate, plan, 1),
          nextChargeAt: null,
          failureCount: 0,
          chargeCount: 0,
          maxRetries: this.deps.maxRetries,
          skipFirstCharge: skip,
          firstTransactionId: null,
          callbackUrl: input.callbackUrl,
          successRedirectUrl: input.successRedirectUrl,
          failureRedirectUrl: input.failureRedirectUrl,
          billingDetails,
          orderData: input.order,
          device: input.device,
          metadata: input.metadata ?? null,
          createdAt: now,
          updatedAt: now,
        };
        if (skip) {
          row.nextChargeAt = lookAtOf(row);
          this.repo.insert(row);
          return createView(row, null, null);
        }
        const r = this.authorize(merchant, row, cardOfToken(token), "recurring_first", input.requestId, true);
        if (r.transactionStatus !== "SUCCEED" && !WAITING.has(r.transactionStatus)) {
          return createView(null, r, null);
        }
        row.firstTransactionId = r.transactionId;
        if (r.transactionStatus === "SUCCEED") {
          row.status = "ACTIVE";
          row.chargeCount = 1;
          row.nextChargeAt = lookAtOf(row);
        }
        this.repo.insert(row);
        return createView(row, r, r.challengeUrl ?? null);
      },
    );
  }

  /** The scheduler's BillingSource: the earliest instant a subscription must be looked at. */
  earliestLookAt(): number | undefined {
    return this.repo.earliestLookAt();
  }

  /** Interface §4.6: unknown → 400 `Subscription not found: <id>`; another merchant's → §7 message. */
  get(merchant: Merchant, id: string): SubscriptionView {
    return this.view(this.own(merchant, id));
  }

  /**
   * Interface §4.7: plan fields and status. Plan changes apply from the next charge (a new period
   * or startDate re-anchors the schedule there); refused status moves → 400 `Invalid field:
   * status` and nothing changes. Resuming resets failureCount and charges next on the first slot
   * on or after today.
   */
  update(merchant: Merchant, id: string, input: UpdateInput): SubscriptionView {
    const updated = inTransaction(this.deps.db, () => {
      const s = this.own(merchant, id);
      const today = toDateString(this.deps.clock.nowMs());
      const next: SubscriptionRow = { ...s };
      const target = input.status;
      if (target !== undefined && target !== s.status && !ALLOWED_MOVES[s.status as SubscriptionStatus].includes(target)) {
        throw invalidField("status");
      }
      if (input.plan) applyPlan(next, input.plan, today);
      const waiting = this.isWaiting(s);
      if (target !== undefined && target !== s.status) {
        next.status = target;
        if (target === "PAUSED" || target === "CANCELED") next.nextChargeDate = null;
        if (target === "ACTIVE") {
          next.failureCount = 0;
          next.nextChargeDate = slotOnOrAfter(anchorOf(next), periodOf(next), today);
        }
      }
      next.nextChargeAt = waiting ? null : lookAtOf(next);
      next.updatedAt = this.deps.clock.nowMs();
      const { id: _id, ...set } = next;
      this.repo.update(id, set);
      return next;
    });
    return this.view(updated);
  }

  /** Interface §4.8: CANCELED, no further charge; again on a canceled one is a no-op (204). */
  cancel(merchant: Merchant, id: string): void {
    inTransaction(this.deps.db, () => {
      const s = this.own(merchant, id);
      if (s.status === "CANCELED") return;
      this.repo.update(id, { status: "CANCELED", nextChargeDate: null, nextChargeAt: null, updatedAt: this.deps.clock.nowMs() });
    });
  }

  /**
   * The scheduler's batch (CONTRACT §3 Subscriptions, Time): up to `limit` subscriptions due by
   * `now`, in ONE database transaction with their charge rows and §6.5 callbacks, so a crash
   * never charges twice. Returns how many rows it handled and how many charges it made.
   */
  runDue(now: number, limit: number): { rows: number; charges: number } {
    try {
      return inTransaction(this.deps.db, () => this.batch(now, limit, false));
    } catch (err) {
      // one row failed and the whole batch rolled back: redo it with a savepoint per row, so
      // the bad row is skipped (looked at again a day later) and the others still charge
      this.deps.logger.warn({ err }, "subscription batch failed; retrying it row by row");
      return inTransaction(this.deps.db, () => this.batch(now, limit, true));
    }
  }

  private batch(now: number, limit: number, isolate: boolean): { rows: number; charges: number } {
    let rows = 0;
    let charges = 0;
    for (const status of SCHEDULED_STATUSES) {
      if (rows >= limit) break;
      for (const due of this.repo.dueRows(status, now, limit - rows)) {
        rows++;
        if (!isolate) {
          if (this.handleDue(due, now)) charges++;
          continue;
        }
        try {
          if (this.deps.db.$client.transaction(() => this.handleDue(due, now))()) charges++;
        } catch (err) {
          this.deps.logger.error({ err, subscriptionId: due.sub.id }, "subscription charge failed; retrying in a day");
          this.repo.update(due.sub.id, { nextChargeAt: now + DAY_MS, updatedAt: now });
        }
      }
    }
    return { rows, charges };
  }

  private handleDue({ sub, card }: DueRow, now: number): boolean {
    const chargeable =
      isScheduled(sub.status) && sub.nextChargeDate !== null && (!sub.endDate || sub.nextChargeDate <= sub.endDate);
    if (chargeable && midnightOf(sub.nextChargeDate as string) <= now) {
      if (!card) throw new Error(`token ${sub.cardToken} of subscription ${sub.id} is gone`);
      const merchant = this.merchantOf(sub);
      const flow = sub.chargeCount === 0 ? "recurring_first" : "recurring_later";
      const r = this.authorize(merchant, sub, toCardOnFile(card), flow, null, false);
      if (WAITING.has(r.transactionStatus)) {
        // settles later: onSettled applies the outcome and sends the callback
        this.schedule(sub, { nextChargeAt: null }, now);
      } else {
        this.applyOutcome(sub, r.row, sub.nextChargeDate as string, now);
      }
      return true;
    }
    if (sub.endDate && now >= midnightOf(sub.endDate) + DAY_MS) {
      this.schedule(sub, { status: "CANCELED", nextChargeDate: null, nextChargeAt: null }, now);
      return false;
    }
    // not due after all (defensive): recompute, and never leave the row due at `now`
    const at = lookAtOf(sub);
    this.schedule(sub, { nextChargeAt: at !== null && at <= now ? null : at }, now);
    return false;
  }

  private authorize(
    merchant: Merchant,
    sub: SubscriptionRow,
    card: CardOnFile,
    flow: "recurring_first" | "recurring_later",
    requestId: string | null,
    first: boolean,
  ): PaymentResult {
    return this.deps.payments.authorize({
      merchant,
      kind: "subscription_charge",
      requestId,
      card,
      amountMinor: sub.amount,
      currency: sub.currency,
      flow,
      threeDSRequested: false,
      // the first charge reports by a card callback (CONTRACT §3); scheduled ones by the §6.5 callback
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

  /** A scheduled charge's final outcome: move the schedule and send the §6.5 callback. */
  private applyOutcome(sub: SubscriptionRow, tx: TransactionRow, chargeDate: string, now: number): void {
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
    this.schedule(sub, next, now);
    const merchant = this.merchantOf(sub);
    this.deps.outbox.enqueue({
      merchant,
      kind: "subscription_charge",
      callbackUrl: sub.callbackUrl,
      paymentMethod: "card",
      transactionId: tx.id,
      subscriptionId: sub.id,
      orderKey: sub.id,
      eventStatus: tx.status,
      body: {
        subscriptionId: sub.id,
        transactionId: tx.id,
        chargeDate,
        amount: toMajorNumber(tx.orderAmount, tx.orderCurrency),
        currency: tx.orderCurrency,
        transactionStatus: tx.status,
        declineCode: tx.declineCode,
        declineReason: tx.declineCode === null ? null : (declineName(tx.declineCode) ?? null),
        failureCount: next.failureCount,
        nextChargeDate: visibleNext(next),
        metadata: sub.metadata ?? null,
      },
    });
  }

  private schedule(sub: SubscriptionRow, change: Partial<SubscriptionRow>, now: number): void {
    const v = { ...sub, ...change };
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
        this.schedule(sub, { status: "ACTIVE", chargeCount: 1, nextChargeAt: lookAtOf(active) }, now);
      } else {
        this.repo.delete(sub.id);
      }
      return;
    }
    this.applyOutcome(sub, tx, sub.nextChargeDate ?? toDateString(tx.createdAt), now);
  }

  /** A charge of this subscription is still waiting (3DS, PROCESSING): not due again until it settles. */
  private isWaiting(s: SubscriptionRow): boolean {
    const latest = this.repo.latestCharge(s.id);
    return latest !== undefined && WAITING.has(latest.status);
  }

  private own(merchant: Merchant, id: string): SubscriptionRow {
    const s = this.repo.byId(id);
    if (!s) throw badRequest(`Subscription not found: ${id}`);
    if (s.merchantKey !== merchant.merchantKey) throw badRequest("Subscription does not belong to merchant");
    return s;
  }

  private merchantOf(s: SubscriptionRow): Merchant {
    const m = this.deps.merchants.byKey(s.merchantKey);
    if (!m) throw new Error(`merchant ${s.merchantKey} of subscription ${s.id} is gone`);
    return m;
  }

  private view(s: SubscriptionRow): SubscriptionView {
    const latest = this.repo.latestCharge(s.id);
    const challenge = latest?.status === "CUSTOMER_VERIFICATION" ? this.deps.payments.challengeUrl(latest.id) : null;
    return {
      subscriptionId: s.id,
      status: s.status as SubscriptionStatus,
      transactionId: latest?.id ?? null,
      transactionStatus: latest?.status ?? null,
      declineCode: latest?.declineCode ?? null,
      challengeUrl: challenge,
      challengeUrlIframe: challenge && `${challenge}?mode=iframe`,
      nextChargeDate: visibleNext(s),
      createdAt: toIso(s.createdAt),
      plan: {
        amount: formatAmount(s.amount, s.currency),
        currency: s.currency,
        frequency: s.frequency as Frequency,
        interval: s.interval,
        startDate: s.startDate,
        endDate: s.endDate,
      },
      billingDetails: s.billingDetails ?? null,
      metadata: s.metadata ?? null,
      failureCount: s.failureCount,
    };
  }
}

type TokenCardFields = NonNullable<DueRow["card"]>;

const toCardOnFile = (c: TokenCardFields): CardOnFile => ({
  bin: c.cardBin,
  last4: c.cardLast4,
  expMonth: c.expMonth,
  expYear: c.expYear,
  holder: c.cardHolder,
  brand: c.cardBrand,
  profile: c.cardProfile,
});

function createView(s: SubscriptionRow | null, r: PaymentResult | null, challengeUrl: string | null): CreateView {
  return {
    subscriptionId: s?.id ?? null,
    status: (s?.status as SubscriptionStatus | undefined) ?? null,
    transactionId: r?.transactionId ?? null,
    transactionStatus: r?.transactionStatus ?? null,
    declineCode: r?.declineCode ?? null,
    challengeUrl,
    challengeUrlIframe: challengeUrl ? (r?.challengeUrlIframe ?? `${challengeUrl}?mode=iframe`) : null,
    nextChargeDate: s ? visibleNext(s) : null,
  };
}

interface Plan extends Period {
  amountMinor: number;
  currency: string;
  startDate: string;
  endDate: string | null;
}

/**
 * Interface §2.1 Plan with the sandbox's checks: amount at the currency's precision, interval 1 to
 * MAX_INTERVAL, startDate a date not before today, endDate a date not before startDate.
 */
function readPlan(plan: PlanInput, today: string): Plan {
  if (!isCurrency(plan.currency)) throw invalidField("plan.currency");
  const amountMinor = parseAmount(plan.amount, plan.currency, "plan.amount");
  if (!Number.isInteger(plan.interval) || plan.interval < 1 || plan.interval > MAX_INTERVAL) throw invalidField("plan.interval");
  if (!planDate(plan.startDate) || plan.startDate < today) throw invalidField("plan.startDate");
  const endDate = plan.endDate ?? null;
  if (endDate !== null && (!planDate(endDate) || endDate < plan.startDate)) throw invalidField("plan.endDate");
  return {
    amountMinor,
    currency: plan.currency,
    frequency: plan.frequency,
    interval: plan.interval,
    startDate: plan.startDate,
    endDate,
  };
}

/** PUT plan fields onto a row (validated like create); re-anchors the schedule when its shape changes. */
function applyPlan(s: SubscriptionRow, plan: NonNullable<UpdateInput["plan"]>, today: string): void {
  const currency = plan.currency ?? s.currency;
  if (!isCurrency(currency)) throw invalidField("plan.currency");
  // without a new amount, the current one re-read at the new currency's precision ("10.00" → "10")
  const amount = plan.amount ?? trimZeros(formatAmount(s.amount, s.currency));
  const amountMinor = parseAmount(amount, currency, "plan.amount");
  const interval = plan.interval ?? s.interval;
  if (!Number.isInteger(interval) || interval < 1 || interval > MAX_INTERVAL) throw invalidField("plan.interval");
  if (plan.startDate !== undefined && (!planDate(plan.startDate) || plan.startDate < today)) {
    throw invalidField("plan.startDate");
  }
  const startDate = plan.startDate ?? s.startDate;
  const endDate = plan.endDate === undefined ? s.endDate : plan.endDate;
  if (endDate !== null && (!planDate(endDate) || endDate < startDate)) throw invalidField("plan.endDate");
  const frequency = plan.frequency ?? (s.frequency as Frequency);
  const periodChanged = frequency !== s.frequency || interval !== s.interval;
  const startChanged = startDate !== s.startDate;
  Object.assign(s, { currency, amount: amountMinor, interval, frequency, startDate, endDate });
  if (startChanged) {
    s.anchorDate = startDate;
    if (isScheduled(s.status)) s.nextChargeDate = startDate;
    else if (s.status === "PENDING") s.nextChargeDate = slotDate(startDate, periodOf(s), 1);
  } else if (periodChanged && s.nextChargeDate) {
    s.anchorDate = s.nextChargeDate;
  }
}

/** `"10.50"` → `"10.5"`, `"10.00"` → `"10"`, `"100"` stays. */
function trimZeros(amount: string): string {
  return amount.includes(".") ? amount.replace(/0+$/, "").replace(/\.$/, "") : amount;
}
