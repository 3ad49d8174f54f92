/**
 * Card-number facts every layer may need (the scenario schema validates numbers, payments mask
 * them). Pure functions; a number never leaves here except as BIN and last 4.
 */

/** Luhn check of a 12-19 digit number (CONTRACT §3: other numbers → `Invalid field: card.number`). */
export const luhnValid = (number: string): boolean => {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
};

/** `cardMask` of callbacks and tokens (interface §2.2, §6.2): `411111******1111`. */
export const cardMask = (bin: string, last4: string): string => `${bin}******${last4}`;

/** The reason of `errors[]` (CONTRACT §3) for a card number that is not one. */
export const CARD_NUMBER_REASON = "expected 12-19 digits that pass the Luhn check (see the test cards)";
