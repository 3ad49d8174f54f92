/**
 * The wire shapes of a subscription: the create response and the Subscription record (docs/subscriptions.md).
 */
import { toIso } from "../../platform/clock.js";
import { formatAmount } from "../../platform/money.js";
import type { PaymentResult } from "../payments/payments.service.js";
import { asStatus } from "../transactions/transitions.js";
import type { Frequency } from "./schedule.js";
import type { LatestCharge, SubscriptionRow } from "./subscriptions.repo.js";
import { type SubscriptionStatus, visibleNext } from "./subscriptions.rules.js";
import type { CreateSubscriptionResponse, SubscriptionResponse } from "./subscriptions.wire.js";

export function createView(
  s: SubscriptionRow | null,
  r: PaymentResult | null,
  challengeUrl: string | null,
): CreateSubscriptionResponse {
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

/** The Subscription object (docs/subscriptions.md) of a row with its latest charge (and that charge's challenge URL while it waits for 3DS). */
export function presentSubscription(
  s: SubscriptionRow,
  latest: LatestCharge | undefined,
  challenge: string | null,
): SubscriptionResponse {
  return {
    subscriptionId: s.id,
    status: s.status as SubscriptionStatus,
    transactionId: latest?.id ?? null,
    transactionStatus: latest ? asStatus(latest.status) : null,
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
