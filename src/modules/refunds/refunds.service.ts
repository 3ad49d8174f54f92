/**
 * Card refunds (docs/refunds-payouts.md#refunds, docs/webhooks.md, docs/refunds-payouts.md): whole or partial
 * refunds of a SUCCEED card transaction of the same merchant, each a transaction of kind `refund`
 * on the one lifecycle (PENDING, SUCCEED a virtual minute later, or what an `operation: refund`
 * rule says). When the SUCCEED refunds reach the order amount the original becomes REFUNDED, with
 * its own card callback.
 *
 * FX (docs/refunds-payouts.md#refunds): a refund of a converted payment refunds its share of the processed amount,
 * rounded half up in the processed currency; the refund that brings the refunds (not FAILED) to the
 * order amount gets exactly what is left, so the parts always add up to processedAmount.
 *
 * LIMITATIONS:
 * - refunds of APM payments are not offered (card transactions only, docs/refunds-payouts.md);
 * - a refund that later FAILS frees its amount again, but the FX remainder given to an earlier "last"
 *   refund is not recomputed.
 */

import { type Behaviour, cause } from "../../platform/behaviours.js";
import type { Clock } from "../../platform/clock.js";
import { asBehaviour, invalidField } from "../../platform/errors.js";
import type { Ids } from "../../platform/ids.js";
import { formatAmount, parseAmount } from "../../platform/money.js";
import type { OutcomeEngine } from "../../scenarios/outcome-engine.js";
import type { IdempotencyService, IdempotentResult } from "../idempotency/idempotency.service.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import {
  deadlineOf,
  declineOf,
  pendingFirst,
  type TransactionLifecycle,
  type TransactionRow,
} from "../transactions/lifecycle.js";
import { amountColumns, newTransactionRow } from "../transactions/new-row.js";
import { presentRefundInfo } from "./refunds.present.js";
import type { RefundCreateResponse, RefundInfo, RefundRequest } from "./refunds.wire.js";

/** Kinds a refund may refund (docs/refunds-payouts.md). */
export const REFUNDABLE_KINDS = ["card_payment", "card_charge", "subscription_charge"] as const;

/** A refund refused because it is more than what is left to refund (docs/coverage.md): nothing else records a refusal. */
export const REFUND_OVER_REMAINDER: Behaviour = {
  id: "refund.refused.over-remainder",
  area: "refunds",
  title: "A refund refused: more than what is left to refund (400)",
  cause: cause({ act: "pay" }, { act: "refund", amount: "too much" }),
};

export interface RefundDeps {
  clock: Clock;
  ids: Ids;
  outcomes: OutcomeEngine;
  idempotency: IdempotencyService;
  lifecycle: TransactionLifecycle;
}

/** `part` of `whole` applied to `of`, rounded half up: exact integer arithmetic. */
export function shareOf(part: number, whole: number, of: number): number {
  const num = BigInt(part) * BigInt(of);
  const den = BigInt(whole);
  return Number((2n * num + den) / (2n * den));
}

export class RefundService {
  constructor(private readonly deps: RefundDeps) {}

  /**
   * docs/refunds-payouts.md#refunds, idempotent on requestId (operation "refund"). Inside one IMMEDIATE
   * transaction: the original (unknown or another merchant's → 404 `Transaction not found: <id>`;
   * not SUCCEED → 400 `Invalid field: transactionId`), the amount at the order currency's precision
   * and within what is left (else 400 `Invalid field: amount`), the outcome, the row and its
   * PENDING callback. Concurrent refunds are serialized by the transaction, so together they never
   * exceed the order amount.
   */
  create(merchant: Merchant, body: RefundRequest): IdempotentResult<RefundCreateResponse> {
    requireOwnMerchant(merchant, "mid", body.mid);
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "refund", requestId: body.requestId },
      body,
      () => {
        const { lifecycle } = this.deps;
        const parent = lifecycle.getOwn(merchant, body.transactionId, REFUNDABLE_KINDS);
        if (parent.status !== "SUCCEED") throw invalidField("transactionId");
        const amountMinor = parseAmount(body.amount, parent.orderCurrency);
        const refunded = lifecycle.refundTotals(parent.id);
        const left = parent.orderAmount - refunded.orderAmount;
        if (amountMinor > left) {
          const cur = parent.orderCurrency;
          throw asBehaviour(
            invalidField(
              "amount",
              `${formatAmount(amountMinor, cur)} is more than the ${formatAmount(left, cur)} left to refund`,
            ),
            REFUND_OVER_REMAINDER.id,
          );
        }
        const processedAmount =
          amountMinor === left
            ? parent.processedAmount - refunded.processedAmount
            : shareOf(amountMinor, parent.orderAmount, parent.processedAmount);
        const spec = pendingFirst(
          this.deps.outcomes.decide({
            profile: parent.cardProfile ?? "",
            flow: "refund",
            amountMinor,
            currency: parent.orderCurrency,
            threeDSRequested: false,
          }),
        );
        const now = this.deps.clock.nowMs();
        const status = spec.status;
        const declineCode = declineOf(spec);
        const due = deadlineOf(spec, now);
        const row = lifecycle.create(
          newTransactionRow(now, {
            id: this.deps.ids.next("refund"),
            merchantKey: merchant.merchantKey,
            kind: "refund",
            requestId: body.requestId,
            status,
            declineCode,
            cardBin: parent.cardBin,
            cardLast4: parent.cardLast4,
            cardLength: parent.cardLength,
            cardBrand: parent.cardBrand,
            parentId: parent.id,
            subscriptionId: parent.subscriptionId,
            ...amountColumns(amountMinor, parent.orderCurrency, {
              processedCurrency: parent.processedCurrency,
              processedAmount,
              conversionRate: parent.conversionRate,
            }),
            callbackUrl: body.callbackUrl ?? null,
            details: { reason: body.reason },
            metadata: body.metadata ?? null,
            ...due,
          }),
          merchant,
        );
        const out: RefundCreateResponse = { refundId: row.id, transactionStatus: status };
        if (row.declineCode !== null) out.declineCode = row.declineCode;
        return out;
      },
    );
  }

  /** A merchant's refund; unknown or another merchant's → 404 `Refund not found: <id>`. */
  getOwn(merchant: Merchant, id: string): TransactionRow {
    return this.deps.lifecycle.getOwn(merchant, id, ["refund"], "Refund");
  }

  info(merchant: Merchant, id: string): RefundInfo {
    return presentRefundInfo(this.getOwn(merchant, id), merchant);
  }

  /**
   * A lifecycle settled listener, inside its transaction: when a refund succeeds and the SUCCEED
   * refunds reach the order amount, the original becomes REFUNDED with its card callback (docs/refunds-payouts.md).
   */
  onSettled(row: TransactionRow): void {
    if (row.kind !== "refund" || row.status !== "SUCCEED" || !row.parentId) return;
    const { lifecycle } = this.deps;
    const parent = lifecycle.get(row.parentId);
    if (parent?.status !== "SUCCEED") return;
    if (lifecycle.refundTotals(parent.id, "SUCCEED").orderAmount >= parent.orderAmount) {
      lifecycle.transition(parent, "REFUNDED", null, "refunds");
    }
  }
}
