import { toIso } from "../../platform/clock.js";
import { toMajorNumber } from "../../platform/money.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { presentCardHead } from "../payments/present.js";
import type { KindDescriptor, TransactionRow } from "../transactions/lifecycle.js";
import type { PayoutCallback } from "./payouts.wire.js";

/** The card payout callback, field for field (docs/webhooks.md); the head's fields copied, not spread (as presentCallback). */
export function presentPayout(row: TransactionRow, merchant: Pick<Merchant, "mid">): PayoutCallback {
  const h = presentCardHead(row, merchant);
  return {
    transactionId: h.transactionId,
    requestId: h.requestId,
    mid: h.mid,
    transactionStatus: h.transactionStatus,
    declineCode: h.declineCode,
    cardMask: h.cardMask,
    cardHolder: h.cardHolder,
    totalAmount: toMajorNumber(row.processedAmount, row.processedCurrency),
    callbackUrl: row.callbackUrl,
    createdAt: toIso(row.createdAt),
  };
}

export const PAYOUT_DESCRIPTOR: KindDescriptor = {
  kind: "card_payout",
  callback: {
    kind: "card_payout",
    present: (row, merchant) => presentPayout(row, merchant),
  },
};
