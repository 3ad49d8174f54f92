/**
 * Card payouts (docs/refunds-payouts.md#card-payouts, docs/webhooks.md, docs/refunds-payouts.md): funds sent to a
 * card, a transaction of kind `card_payout` on the one lifecycle. The card's payout column (or an
 * `operation: payout` rule) decides: an approving outcome answers PENDING and settles SUCCEED a
 * virtual minute later; a declining one answers FAILED at once with its declineCode. A payout
 * callback goes out for each status. The number and CVV are never stored: BIN, last 4, expiry and
 * holder only.
 *
 * LIMITATIONS:
 * - the interface names no currency for a card payout: the sandbox takes an optional `currency`,
 *   default the merchant's processingCurrency, else USD; no FX is applied to payouts.
 */
import type { Clock } from "../../platform/clock.js";
import type { Ids } from "../../platform/ids.js";
import { parseAmount } from "../../platform/money.js";
import type { OutcomeEngine } from "../../scenarios/outcome-engine.js";
import type { IdempotencyService, IdempotentResult } from "../idempotency/idempotency.service.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import { cardColumns, readCard } from "../payments/card.js";
import {
  deadlineOf,
  declineOf,
  pendingFirst,
  type TransactionLifecycle,
  type TransactionRow,
} from "../transactions/lifecycle.js";
import { amountColumns, newTransactionRow } from "../transactions/new-row.js";
import { presentPayout } from "./payouts.present.js";
import type { PayoutCallback, PayoutCreateResponse, PayoutRequest } from "./payouts.wire.js";

export interface PayoutDeps {
  clock: Clock;
  ids: Ids;
  outcomes: OutcomeEngine;
  idempotency: IdempotencyService;
  lifecycle: TransactionLifecycle;
}

export class PayoutService {
  constructor(private readonly deps: PayoutDeps) {}

  /**
   * docs/refunds-payouts.md#card-payouts, idempotent on requestId (operation "card_payout"). The mid, amount and card are
   * checked first (400 naming the field, nothing written), then the outcome, the row and its callback.
   */
  create(merchant: Merchant, body: PayoutRequest): IdempotentResult<PayoutCreateResponse> {
    requireOwnMerchant(merchant, "mid", body.mid);
    const currency = body.currency ?? merchant.processingCurrency ?? "USD";
    const amountMinor = parseAmount(body.amount, currency);
    const card = readCard({ ...body.card, cardHolderName: body.card.cardHolder }, this.deps.outcomes, this.deps.clock, "card");
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "card_payout", requestId: body.requestId },
      body,
      () => {
        const spec = pendingFirst(
          this.deps.outcomes.decide({
            profile: card.profile,
            flow: "payout",
            amountMinor,
            currency,
            threeDSRequested: false,
          }),
        );
        const now = this.deps.clock.nowMs();
        const declineCode = declineOf(spec);
        const due = deadlineOf(spec, now);
        const row = this.deps.lifecycle.create(
          newTransactionRow(now, {
            id: this.deps.ids.next("payout"),
            merchantKey: merchant.merchantKey,
            kind: "card_payout",
            requestId: body.requestId,
            status: spec.status,
            declineCode,
            ...cardColumns(card),
            ...amountColumns(amountMinor, currency),
            callbackUrl: body.callbackUrl ?? null,
            billingDetails: body.billingDetails ?? null,
            details: { userEmail: body.userEmail },
            metadata: body.metadata ?? null,
            ...due,
          }),
          merchant,
        );
        const out: PayoutCreateResponse = { transactionId: row.id, transactionStatus: spec.status };
        if (row.declineCode !== null) out.declineCode = row.declineCode;
        return out;
      },
    );
  }

  /** A merchant's card payout; unknown or another merchant's → 404 `Payout not found: <id>`. */
  getOwn(merchant: Merchant, id: string): TransactionRow {
    return this.deps.lifecycle.getOwn(merchant, id, ["card_payout"], "Payout");
  }

  info(merchant: Merchant, id: string): PayoutCallback {
    return presentPayout(this.getOwn(merchant, id), merchant);
  }
}
