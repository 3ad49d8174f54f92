/**
 * The wire shapes of APM transactions: the APM callback (payment and payout forms), which is
 * also the info record of both (a payout's create response equals its webhook body: docs/apm.md#payouts), the create
 * responses (docs/apm.md, docs/apm.md#payouts), and the two kinds' descriptors (signer rows `apm_payment`, `apm_payout`;
 * `apmType` = the method, added to the callback query, docs/webhooks.md).
 */
import { toIso } from "../../platform/clock.js";
import { declineName } from "../../platform/fixtures.js";
import { toMajorNumber } from "../../platform/money.js";
import type { Merchant } from "../merchants/merchants.service.js";
import type { KindDescriptor, TransactionRow } from "../transactions/lifecycle.js";
import { asStatus } from "../transactions/transitions.js";
import type {
  ApmCreateResponse,
  ApmPaymentCallback,
  ApmPayoutCallback,
  ApmRequestPayloadEcho,
  ApmResponseData,
} from "./apm.wire.js";

/** What an APM row keeps in `details`: only what callbacks echo, card data masked. */
export type ApmDetails = {
  /** The request's apmPayload as echoed (apmRequestPayload), with the HPP's fields: wallet token data and PANs masked. */
  apmPayload: ApmRequestPayloadEcho;
  apmResponseData: ApmResponseData;
  /** Fields the HPP still has to collect (empty once collected or when none were missing). */
  missing: string[];
};

/** An APM row's details (its create wrote them, in the shape above). */
export function detailsOf(row: TransactionRow): ApmDetails {
  if (row.details === null) throw new Error(`APM transaction ${row.id} has no details`);
  return row.details as ApmDetails;
}

/** declineSubReason: the stored one, else the decline code's name when FAILED (docs/apm.md#payouts). */
export const subReasonOf = (row: TransactionRow): string | null =>
  row.declineSubReason ?? (row.status === "FAILED" && row.declineCode !== null ? (declineName(row.declineCode) ?? null) : null);

/** The APM callback, payout form (docs/webhooks.md): no amounts, currencies or redirect URLs. */
export function presentApmPayout(row: TransactionRow, merchant: Pick<Merchant, "accountId">): ApmPayoutCallback {
  const d = detailsOf(row);
  return {
    transactionId: row.id,
    requestId: row.requestId,
    accountId: merchant.accountId,
    transactionStatus: asStatus(row.status),
    declineCode: row.declineCode,
    declineSubReason: subReasonOf(row),
    apmType: d.apmPayload.paymentMethod,
    apmRequestPayload: d.apmPayload,
    apmResponseData: d.apmResponseData,
    callbackUrl: row.callbackUrl,
    billingDetails: row.billingDetails ?? {},
    order: row.orderData ?? {},
    createdAt: toIso(row.createdAt),
    metadata: row.metadata ?? {},
  };
}

/** The APM callback, payment form (docs/webhooks.md): the payout fields plus amounts, currencies and redirect URLs. */
export function presentApmPayment(row: TransactionRow, merchant: Pick<Merchant, "accountId">): ApmPaymentCallback {
  return {
    ...presentApmPayout(row, merchant),
    orderCurrency: row.orderCurrency,
    processedCurrency: row.processedCurrency,
    orderAmount: toMajorNumber(row.orderAmount, row.orderCurrency),
    processedAmount: toMajorNumber(row.processedAmount, row.processedCurrency),
    conversionRate: Number(row.conversionRate),
    successRedirectUrl: row.successRedirectUrl,
    failureRedirectUrl: row.failureRedirectUrl,
  };
}

/** A row start() has just written: its first status and the apmResponseData it built. */
export type StartedApmRow = TransactionRow & {
  status: ApmCreateResponse["transactionStatus"];
  details: ApmDetails & { apmResponseData: ApmResponseData };
};

/** The create response of a pay-in or payout: optional fields only when they apply. */
export function presentCreate(row: StartedApmRow, payout: boolean): ApmCreateResponse {
  const out: ApmCreateResponse = {
    transactionId: row.id,
    requestId: row.requestId ?? "",
    transactionStatus: row.status,
    apmResponseData: row.details.apmResponseData,
  };
  if (row.declineCode !== null) out.declineCode = row.declineCode;
  const sub = subReasonOf(row);
  if (sub) out.declineSubReason = sub;
  if (payout) out.createdTime = toIso(row.createdAt);
  return out;
}

export const APM_DESCRIPTORS: KindDescriptor[] = [
  {
    kind: "apm_payment",
    callback: {
      kind: "apm_payment",
      present: (row, merchant) => presentApmPayment(row, merchant),
      apmType: (row) => row.paymentMethod ?? undefined,
    },
  },
  {
    kind: "apm_payout",
    callback: {
      kind: "apm_payout",
      present: (row, merchant) => presentApmPayout(row, merchant),
      apmType: (row) => row.paymentMethod ?? undefined,
    },
  },
];
