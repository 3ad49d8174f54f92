/**
 * Card authorizations and their lifecycle (interface §3.1, §4.3, §6.2; CONTRACT §3): card
 * payments, and the same engine for one-click and subscription charges. Outcomes come only from
 * the outcome engine; every status the API returns, and the final one, is reported by a card
 * callback enqueued in the same database transaction as the change.
 *
 * Waiting states and how they end:
 * - CUSTOMER_VERIFICATION: the 3DS page (success → SUCCEED, failure → FAILED 3), or 30 virtual
 *   minutes without an answer → FAILED 4 (FORM_TIMEOUT_ERROR);
 * - PROCESSING/PENDING: `completeAfter` by the clock, or the control plane's complete call.
 *
 * LIMITATIONS:
 * - the card mask always hides 6 digits (the number's length is not kept);
 * - a PROCESSING outcome without `completeAfter` waits for the complete call forever.
 */
import type { Db } from "../../db/client.js";
import { inTransaction } from "../../db/client.js";
import type { Clock } from "../../platform/clock.js";
import { addDuration, parseDuration } from "../../platform/duration.js";
import { conflict, notFound } from "../../platform/errors.js";
import type { OutcomeSpec } from "../../platform/fixtures.js";
import type { Ids } from "../../platform/ids.js";
import type { CompleteInput, CompleteResult, TransactionCompletions } from "../../sandbox/transactions.service.js";
import type { Flow, OutcomeEngine } from "../../scenarios/outcome-engine.js";
import type { DueWork, DueWorkRunner } from "../../scheduler/due-work.js";
import type { Outbox } from "../../webhooks/outbox.js";
import type { Merchant, MerchantService } from "../merchants/merchants.service.js";
import type { CardOnFile } from "./card.js";
import type { FxRates } from "./fx.js";
import { CARD_KINDS, type CardKind, PaymentsRepo, type TransactionRow } from "./payments.repo.js";
import { type CardCallback, presentCallback } from "./present.js";

/** An unanswered 3DS challenge fails after this long (virtual time). */
export const CHALLENGE_TIMEOUT_MS = 30 * 60_000;

export const DECLINE = {
  REJECTED_BY_ISSUER: 2,
  THREE_DS_AUTHENTICATION: 3,
  FORM_TIMEOUT: 4,
  CURRENCY_EXCHANGE_NOT_ALLOWED: 15,
} as const;

const WAITING = new Set(["CUSTOMER_VERIFICATION", "PROCESSING", "PENDING"]);
const COMPLETABLE = new Set(["PROCESSING", "PENDING"]);

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
  /**
   * Send §6.2 card callbacks for this transaction (now and when it settles). False for scheduled
   * subscription charges, whose §6.5 callback the subscription area sends; the row then keeps
   * no callbackUrl.
   */
  cardCallback: boolean;
}

export interface PaymentResult {
  transactionId: string;
  transactionStatus: string;
  declineCode?: number;
  challengeUrl?: string;
  challengeUrlIframe?: string;
  row: TransactionRow;
}

export type SettledListener = (row: TransactionRow) => void;

export interface PaymentDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  outbox: Outbox;
  outcomes: OutcomeEngine;
  fx: FxRates;
  merchants: MerchantService;
  work: DueWorkRunner;
  completions: TransactionCompletions;
  publicUrl: () => string;
}

export class PaymentService {
  private readonly repo: PaymentsRepo;
  private readonly listeners: SettledListener[] = [];

  constructor(private readonly deps: PaymentDeps) {
    this.repo = new PaymentsRepo(deps.db);
    deps.work.register(this.dueWork());
    deps.completions.register(CARD_KINDS, (id, input) => this.complete(id, input));
  }

  /**
   * Authorizes one card transaction (interface §4.3; CONTRACT §3, §6). Synchronous: call it INSIDE
   * a database transaction (the idempotency.run callback), then `ctx.work.poke()` after commit.
   * Runs the outcome engine, applies FX, inserts the row, enqueues its callback, and sets the
   * deadline of a waiting state.
   */
  authorize(input: AuthorizeInput): PaymentResult {
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
    const declineCode = status === "FAILED" ? (spec.declineCode ?? DECLINE.REJECTED_BY_ISSUER) : null;
    const due = deadline(spec, now);
    const row: TransactionRow = {
      id,
      merchantKey: merchant.merchantKey,
      kind: input.kind,
      requestId: input.requestId,
      status,
      declineCode,
      cardBin: card.bin,
      cardLast4: card.last4,
      cardExpMonth: card.expMonth,
      cardExpYear: card.expYear,
      cardHolder: card.holder,
      cardBrand: card.brand,
      cardProfile: card.profile,
      tokenId: input.tokenId ?? null,
      parentId: null,
      paymentMethod: null,
      declineSubReason: null,
      details: null,
      subscriptionId: input.subscriptionId ?? null,
      orderCurrency: input.currency,
      orderAmount: input.amountMinor,
      processedCurrency: fx?.processedCurrency ?? input.currency,
      processedAmount: fx?.processedAmount ?? input.amountMinor,
      conversionRate: fx?.conversionRate ?? "1",
      threeDs: status === "CUSTOMER_VERIFICATION",
      lang: input.lang ?? null,
      callbackUrl: input.cardCallback ? input.callbackUrl : null,
      successRedirectUrl: input.successRedirectUrl,
      failureRedirectUrl: input.failureRedirectUrl,
      billingDetails: input.billingDetails ?? null,
      orderData: input.order ?? null,
      device: input.device ?? null,
      metadata: input.metadata ?? null,
      dueAt: due?.at ?? null,
      dueStatus: due?.status ?? null,
      dueDeclineCode: due?.declineCode ?? null,
      createdAt: now,
      updatedAt: now,
    };
    this.repo.insert(row);
    this.notify(row, merchant);
    const result: PaymentResult = { transactionId: id, transactionStatus: status, row };
    if (declineCode !== null) result.declineCode = declineCode;
    if (status === "CUSTOMER_VERIFICATION") {
      result.challengeUrl = this.challengeUrl(id);
      result.challengeUrlIframe = `${result.challengeUrl}?mode=iframe`;
    }
    return result;
  }

  /**
   * Listeners run inside the same database transaction whenever a transaction leaves
   * CUSTOMER_VERIFICATION/PROCESSING/PENDING for a final status (subscriptions activate or drop
   * a subscription whose first charge needed 3DS).
   */
  onSettled(listener: SettledListener): void {
    this.listeners.push(listener);
  }

  /** Interface §6.2: the card callback body of a row (also the info record, CONTRACT §3). */
  present(row: TransactionRow): CardCallback {
    return presentCallback(row, this.merchantOf(row));
  }

  /** `{publicUrl}/sandbox/3ds/{id}` (CONTRACT §3 3DS challenge page). */
  challengeUrl(id: string): string {
    return `${this.deps.publicUrl()}/sandbox/3ds/${encodeURIComponent(id)}`;
  }

  /** A merchant's card transaction; another merchant's or an unknown id → 404 (CONTRACT §3). */
  getOwn(merchant: Merchant, id: string): TransactionRow {
    const row = this.repo.byId(id);
    if (!row || row.merchantKey !== merchant.merchantKey || !isCardKind(row.kind)) throw notFound(`Transaction not found: ${id}`);
    return row;
  }

  /** The transaction behind a 3DS page, with its merchant; unknown → 404. Reads only. */
  challenge(id: string): { row: TransactionRow; merchant: Merchant } {
    const row = this.repo.byId(id);
    if (!row || !isCardKind(row.kind)) throw notFound(`Transaction not found: ${id}`);
    return { row, merchant: this.merchantOf(row) };
  }

  /**
   * The shopper's answer on the 3DS page (CONTRACT §3): success → SUCCEED, failure → FAILED 3,
   * with the webhook. Only from CUSTOMER_VERIFICATION, else 409 and nothing changes.
   */
  answerChallenge(id: string, outcome: "success" | "failure"): TransactionRow {
    const row = inTransaction(this.deps.db, () => {
      const current = this.repo.byId(id);
      if (!current || !isCardKind(current.kind)) throw notFound(`Transaction not found: ${id}`);
      if (current.status !== "CUSTOMER_VERIFICATION") {
        throw conflict(`Transaction ${id} is ${current.status}, no longer waiting for the customer`);
      }
      return outcome === "success"
        ? this.settle(current, "SUCCEED", null)
        : this.settle(current, "FAILED", DECLINE.THREE_DS_AUTHENTICATION);
    });
    this.deps.work.poke();
    return row;
  }

  /** CONTRACT §4 complete: PROCESSING/PENDING → SUCCEED or FAILED (default declineCode 2), else 409. */
  complete(id: string, input: CompleteInput): CompleteResult {
    const row = inTransaction(this.deps.db, () => {
      const current = this.repo.byId(id);
      if (!current || !isCardKind(current.kind)) throw notFound(`Transaction not found: ${id}`);
      if (!COMPLETABLE.has(current.status)) {
        throw conflict(`Transaction ${id} is ${current.status}; only PROCESSING or PENDING can be completed`);
      }
      const code = input.status === "FAILED" ? (input.declineCode ?? DECLINE.REJECTED_BY_ISSUER) : null;
      return this.settle(current, input.status, code);
    });
    this.deps.work.poke();
    return { transactionId: row.id, transactionStatus: row.status, declineCode: row.declineCode };
  }

  /** Settles what is due by `now`: challenge timeouts and `completeAfter` completions. */
  runDue(now: number): number {
    let n = 0;
    for (const due of this.repo.dueBy(now, 200)) {
      inTransaction(this.deps.db, () => {
        const current = this.repo.byId(due.id);
        if (!current || current.dueAt === null || current.dueAt > now) return;
        if (!WAITING.has(current.status) || (current.dueStatus !== "SUCCEED" && current.dueStatus !== "FAILED")) {
          this.repo.clearDue(current.id);
          return;
        }
        this.settle(current, current.dueStatus, current.dueStatus === "FAILED" ? (current.dueDeclineCode ?? 2) : null);
        n++;
      });
    }
    return n;
  }

  private dueWork(): DueWork {
    return {
      name: "card-payments",
      nextDueAt: () => this.repo.nextDueAt(),
      run: (now) => ({ completions: this.runDue(now) }),
    };
  }

  /** Inside a transaction: the final status, its callback, then the listeners. */
  private settle(row: TransactionRow, status: "SUCCEED" | "FAILED", declineCode: number | null): TransactionRow {
    const now = this.deps.clock.nowMs();
    this.repo.settle(row.id, { status, declineCode, updatedAt: now });
    const updated: TransactionRow = {
      ...row,
      status,
      declineCode,
      dueAt: null,
      dueStatus: null,
      dueDeclineCode: null,
      updatedAt: now,
    };
    this.notify(updated, this.merchantOf(updated));
    for (const l of this.listeners) l(updated);
    return updated;
  }

  private notify(row: TransactionRow, merchant: Merchant): void {
    if (!row.callbackUrl) return;
    this.deps.outbox.enqueue({
      merchant,
      kind: "card_payment",
      callbackUrl: row.callbackUrl,
      paymentMethod: "card",
      transactionId: row.id,
      eventStatus: row.status,
      body: presentCallback(row, merchant) as unknown as Record<string, unknown>,
    });
  }

  private merchantOf(row: TransactionRow): Merchant {
    const m = this.deps.merchants.byKey(row.merchantKey);
    if (!m) throw notFound(`Merchant of transaction ${row.id} no longer exists`);
    return m;
  }
}

const isCardKind = (kind: string): boolean => (CARD_KINDS as readonly string[]).includes(kind);

/** When and how a waiting outcome ends by itself. */
function deadline(
  spec: OutcomeSpec,
  now: number,
): { at: number; status: "SUCCEED" | "FAILED"; declineCode: number | null } | undefined {
  if (spec.status === "CUSTOMER_VERIFICATION") {
    return { at: now + CHALLENGE_TIMEOUT_MS, status: "FAILED", declineCode: DECLINE.FORM_TIMEOUT };
  }
  if ((spec.status === "PROCESSING" || spec.status === "PENDING") && spec.completeAfter) {
    const d = parseDuration(spec.completeAfter);
    if (!d) return undefined;
    // a declineCode on a waiting outcome without completeWith means it ends declined
    const status = spec.completeWith ?? (spec.declineCode !== undefined ? "FAILED" : "SUCCEED");
    return {
      at: addDuration(now, d),
      status,
      declineCode: status === "FAILED" ? (spec.declineCode ?? DECLINE.REJECTED_BY_ISSUER) : null,
    };
  }
  return undefined;
}
