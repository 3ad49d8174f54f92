/**
 * The BIN-derived fields of a token (docs/tokens.md: cardBrand, cardType, issuingBank,
 * cardCountry) from fixtures/bin-table.json. The narrowest matching range wins (so a test card's
 * own six-digit entry beats its scheme's range); a field the winning range leaves out is null.
 * The range search itself is the card module's `lookupBin`, shared with card payments.
 */
import { lookupBin } from "../payments/card.js";

export interface BinInfo {
  cardBrand: string | null;
  cardType: string | null;
  issuingBank: string | null;
  cardCountry: string | null;
}

const UNKNOWN: BinInfo = { cardBrand: null, cardType: null, issuingBank: null, cardCountry: null };

/** docs/tokens.md: what the BIN table knows about a card's first six digits. */
export function binInfo(bin: string): BinInfo {
  const r = lookupBin(bin);
  if (!r) return UNKNOWN;
  return { cardBrand: r.brand, cardType: r.type, issuingBank: r.issuingBank, cardCountry: r.country };
}
