/**
 * Card-number facts every layer may need (the scenario schema validates numbers, payments mask
 * them). Pure functions; a number never leaves here except as BIN, last 4 and length.
 */

/** Luhn check of a 12-19 digit number (docs/cards.md: other numbers → `Invalid field: card.number`). */
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

/**
 * `cardMask` of callbacks and tokens (docs/tokens.md, docs/webhooks.md): the first 6 digits, one `*` per hidden
 * digit and the last 4, so the mask keeps the number's length and tells a tester which card was
 * used (`411111******1111`; a 19-digit card shows 9 stars). A row stored before the length was kept
 * has none: it is masked as a 16-digit number, as it always was.
 */
export const cardMask = (bin: string, last4: string, length?: number | null): string =>
  `${bin}${"*".repeat(Math.max(0, (length ?? 16) - bin.length - last4.length))}${last4}`;

/** The mask of a whole number (a decrypted wallet PAN, a scenario's card), as `cardMask`. */
export const maskNumber = (number: string): string => cardMask(number.slice(0, 6), number.slice(-4), number.length);

/** A key that holds a card's security code (`cvv`, `cvc2`, `securityCode`, `card_cvv`): never kept. */
export const CVV_KEY = /(cvv|cvc|securitycode|security_code)/i;

/** A key that holds a card number (`cardNumber`, `pan`, `card_number`, `applicationPrimaryAccountNumber`): kept as a mask. */
export const CARD_NUMBER_KEY = /^(pan|.*card.?(number|no|num)|.*primaryaccountnumber)$/i;

/** The reason of `errors[]` (docs/cards.md) for a card number that is not one. */
export const CARD_NUMBER_REASON = "expected 12-19 digits that pass the Luhn check (see the test cards)";
