/**
 * A request body as the recording may keep it (CONTRACT §10; issue 22): no card data.
 * - a card number (the value of `number`, `cardNumber`, `pan`, `applicationPrimaryAccountNumber`...
 *   when it is 12-19 digits, or any string of 12-19 digits that passes the Luhn check, wherever it
 *   sits) becomes its mask, `411111******1111`, which export maps back to the test card that has it;
 * - a CVV (`cvv`, `cvc2`, `securityCode`...), a social security number and a wallet's cryptogram
 *   are dropped, key and all (export gives a card object the test CVV again); a wallet token's
 *   encrypted `paymentData.data` becomes a placeholder (the sandbox takes any non-empty string).
 */
import { luhnValid, maskNumber } from "../platform/cards.js";

/** What a wallet token's `paymentData.data` is recorded as. */
export const WALLET_DATA_MARKER = "[masked]";

const DROPPED_KEY = /(cvv|cvc|securitycode|security_code|cryptogram)|^(socialSecurityNumber|ssn)$/i;
const CARD_KEY = /^(number|pan|.*card.?(number|no|num)|.*primaryaccountnumber)$/i;
const DIGITS = /^\d{12,19}$/;

/** A copy of `value` with card numbers masked and CVVs dropped; values of other types as they are. */
export function redactForRecording(value: unknown, key?: string): unknown {
  if (typeof value === "string") {
    if (DIGITS.test(value) && ((key !== undefined && CARD_KEY.test(key)) || luhnValid(value))) return maskNumber(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => redactForRecording(v));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (DROPPED_KEY.test(k)) continue;
      out[k] = key === "paymentData" && k === "data" && typeof v === "string" ? WALLET_DATA_MARKER : redactForRecording(v, k);
    }
    return out;
  }
  return value;
}

/** A mask as `redactForRecording` writes it: `411111******1111`. */
export const MASK = /^\d{6}\*+\d{4}$/;
