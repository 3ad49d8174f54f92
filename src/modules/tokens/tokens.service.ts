/**
 * Card tokens and one-click charges (docs/tokens.md, docs/api.md#errors). A token keeps
 * what a card-on-file may keep (BIN, last 4, expiry, holder, BIN data, outcome profile), the
 * billing details and metadata given at tokenization, and belongs to one merchant. A one-click
 * charge resolves the token and then runs exactly the card payment path (`payments.authorize`).
 *
 * LIMITATIONS:
 * - tokenization sends no webhook and starts no 3DS (docs/tokens.md); every test card
 *   tokenizes, outcomes differ at charge time;
 * - socialSecurityNumber is accepted and dropped, never stored;
 * - the token's lifetime gates one-click charges and subscription creation; a subscription that
 *   exists keeps charging its card (see the subscriptions service).
 */
import type { Db } from "../../db/client.js";
import type { Clock } from "../../platform/clock.js";
import { toDateString } from "../../platform/clock.js";
import { addDays, isIsoDate } from "../../platform/dates.js";
import { badRequest, invalidField } from "../../platform/errors.js";
import type { Ids } from "../../platform/ids.js";
import { parseAmount } from "../../platform/money.js";
import type { OutcomeEngine } from "../../scenarios/outcome-engine.js";
import type { IdempotencyService, IdempotentResult } from "../idempotency/idempotency.service.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import { type CardOnFile, cardMask, readCard } from "../payments/card.js";
import type { PaymentService } from "../payments/payments.service.js";
import type { CardPaymentResponse } from "../payments/payments.wire.js";
import { presentResponse } from "../payments/present.js";
import { binInfo } from "./bin-lookup.js";
import { type TokenRow, TokensRepo } from "./tokens.repo.js";
import type { ChargeRequest, TokenizeRequest, TokenResponse } from "./tokens.wire.js";

export interface TokenDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  outcomes: OutcomeEngine;
  idempotency: IdempotencyService;
  payments: PaymentService;
  /** SANDBOX_TOKEN_TTL_DAYS: the default token lifetime (docs/tokens.md). */
  tokenTtlDays: number;
}

/**
 * `tok_****wxyz`: the token in error messages (docs/api.md#errors `<masked token>`). Keeps an id prefix
 * (up to the first `_`) and the last 4 characters; a string shorter than 8 after the prefix
 * shows no characters at all, so a short guess is never echoed whole.
 */
export function maskToken(token: string): string {
  const cut = token.indexOf("_");
  const prefix = cut > 0 && cut <= 8 ? token.slice(0, cut + 1) : "";
  const rest = token.slice(prefix.length);
  return rest.length >= 8 ? `${prefix}****${rest.slice(-4)}` : `${prefix}****`;
}

/** The card a token stands for, in the form the payment path takes. */
export const cardOfToken = (t: TokenRow): CardOnFile => ({
  bin: t.cardBin,
  last4: t.cardLast4,
  length: t.cardLength,
  expMonth: t.expMonth,
  expYear: t.expYear,
  holder: t.cardHolder,
  brand: t.cardBrand,
  profile: t.cardProfile,
});

export class TokenService {
  readonly repo: TokensRepo;

  constructor(private readonly deps: TokenDeps) {
    this.repo = new TokensRepo(deps.db);
  }

  /**
   * docs/tokens.md: vaults a card, synchronously and idempotently (operation "tokenize"). The
   * token lives the shorter of tokenTtlDays from now and the requested expirationDate (rule 3);
   * a requested date before today → 400 `Invalid field: expirationDate`.
   */
  tokenize(merchant: Merchant, input: TokenizeRequest): IdempotentResult<TokenResponse> {
    requireOwnMerchant(merchant, "merchantId", input.merchantId);
    const { socialSecurityNumber: _dropped, ...kept } = input;
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "tokenize", requestId: input.requestId },
      kept,
      () => {
        const now = this.deps.clock.nowMs();
        const today = toDateString(now);
        if (input.expirationDate !== undefined && (!isIsoDate(input.expirationDate) || input.expirationDate < today)) {
          throw invalidField("expirationDate");
        }
        const card = readCard(input.card, this.deps.outcomes, this.deps.clock);
        const byDefault = addDays(today, this.deps.tokenTtlDays);
        const expirationDate =
          input.expirationDate !== undefined && input.expirationDate < byDefault ? input.expirationDate : byDefault;
        const bin = binInfo(card.bin);
        const row: TokenRow = {
          token: this.deps.ids.next("token"),
          merchantKey: merchant.merchantKey,
          requestId: input.requestId,
          cardBin: card.bin,
          cardLast4: card.last4,
          cardLength: card.length,
          expMonth: card.expMonth,
          expYear: card.expYear,
          cardHolder: card.holder,
          cardBrand: bin.cardBrand ?? card.brand,
          cardType: bin.cardType,
          issuingBank: bin.issuingBank,
          cardCountry: bin.cardCountry,
          cardProfile: card.profile,
          expirationDate,
          billingDetails: input.billingDetails,
          metadata: input.metadata ?? null,
          createdAt: now,
        };
        this.repo.insert(row);
        return presentToken(row);
      },
    );
  }

  /**
   * A merchant's live token (docs/tokens.md, docs/api.md#errors). Unknown, another merchant's, or past
   * its expirationDate on the virtual clock → 400 `Token not found or expired: <masked token>`.
   */
  resolve(merchant: Merchant, token: string): TokenRow {
    const row = this.repo.byToken(token);
    const today = toDateString(this.deps.clock.nowMs());
    if (!row || row.merchantKey !== merchant.merchantKey || row.expirationDate < today) {
      throw badRequest(`Token not found or expired: ${maskToken(token)}`);
    }
    return row;
  }

  /**
   * The one-click charge (docs/tokens.md): resolve the token, fall back to its billing details, then the
   * card payment path (kind "card_charge", flow "payment") with idempotency (operation
   * "card_charge").
   */
  charge(merchant: Merchant, input: ChargeRequest): IdempotentResult<CardPaymentResponse> {
    requireOwnMerchant(merchant, "mid", input.mid);
    const amountMinor = parseAmount(input.amount, input.currency);
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "card_charge", requestId: input.requestId },
      input,
      () => {
        const token = this.resolve(merchant, input.cardToken);
        const billingDetails = billingOf(input.billingDetails, token);
        const r = this.deps.payments.authorize({
          merchant,
          kind: "card_charge",
          requestId: input.requestId,
          card: cardOfToken(token),
          amountMinor,
          currency: input.currency,
          flow: "payment",
          threeDSRequested: false,
          callbackUrl: input.callbackUrl,
          successRedirectUrl: input.successRedirectUrl,
          failureRedirectUrl: input.failureRedirectUrl,
          lang: input.lang ?? null,
          billingDetails,
          order: input.order ?? {},
          device: input.device ?? null,
          metadata: input.metadata ?? null,
          tokenId: token.token,
        });
        return presentResponse(r);
      },
    );
  }
}

/** docs/tokens.md, docs/subscriptions.md: the request's billing details, else the token's, else 400 (docs/api.md#errors). */
export function billingOf(fromRequest: Record<string, unknown> | undefined, token: TokenRow): Record<string, unknown> {
  const b = fromRequest ?? token.billingDetails;
  if (!b) throw badRequest("Billing details missing from both request and token");
  return b;
}

/** docs/tokens.md: the Token object of a stored row. */
export function presentToken(t: TokenRow): TokenResponse {
  return {
    token: t.token,
    cardMask: cardMask(t.cardBin, t.cardLast4, t.cardLength),
    expirationMonth: t.expMonth,
    expirationYear: t.expYear,
    cardBrand: t.cardBrand,
    cardType: t.cardType,
    issuingBank: t.issuingBank,
    cardCountry: t.cardCountry,
    expirationDate: t.expirationDate,
    metadata: t.metadata ?? null,
  };
}
