/**
 * Money is integer minor units inside the sandbox (no float arithmetic on amounts). Requests carry major-unit
 * strings (interface conventions: `"20"` is 20.00); callbacks carry JSON numbers.
 */
import { invalidField } from "./errors.js";
import { CURRENCIES } from "./fixtures.js";

const AMOUNT = /^\d+(\.\d+)?$/;

/** The reasons of `errors[]` (docs/api.md#errors) for amounts and currencies. */
export const AMOUNT_REASON = 'must be a string of major units, e.g. "20.50"';
export const POSITIVE_REASON = 'must be positive, e.g. "20.50"';

/** The reason a string is not an amount: a negative one is told it must be positive, any other the format. */
export const amountTextReason = (text: string): string => (/^-\d+(\.\d+)?$/.test(text) ? POSITIVE_REASON : AMOUNT_REASON);

/** The largest amount of a currency, in major units: 2^53 - 1 minor units, the largest an exact JSON number holds. */
export const maxAmountText = (currency: string): string => `${formatAmount(Number.MAX_SAFE_INTEGER, currency)} ${currency}`;
export const CURRENCY_REASON = 'expected an ISO 4217 currency code such as "USD"';

export const isCurrency = (code: string): boolean => Object.hasOwn(CURRENCIES, code);

/** ISO 4217 minor digits of a known currency (JPY 0, USD 2, KWD 3). */
export function digitsOf(currency: string): number {
  const info = CURRENCIES[currency];
  if (!info) throw invalidField("currency", CURRENCY_REASON);
  return info.digits;
}

/**
 * `"20.5"` USD → 2050. Refuses (400 `Invalid field: <field>`, each with its reason) anything but a
 * plain positive decimal with at most the currency's minor digits, and amounts beyond 2^53 - 1
 * minor units (90071992547409.91 USD).
 */
export function parseAmount(text: string, currency: string, field = "amount"): number {
  const digits = digitsOf(currency);
  if (!AMOUNT.test(text)) throw invalidField(field, amountTextReason(text));
  const [whole = "", fraction = ""] = text.split(".");
  if (fraction.length > digits) {
    throw invalidField(field, digits === 0 ? `no decimals for ${currency}` : `at most ${digits} decimals for ${currency}`);
  }
  const minor = BigInt(whole + fraction.padEnd(digits, "0"));
  if (minor <= 0n) throw invalidField(field, POSITIVE_REASON);
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidField(field, `must be at most ${maxAmountText(currency)}`);
  return Number(minor);
}

/** 2050 USD → `"20.50"`. */
export function formatAmount(minor: number, currency: string): string {
  const digits = digitsOf(currency);
  if (digits === 0) return String(minor);
  const s = String(minor).padStart(digits + 1, "0");
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/** 2050 USD → 20.5, the JSON number a callback carries. */
export const toMajorNumber = (minor: number, currency: string): number => Number(formatAmount(minor, currency));

/** A positive decimal as an exact fraction of integers. */
function rational(value: number | string): [bigint, bigint] {
  const text = typeof value === "number" ? toPlainDecimal(value) : value;
  const [w = "0", f = ""] = text.split(".");
  return [BigInt(w + f), 10n ** BigInt(f.length)];
}

function toPlainDecimal(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
}

/**
 * Converts `minor` units of `from` into `to` at `rateTo / rateFrom` (rates in units per a
 * common base), rounding half-up at the target currency's precision. Exact integer math.
 * FX (docs/cards.md#fx): processedAmount = orderAmount × rate(processed)/rate(order).
 */
export function convert(minor: number, from: string, to: string, rateFrom: number, rateTo: number): number {
  const [tn, td] = rational(rateTo);
  const [fn, fd] = rational(rateFrom);
  const scale = 10n ** BigInt(digitsOf(to));
  const unscale = 10n ** BigInt(digitsOf(from));
  // result = minor / 10^dFrom × (tn/td) / (fn/fd) × 10^dTo
  const num = BigInt(minor) * tn * fd * scale;
  const den = unscale * td * fn;
  return Number((2n * num + den) / (2n * den));
}
