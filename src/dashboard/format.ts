/**
 * How the dashboard writes values for people (docs/dashboard.md): times in UTC, amounts in major units,
 * and secrets and card numbers never in full.
 */
import { isTransactionKind, KIND_FACTS } from "../modules/transactions/kinds.js";
import { cardMask, maskNumber } from "../platform/cards.js";
import { toIso } from "../platform/clock.js";
import { declineName } from "../platform/fixtures.js";
import { formatAmount } from "../platform/money.js";

/** Statuses a transaction can have (docs/lifecycles.md), for the status filter. */
export const TRANSACTION_STATUSES = [
  "NEW",
  "PENDING",
  "PROCESSING",
  "CUSTOMER_VERIFICATION",
  "SUCCEED",
  "FAILED",
  "CANCELLED",
  "REFUNDED",
  "CHARGEBACK",
] as const;

export { SUBSCRIPTION_STATUSES } from "../modules/subscriptions/subscriptions.service.js";

/** `2026-01-15 12:00:00` (UTC, no milliseconds): readable and still sortable. */
export const formatTime = (ms: number): string => toIso(ms).slice(0, 19).replace("T", " ");

/** `20.50 USD`; an amount in a currency the fixtures do not know is shown in minor units rather than failing. */
export function money(minor: number, currency: string): string {
  try {
    return `${formatAmount(minor, currency)} ${currency}`;
  } catch {
    return `${minor} (minor units) ${currency}`;
  }
}

/** The kind's label from KIND_FACTS; an unknown kind shows as stored. */
export const kindLabel = (kind: string): string => (isTransactionKind(kind) ? KIND_FACTS[kind].label : kind);

/** `card` or `apm` for a known kind. */
export const kindMethod = (kind: string): "card" | "apm" | undefined =>
  isTransactionKind(kind) ? KIND_FACTS[kind].paymentMethod : undefined;

/** `5 INSUFFICIENT_FUNDS_ERROR`. */
export const declineText = (code: number): string => {
  const name = declineName(code);
  return name ? `${code} ${name}` : String(code);
};

/** The first 4 characters and a bullet per hidden one; a secret of 8 or fewer shows nothing. */
export function maskSecret(secret: string): string {
  const shown = secret.length > 8 ? secret.slice(0, 4) : "";
  return `${shown}${"•".repeat(Math.min(12, secret.length - shown.length))}`;
}

/** A card number as its card mask (`411111******1111`); anything shorter than 12 digits is hidden whole. */
export function maskPan(value: string): string {
  const digits = value.replace(/\D/g, "");
  return digits.length >= 12 ? maskNumber(digits) : "******";
}

/** The card mask of a stored row, or undefined without card data. */
export const cardOf = (bin: string | null, last4: string | null, length: number | null): string | undefined =>
  bin && last4 ? cardMask(bin, last4, length) : undefined;

/** JSON for a `<pre>`: pretty, and any string that reads as a card number masked. */
export function prettyJson(value: unknown): string {
  let v = value;
  if (typeof value === "string") {
    try {
      v = JSON.parse(value);
    } catch {
      return value;
    }
  }
  return JSON.stringify(v, (_k, x) => (typeof x === "string" && /^\d{13,19}$/.test(x) ? maskPan(x) : x), 2) ?? "null";
}
