import { toIso } from "../../platform/clock.js";
import { toMajorNumber } from "../../platform/money.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { presentCardHead } from "../payments/present.js";
import type { KindDescriptor, TransactionRow } from "../transactions/lifecycle.js";
import type { PayoutCallback } from "./payouts.wire.js";

/** The card payout callback, field for field (docs/webhooks.md). */
export function presentPayout(row: TransactionRow, merchant: Pick<Merchant, "mid">): PayoutCallback {
  return {
    ...presentCardHead(row, merchant),
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
