/**
 * The kinds of transaction, as data (house style "kinds are data"). Every kind lives in the one
 * transactions table; what differs per kind is looked up here, never switched on in a service.
 * This file holds the plain facts (no imports) so any layer that reads transactions (the report,
 * the dashboard) can use them; the behaviour of a kind (callback, presenter) is its descriptor in
 * lifecycle code.
 */
export const TRANSACTION_KINDS = [
  "card_payment",
  "card_charge",
  "subscription_charge",
  "refund",
  "card_payout",
  "apm_payment",
  "apm_payout",
] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];

export interface KindFacts {
  /** Report `type` (docs/report.md). */
  reportType: "PAYMENT" | "ONE_CLICK" | "SUBSCRIPTION_CHARGE" | "REFUND" | "PAYOUT";
  /** `paymentMethod` of callbacks and the report: card or apm (docs/webhooks.md). */
  paymentMethod: "card" | "apm";
  /** A short label for people (dashboard). */
  label: string;
}

export const KIND_FACTS: Readonly<Record<TransactionKind, KindFacts>> = {
  card_payment: { reportType: "PAYMENT", paymentMethod: "card", label: "Card payment" },
  card_charge: { reportType: "ONE_CLICK", paymentMethod: "card", label: "One-click charge" },
  subscription_charge: { reportType: "SUBSCRIPTION_CHARGE", paymentMethod: "card", label: "Subscription charge" },
  refund: { reportType: "REFUND", paymentMethod: "card", label: "Refund" },
  card_payout: { reportType: "PAYOUT", paymentMethod: "card", label: "Card payout" },
  apm_payment: { reportType: "PAYMENT", paymentMethod: "apm", label: "APM payment" },
  apm_payout: { reportType: "PAYOUT", paymentMethod: "apm", label: "APM payout" },
};

export const isTransactionKind = (k: string): k is TransactionKind => Object.hasOwn(KIND_FACTS, k);
