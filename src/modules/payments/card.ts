/**
 * Card data at the edge (docs/cards.md test cards; house rule: numbers and CVVs are never stored
 * or logged). A request's card is validated here and reduced to what may be kept: BIN, last 4,
 * length, expiry, holder, brand and the outcome profile. Card payments and tokenization share it.
 */

import { CARD_NUMBER_REASON, luhnValid } from "../../platform/cards.js";
import type { Clock } from "../../platform/clock.js";
import { invalidField } from "../../platform/errors.js";
import { BIN_RANGES, type BinRange } from "../../platform/fixtures.js";
import type { OutcomeEngine } from "../../scenarios/outcome-engine.js";
import type { CardRequest } from "./payments.wire.js";

/** A request's card as readCard takes it: the wire's Card (src/http/wire.ts), cvv and holder optional (payouts and tokens send fewer fields). */
export type CardInput = Pick<CardRequest, "number" | "expMonth" | "expYear"> &
  Partial<Pick<CardRequest, "cvv" | "cardHolderName">>;

/** What the sandbox keeps of a card. */
export interface CardOnFile {
  bin: string;
  last4: string;
  /** The number's length (12-19); null for a token stored before it was kept. */
  length: number | null;
  expMonth: string;
  expYear: string;
  holder: string | null;
  brand: string | null;
  profile: string;
}

/** The row's card columns (src/modules/transactions/new-row.ts) for a card the sandbox keeps. */
export function cardColumns(card: CardOnFile) {
  return {
    cardBin: card.bin,
    cardLast4: card.last4,
    cardLength: card.length,
    cardExpMonth: card.expMonth,
    cardExpYear: card.expYear,
    cardHolder: card.holder,
    cardBrand: card.brand,
    cardProfile: card.profile,
  };
}

/** The reasons of `errors[]` (docs/cards.md) for card fields. */
export const EXP_MONTH_REASON = 'expected the month as two digits, "01" to "12"';
export const EXP_YEAR_REASON = 'expected a four-digit year such as "2030"';

const MONTH = /^(0[1-9]|1[0-2])$/;
const YEAR = /^\d{4}$/;
const CVV = /^\d{3,4}$/;

/**
 * Validates a request card and drops the number (docs/gateway.md#requests-and-answers, docs/cards.md): a number that
 * fails Luhn → `Invalid field: <path>.number`; expMonth not 01-12, expYear not YYYY or an expiry
 * before the current virtual month → `<path>.expMonth` / `<path>.expYear`; a CVV not 3-4 digits
 * → `<path>.cvv`. The card is valid through the last day of its expiry month (UTC).
 */
export function readCard(card: CardInput, outcomes: Pick<OutcomeEngine, "profileFor">, clock: Clock, path = "card"): CardOnFile {
  const number = card.number;
  if (typeof number !== "string" || !luhnValid(number)) throw invalidField(`${path}.number`, CARD_NUMBER_REASON);
  if (typeof card.expMonth !== "string" || !MONTH.test(card.expMonth)) throw invalidField(`${path}.expMonth`, EXP_MONTH_REASON);
  if (typeof card.expYear !== "string" || !YEAR.test(card.expYear)) throw invalidField(`${path}.expYear`, EXP_YEAR_REASON);
  if (card.cvv !== undefined && (typeof card.cvv !== "string" || !CVV.test(card.cvv))) {
    throw invalidField(`${path}.cvv`, "expected 3 or 4 digits");
  }
  const now = clock.now();
  const nowMonths = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const expMonths = Number(card.expYear) * 12 + (Number(card.expMonth) - 1);
  if (expMonths < nowMonths) {
    const current = now.toISOString().slice(0, 7);
    throw invalidField(
      `${path}.expYear`,
      `the card expired: ${card.expMonth}/${card.expYear} is before the current month ${current}`,
    );
  }
  const bin = number.slice(0, 6);
  const holder = typeof card.cardHolderName === "string" && card.cardHolderName.trim() ? card.cardHolderName.trim() : null;
  return {
    bin,
    last4: number.slice(-4),
    length: number.length,
    expMonth: card.expMonth,
    expYear: card.expYear,
    holder,
    brand: lookupBin(bin)?.brand ?? null,
    profile: outcomes.profileFor(number),
  };
}

/** The narrowest fixtures/bin-table.json range holding a BIN (brand, type, bank, country for tokens). */
export function lookupBin(bin: string): BinRange | undefined {
  let best: BinRange | undefined;
  for (const r of BIN_RANGES) {
    if (r.from <= bin && bin <= r.to && (!best || Number(r.to) - Number(r.from) < Number(best.to) - Number(best.from))) best = r;
  }
  return best;
}

export { cardMask, luhnValid, maskNumber } from "../../platform/cards.js";
