/**
 * A request body as the recording may keep it (docs/recording.md): no card data.
 * - a card number (the value of `number`, `cardNumber`, `pan`, `applicationPrimaryAccountNumber`...
 *   when it is 12-19 digits, or any string of 12-19 digits that passes the Luhn check, wherever it
 *   sits, or a Luhn-valid run of 12-19 digits inside other text) becomes its mask, `411111******1111`,
 *   which export maps back to the test card that has it;
 * - a CVV (`cvv`, `cvc2`, `securityCode`...), a social security number and a wallet's cryptogram
 *   are dropped, key and all (export gives a card object the test CVV again); a wallet token's
 *   encrypted `paymentData.data` becomes a placeholder (the sandbox takes any non-empty string).
 */
import { CARD_NUMBER_KEY, CVV_KEY, luhnValid, maskNumber } from "../platform/cards.js";

/** What a wallet token's `paymentData.data` is recorded as. */
const WALLET_DATA_MARKER = "[masked]";

/** Dropped besides a CVV: a social security number, a wallet's cryptogram. */
const OTHER_SECRET_KEY = /cryptogram|^(socialSecurityNumber|ssn)$/i;
const droppedKey = (key: string) => CVV_KEY.test(key) || OTHER_SECRET_KEY.test(key);
/** A card object's `number` (CardSchema), or any key the APM echo masks too. */
const cardKey = (key: string | undefined) => key !== undefined && (key === "number" || CARD_NUMBER_KEY.test(key));
const DIGITS = /^\d{12,19}$/;
const DIGIT_RUN = /(?<!\d)\d{12,19}(?!\d)/g;

/** A copy of `value` with card numbers masked and CVVs dropped; values of other types as they are. */
export function redactForRecording(value: unknown, key?: string): unknown {
  if (typeof value === "string") {
    if (DIGITS.test(value)) return cardKey(key) || luhnValid(value) ? maskNumber(value) : value;
    // a card number inside other text (a note quoting the card)
    return value.replace(DIGIT_RUN, (run) => (luhnValid(run) ? maskNumber(run) : run));
  }
  // a card number sent as a JSON number (the API refuses it, but it was sent)
  if (typeof value === "number" && Number.isSafeInteger(value) && DIGITS.test(String(value))) {
    return redactForRecording(String(value), key);
  }
  if (Array.isArray(value)) return value.map((v) => redactForRecording(v));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (droppedKey(k)) continue;
      out[k] = key === "paymentData" && k === "data" && typeof v === "string" ? WALLET_DATA_MARKER : redactForRecording(v, k);
    }
    return out;
  }
  return value;
}

/**
 * In one pass: the CVV pair of a card object as the API takes it (`"cvv":"737"`, with the comma
 * before it), or a JSON string of 12-19 digits (group 1). Neither can hold the other.
 */
const CVV_PAIR_OR_DIGITS = /,?\s*"cvv"\s*:\s*"\d{0,8}"|"(\d{12,19})"/g;
/** The key a value at the end of this text is the value of. */
const KEY_BEFORE = /"([^"\\]*)"\s*:\s*$/;
/**
 * What the text path leaves to the structural one: escapes, wallet tokens, and whatever it could not
 * drop or mask. Tested one by one (leftOver): one alternation of them all, case-insensitive, scans
 * a card payment's body ~50% slower.
 */
const LEFT_OVER_KEYS = /paymentData|cvv|cvc|securitycode|security_code|cryptogram|socialSecurityNumber|"ssn"/i;
const LEFT_OVER_TEXT = [/\d{12}/, /,\s*[}\],]/, /[{[]\s*,/];
const leftOver = (text: string) => text.includes("\\") || LEFT_OVER_TEXT.some((r) => r.test(text)) || LEFT_OVER_KEYS.test(text);

/**
 * `JSON.stringify(redactForRecording(JSON.parse(text)))` for a JSON request body, on its text: a card
 * payment's body (its `"cvv":"737"`, its card number) is redacted in a few µs instead of a parse, a
 * walk and a stringify (the recording's cost on the payment path). Whatever the text path
 * cannot do surely (escapes, a wallet token, another CVV key, a CVV first in its object, a long digit
 * run that is no card number) goes the structural way; so does text that is not JSON, which is kept
 * as it is only when it holds no digit run a card number could be.
 */
export function redactJsonText(text: string): string {
  // one copy of the body, not one a pattern (the recording's allocations on the payment path)
  const out = text.replace(CVV_PAIR_OR_DIGITS, (m, digits: string | undefined, at: number) => {
    if (digits === undefined) return "";
    const key = KEY_BEFORE.exec(text.slice(Math.max(0, at - 64), at))?.[1];
    return cardKey(key) || luhnValid(digits) ? `"${maskNumber(digits)}"` : m;
  });
  if (!leftOver(out)) return out;
  try {
    return JSON.stringify(redactForRecording(JSON.parse(text)));
  } catch {
    return "null";
  }
}

/** A mask as `redactForRecording` writes it: `411111******1111`. */
export const MASK = /^\d{6}\*+\d{4}$/;
