/**
 * The wire shapes of a refund: the refund callback, the info record, and the refund
 * kind's descriptor (signed with the `refund` row: transactionId, requestId, transactionStatus).
 * `transactionId` is the refunded transaction; `totalAmount` the processed-currency amount.
 */
import { toIso } from "../../platform/clock.js";
import { toMajorNumber } from "../../platform/money.js";
import type { Merchant } from "../merchants/merchants.service.js";
import type { KindDescriptor, TransactionRow } from "../transactions/lifecycle.js";
import { asStatus } from "../transactions/transitions.js";
import type { RefundCallback, RefundInfo } from "./refunds.wire.js";

/** The refund callback, field for field (docs/webhooks.md). */
export function presentRefundCallback(row: TransactionRow, merchant: Pick<Merchant, "mid">): RefundCallback {
  return {
    transactionId: row.parentId ?? "",
    refundId: row.id,
    requestId: row.requestId,
    mid: merchant.mid,
    transactionStatus: asStatus(row.status),
    declineCode: row.declineCode,
    totalAmount: toMajorNumber(row.processedAmount, row.processedCurrency),
    callbackUrl: row.callbackUrl,
    createdAt: toIso(row.createdAt),
  };
}

/** Refund info (docs/refunds-payouts.md#refunds): the stored record; declineCode only when FAILED. */
export function presentRefundInfo(row: TransactionRow, merchant: Pick<Merchant, "mid">): RefundInfo {
  const { declineCode, refundId, transactionId, ...rest } = presentRefundCallback(row, merchant);
  const info: RefundInfo = { refundId, transactionId, ...rest, metadata: row.metadata ?? null };
  if (row.status === "FAILED" && declineCode !== null) info.declineCode = declineCode;
  return info;
}

export const REFUND_DESCRIPTOR: KindDescriptor = {
  kind: "refund",
  callback: {
    kind: "refund",
    present: (row, merchant) => presentRefundCallback(row, merchant),
  },
};
