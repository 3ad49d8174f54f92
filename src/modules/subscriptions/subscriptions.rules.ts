/**
 * The plan rules of subscriptions (docs/gateway.md#requests-and-answers, docs/lifecycles.md#subscriptions, docs/subscriptions.md): statuses
 * and the PUT moves between them, plan validation, and when the scheduler must look at a row.
 * Pure functions over rows; no database.
 */

import { isIsoDate, midnightOf } from "../../platform/dates.js";
import { DAY_MS } from "../../platform/duration.js";
import { invalidField } from "../../platform/errors.js";
import { formatAmount, isCurrency, parseAmount } from "../../platform/money.js";
import { type Frequency, type Period, slotDate } from "./schedule.js";
import type { SubscriptionRow } from "./subscriptions.repo.js";
import { type PlanRequest, SUBSCRIPTION_STATUSES, type UpdateSubscriptionRequest } from "./subscriptions.wire.js";

export { SUBSCRIPTION_STATUSES };
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** What moves a subscription: its create call, a charge's outcome, the calendar, or the merchant's PUT and DELETE. */
export type SubscriptionVia = "create" | "first charge" | "charge" | "endDate" | "PUT" | "DELETE";

/** The pseudo-status before a subscription exists, and after a failed first charge deletes it (Mermaid's `[*]`). */
export const NONE = "[*]";

export interface SubscriptionMove {
  from: SubscriptionStatus | typeof NONE;
  to: SubscriptionStatus | typeof NONE;
  via: SubscriptionVia;
  /** A few words for people (the diagram): no colon, semicolon or comma. */
  label: string;
}

const move = (from: SubscriptionMove["from"], to: SubscriptionMove["to"], via: SubscriptionVia, label: string) => ({
  from,
  to,
  via,
  label,
});

/**
 * Every status move of a subscription (docs/lifecycles.md#subscriptions, docs/subscriptions.md), as data: the
 * PUT moves (ALLOWED_MOVES) are read from it, every other move the service and the billing run make
 * is asserted against it, and `npm run docs:diagrams` draws docs/lifecycles.md from it.
 */
export const SUBSCRIPTION_MOVES: readonly SubscriptionMove[] = [
  move(NONE, "TRIALING", "create", "skipFirstCharge"),
  move(NONE, "ACTIVE", "create", "first charge approved"),
  move(NONE, "PENDING", "create", "first charge waits (3DS or PROCESSING)"),
  move("PENDING", "ACTIVE", "first charge", "first charge settles SUCCEED"),
  move("PENDING", NONE, "first charge", "first charge fails (deleted)"),
  move("TRIALING", "ACTIVE", "charge", "first scheduled charge succeeds"),
  move("TRIALING", "PAUSED", "charge", "maxRetries failures in a row"),
  move("ACTIVE", "PAUSED", "charge", "maxRetries failures in a row"),
  move("ACTIVE", "CANCELED", "endDate", "endDate passed"),
  move("TRIALING", "CANCELED", "endDate", "endDate passed"),
  move("PAUSED", "CANCELED", "endDate", "endDate passed"),
  move("ACTIVE", "PAUSED", "PUT", "PUT status PAUSED"),
  move("ACTIVE", "CANCELED", "PUT", "PUT status CANCELED"),
  move("PAUSED", "ACTIVE", "PUT", "PUT status ACTIVE"),
  move("PAUSED", "CANCELED", "PUT", "PUT status CANCELED"),
  move("TRIALING", "PAUSED", "PUT", "PUT status PAUSED"),
  move("TRIALING", "CANCELED", "PUT", "PUT status CANCELED"),
  move("PENDING", "CANCELED", "PUT", "PUT status CANCELED"),
  move("ACTIVE", "CANCELED", "DELETE", "DELETE"),
  move("PAUSED", "CANCELED", "DELETE", "DELETE"),
  move("TRIALING", "CANCELED", "DELETE", "DELETE"),
  move("PENDING", "CANCELED", "DELETE", "DELETE"),
];

/** The PUT status moves this sandbox allows (docs/subscriptions.md): the table's PUT rows. */
export const ALLOWED_MOVES: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = (() => {
  const out = {} as Record<SubscriptionStatus, SubscriptionStatus[]>;
  for (const from of SUBSCRIPTION_STATUSES) out[from] = [];
  for (const m of SUBSCRIPTION_MOVES) if (m.via === "PUT" && m.from !== NONE && m.to !== NONE) out[m.from].push(m.to);
  return out;
})();

/** A move the table does not list is a bug in the sandbox, not in the request: an internal error (500). */
export function assertSubscriptionMove(from: string, to: string, via: SubscriptionVia | undefined): void {
  if (!SUBSCRIPTION_MOVES.some((m) => m.from === from && m.to === to && m.via === via)) {
    throw new Error(`illegal status move of a subscription: ${from} → ${to} by ${via} (subscriptions.rules.ts)`);
  }
}

/** Upper bound of plan.interval, so no schedule leaves the 4-digit-year calendar. */
export const MAX_INTERVAL = 1000;
/** Plan dates end before this, for the same reason (MONTHLY×1000 is 83 years). */
export const DATE_LIMIT = "9000-01-01";

const planDate = (d: string) => isIsoDate(d) && d < DATE_LIMIT;

export const periodOf = (s: Pick<SubscriptionRow, "frequency" | "interval">): Period => ({
  frequency: s.frequency as Frequency,
  interval: s.interval,
});
export const anchorOf = (s: SubscriptionRow): string => s.anchorDate ?? s.startDate;
export const isScheduled = (status: string) => status === "ACTIVE" || status === "TRIALING";

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
export function visibleNext(s: Pick<SubscriptionRow, "status" | "nextChargeDate" | "endDate">): string | null {
  if (s.status !== "ACTIVE" && s.status !== "TRIALING" && s.status !== "PENDING") return null;
  if (!s.nextChargeDate || (s.endDate && s.nextChargeDate > s.endDate)) return null;
  return s.nextChargeDate;
}

interface Plan extends Period {
  amountMinor: number;
  currency: string;
  startDate: string;
  endDate: string | null;
}

/**
 * docs/gateway.md#requests-and-answers with the sandbox's checks: amount at the currency's precision, interval 1 to
 * MAX_INTERVAL, startDate a date not before today, endDate a date not before startDate.
 */
export function readPlan(plan: PlanRequest, today: string): Plan {
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
export function applyPlan(s: SubscriptionRow, plan: NonNullable<UpdateSubscriptionRequest["plan"]>, today: string): void {
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
