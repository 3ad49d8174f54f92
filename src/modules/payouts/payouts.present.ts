/**
 * The wire shape of a card payout: the payout callback, also its info record (docs/refunds-payouts.md), and the
 * payout kind's descriptor (signed with the `card_payout` row: transactionId, requestId,
 * transactionStatus).
 */
import { cardMask } from "../../platform/cards.js";
import { toIso } from "../../platform/clock.js";
import { toMajorNumber } from "../../platform/money.js";
import type { Merchant } from "../merchants/merchants.service.js";
import type { KindDescriptor, TransactionRow } from "../transactions/lifecycle.js";
import type { PayoutCallback } from "./payouts.wire.js";

/** The card payout callback, field for field (docs/webhooks.md). */
export function presentPayout(row: TransactionRow, merchant: Pick<Merchant, "mid">): PayoutCallback {
  return {
    transactionId: row.id,
    requestId: row.requestId,
    mid: merchant.mid,
    transactionStatus: row.status,
    declineCode: row.declineCode,
    cardMask: cardMask(row.cardBin ?? "", row.cardLast4 ?? "", row.cardLength),
    cardHolder: row.cardHolder,
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
