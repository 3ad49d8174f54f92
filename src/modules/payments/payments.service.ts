/**
 * Card authorizations (docs/lifecycles.md, docs/cards.md, docs/webhooks.md): card payments, and the same
 * engine for one-click and subscription charges. Outcomes come only from the outcome engine; the
 * row, its callbacks and its deadlines go through the one transaction lifecycle.
 *
 * Waiting states and how they end:
 * - CUSTOMER_VERIFICATION: the 3DS page (success → SUCCEED, failure → FAILED 3), or 30 virtual
 *   minutes without an answer → FAILED 4 (FORM_TIMEOUT_ERROR);
 * - PROCESSING/PENDING: `completeAfter` by the clock, or the control plane's complete call.
 *
 * LIMITATIONS:
 * - a PROCESSING outcome without `completeAfter` waits for the complete call forever.
 */
import type { Db } from "../../db/client.js";
import { inBatch, inTransaction } from "../../db/commit.js";
import type { Clock } from "../../platform/clock.js";
import { conflict, notFound } from "../../platform/errors.js";
import type { OutcomeSpec } from "../../platform/fixtures.js";
import type { Ids } from "../../platform/ids.js";
import { parseAmount, toMajorNumber } from "../../platform/money.js";
import type { Flow, OutcomeEngine } from "../../scenarios/outcome-engine.js";
import type { IdempotencyService, IdempotentResult } from "../idempotency/idempotency.service.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import { DECLINE, deadlineOf, declineOf, type TransactionLifecycle, type TransactionRow } from "../transactions/lifecycle.js";
import { amountColumns, newTransactionRow } from "../transactions/new-row.js";
import type { KeyColumns } from "../transactions/transactions.repo.js";
import { type CardOnFile, cardColumns, readCard } from "./card.js";
import type { FxRates } from "./fx.js";
import type { CardInfo, CardPaymentRequest, CardPaymentResponse } from "./payments.wire.js";
import { presentCallback } from "./present.js";

export { CHALLENGE_TIMEOUT_MS, DECLINE } from "../transactions/lifecycle.js";

/** Kinds this module authorizes: card payments, one-click charges, subscription charges. */
export const CARD_KINDS = ["card_payment", "card_charge", "subscription_charge"] as const;
export type CardKind = (typeof CARD_KINDS)[number];

export interface AuthorizeInput {
  merchant: Merchant;
  kind: CardKind;
  requestId: string | null;
  card: CardOnFile;
  /** Order amount (minor units) and currency, as the merchant sent them. */
  amountMinor: number;
  currency: string;
  flow: Flow;
  threeDSRequested: boolean;
  /** Where card callbacks go; null sends none (scheduled subscription charges: their callback is the subscription's). */
  callbackUrl: string | null;
  successRedirectUrl: string | null;
  failureRedirectUrl: string | null;
  lang?: string | null | undefined;
  billingDetails?: Record<string, unknown> | null | undefined;
  order?: Record<string, unknown> | null | undefined;
  device?: Record<string, unknown> | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  tokenId?: string | null | undefined;
  subscriptionId?: string | null | undefined;
}

export type PaymentResult = CardPaymentResponse & { row: TransactionRow };

export type { CardInfo };

/** What a payment service needs: the card one (this file) and the APM one (src/modules/apm/apm.service.ts). */
export interface PaymentDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  outcomes: OutcomeEngine;
  fx: FxRates;
  idempotency: IdempotencyService;
  lifecycle: TransactionLifecycle;
  publicUrl: () => string;
}

export class PaymentService {
  constructor(private readonly deps: PaymentDeps) {}

  /**
   * docs/cards.md, the one use case behind POST /payments/card: the merchant's own mid, the amount
   * at the currency's precision and the card checked first (400 naming the field, nothing written),
   * then, idempotently on requestId (operation "card_payment"), the authorization: the payment is
   * decided and written with its event, its callback and its key (src/db/commit.ts `inSqliteWhole`),
   * unless the requestId already has a key: then nothing is written, and the first answer kept under
   * it is replayed (or 409 for another body). No look-up before the write: a create pays none.
   */
  createCardPayment(merchant: Merchant, body: CardPaymentRequest): IdempotentResult<CardPaymentResponse> {
    requireOwnMerchant(merchant, "mid", body.mid);
    const amountMinor = parseAmount(body.amount, body.currency);
    const card = readCard(body.card, this.deps.outcomes, this.deps.clock);
    const { idempotency } = this.deps;
    const key = { merchantKey: merchant.merchantKey, operation: "card_payment", requestId: body.requestId };
    const bodyHash = idempotency.hash(body);
    return inBatch(this.deps.db, () => {
      const made = this.decide(
        {
          merchant,
          kind: "card_payment",
          requestId: body.requestId,
          card,
          amountMinor,
          currency: body.currency,
          flow: "payment",
          threeDSRequested: body.card.requestThreeDSecure,
          callbackUrl: body.callbackUrl ?? null,
          successRedirectUrl: body.successRedirectUrl ?? null,
          failureRedirectUrl: body.failureRedirectUrl ?? null,
          lang: body.lang,
          billingDetails: body.billingDetails,
          order: body.order,
          device: body.device,
          metadata: body.metadata ?? null,
        },
        { operation: "card_payment", bodyHash },
      );
      if (made) return { body: made.response, replayed: false };
      const first = idempotency.replay<CardPaymentResponse>(key, bodyHash);
      // the key the write found is in this very transaction: it cannot be gone
      if (first === undefined) throw new Error(`idempotency key of ${key.requestId} not found after a conflict`);
      return { body: first, replayed: true };
    });
  }

  /**
   * Authorizes one card transaction (docs/cards.md, docs/scenarios.md). Synchronous: call it INSIDE
   * a database transaction (the idempotency.run callback). Runs the outcome engine, applies FX,
   * and hands the row to the lifecycle (its callback, the deadline of a waiting state).
   */
  authorize(input: AuthorizeInput): PaymentResult {
    const { response, row } = this.decide(input) as { response: CardPaymentResponse; row: TransactionRow };
    return Object.assign(response, { row });
  }

  /**
   * The authorization itself: the outcome, the row, the create's answer and its callback, written by
   * the lifecycle with `key` (the create's idempotency key, kept with that answer); undefined when
   * the key's requestId was already taken (nothing written). Without a key, never undefined.
   */
  private decide(
    input: AuthorizeInput,
    key?: Omit<KeyColumns, "response">,
  ): { response: CardPaymentResponse; row: TransactionRow } | undefined {
    const { merchant, card } = input;
    const now = this.deps.clock.nowMs();
    const id = this.deps.ids.next("transaction");
    const fx = this.deps.fx.apply(input.amountMinor, input.currency, merchant.processingCurrency);
    const spec: OutcomeSpec = fx
      ? this.deps.outcomes.decide({
          profile: card.profile,
          flow: input.flow,
          amountMinor: input.amountMinor,
          currency: input.currency,
          threeDSRequested: input.threeDSRequested,
        })
      : { status: "FAILED", declineCode: DECLINE.CURRENCY_EXCHANGE_NOT_ALLOWED };
    const status = spec.status;
    const declineCode = declineOf(spec);
    const due = deadlineOf(spec, now);
    const row = newTransactionRow(now, {
      id,
      merchantKey: merchant.merchantKey,
      kind: input.kind,
      requestId: input.requestId,
      status,
      declineCode,
      tokenId: input.tokenId ?? null,
      subscriptionId: input.subscriptionId ?? null,
      threeDs: status === "CUSTOMER_VERIFICATION",
      lang: input.lang ?? null,
      callbackUrl: input.callbackUrl,
      successRedirectUrl: input.successRedirectUrl,
      failureRedirectUrl: input.failureRedirectUrl,
      billingDetails: input.billingDetails ?? null,
      orderData: input.order ?? null,
      device: input.device ?? null,
      metadata: input.metadata ?? null,
    });
    // the card's, the amounts' and the deadline's columns stored into the row's own (a literal with
    // spreads builds its object property by property: ~0.5 KB more a payment)
    Object.assign(row, cardColumns(card), amountColumns(input.amountMinor, input.currency, fx), due);
    // the create's answer (docs/cards.md): optional fields only when they apply
    const response: CardPaymentResponse = { transactionId: id, transactionStatus: status };
    if (declineCode !== null) response.declineCode = declineCode;
    if (status === "CUSTOMER_VERIFICATION") {
      response.challengeUrl = this.challengeUrl(id);
      response.challengeUrlIframe = `${response.challengeUrl}?mode=iframe`;
    }
    // presented here, where its kind is known: the lifecycle below calls nothing back up
    const callback = row.callbackUrl ? presentCallback(row, merchant) : undefined;
    if (!key) {
      this.deps.lifecycle.create(row, merchant, { callback });
      return { response, row };
    }
    const written = this.deps.lifecycle.create(row, merchant, {
      callback,
      key: { operation: key.operation, bodyHash: key.bodyHash, response: JSON.stringify(response) },
    });
    return written ? { response, row } : undefined;
  }

  /** Card payment info (docs/cards.md): the callback shape with declineCode and refundedAmount. */
  info(row: TransactionRow): CardInfo {
    const refunded = this.deps.lifecycle.refundTotals(row.id).orderAmount;
    return {
      ...presentCallback(row, this.deps.lifecycle.merchantOf(row)),
      refundedAmount: toMajorNumber(refunded, row.orderCurrency),
    };
  }

  /** `{publicUrl}/sandbox/3ds/{id}` (docs/cards.md#3ds-challenge). */
  challengeUrl(id: string): string {
    return `${this.deps.publicUrl()}/sandbox/3ds/${encodeURIComponent(id)}`;
  }

  /** A merchant's card transaction; another merchant's or an unknown id → 404 (docs/cards.md). */
  getOwn(merchant: Merchant, id: string): TransactionRow {
    return this.deps.lifecycle.getOwn(merchant, id, CARD_KINDS);
  }

  /** The transaction behind a 3DS page, with its merchant; unknown → 404. Reads only. */
  challenge(id: string): { row: TransactionRow; merchant: Merchant } {
    const row = this.cardRow(id);
    return { row, merchant: this.deps.lifecycle.merchantOf(row) };
  }

  /**
   * The shopper's answer on the 3DS page (docs/cards.md): success → SUCCEED, failure → FAILED 3,
   * with the webhook. Only from CUSTOMER_VERIFICATION, else 409 and nothing changes.
   */
  answerChallenge(id: string, outcome: "success" | "failure"): TransactionRow {
    return inTransaction(this.deps.db, () => {
      const current = this.cardRow(id);
      if (current.status !== "CUSTOMER_VERIFICATION") {
        throw conflict(`Transaction ${id} is ${current.status}, no longer waiting for the customer`);
      }
      return outcome === "success"
        ? this.deps.lifecycle.settle(current, "SUCCEED", null, "3ds page")
        : this.deps.lifecycle.settle(current, "FAILED", DECLINE.THREE_DS_AUTHENTICATION, "3ds page");
    });
  }

  private cardRow(id: string): TransactionRow {
    const row = this.deps.lifecycle.get(id);
    if (!row || !(CARD_KINDS as readonly string[]).includes(row.kind)) throw notFound(`Transaction not found: ${id}`);
    return row;
  }
}
