/** Card numbers (CONTRACT §3 test cards): the Luhn check, shared by the card edge, scenarios and error reasons. */

/** 12-19 digits passing the Luhn (mod 10) check. */
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

/** The reason of `errors[]` (CONTRACT §3) for a card number that is not one. */
export const CARD_NUMBER_REASON = "expected 12-19 digits that pass the Luhn check (see the test cards)";
