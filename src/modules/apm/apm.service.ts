/**
 * APM pay-ins and payouts (docs/apm.md, docs/apm.md#payouts, docs/wallets.md, docs/gateway.md#authentication, docs/webhooks.md;
 * docs/apm.md#the-request-checksum): kinds `apm_payment` and
 * `apm_payout` on the one transaction lifecycle.
 *
 * How a transaction starts (the outcome engine decides first: profile "default", or the decrypted
 * wallet PAN's profile; rules with `operation: payment | payout` apply):
 * - a declining outcome (or an FX conversion without rates) → FAILED at once, declineSubReason set;
 * - the shopper must act (fields missing → HPP, or a QR method) → PENDING, actionType REDIRECT/QR,
 *   until the page is posted, the control plane completes it, or a rule's `completeAfter` runs out;
 * - MOBILE_WALLET with a token or decrypted PAN → SUCCEED at once, actionType NONE;
 * - other pay-ins → PROCESSING, SUCCEED one virtual minute later; payouts → PENDING, likewise.
 * The shopper's pages and what posting them does are hosted-page.service.ts.
 *
 * LIMITATIONS:
 * - `paymentType` must be the method's own type (no routing by country or provider route);
 * - the apmPayload echo keeps every key as sent (and the HPP's fields as entered); only card data
 *   (a wallet token's data, a decrypted PAN) is masked.
 */
import { luhnValid } from "../../platform/cards.js";
import { hmacBase64, safeEqual } from "../../platform/crypto.js";
import { invalidField } from "../../platform/errors.js";
import type { OutcomeSpec } from "../../platform/fixtures.js";
import { formatAmount, parseAmount } from "../../platform/money.js";
import { DEFAULT_PROFILE } from "../../scenarios/outcome-engine.js";
import type { IdempotentResult } from "../idempotency/idempotency.service.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import type { PaymentDeps } from "../payments/payments.service.js";
import { DECLINE, deadlineOf, type TransactionRow } from "../transactions/lifecycle.js";
import { amountColumns, type NewRowFields, newTransactionRow } from "../transactions/new-row.js";
import { type ApmDetails, presentApmPayment, presentApmPayout, presentCreate, type StartedApmRow } from "./apm.present.js";
import { checkMethod, echoRequestPayload, firstStatus, type Start } from "./apm.rules.js";
import type {
  ApmCreateResponse,
  ApmPaymentCallback,
  ApmPaymentRequest,
  ApmPayoutCallback,
  ApmPayoutRequest,
  ApmRequestPayloadEcho,
  ApmResponseData,
} from "./apm.wire.js";
import { type ApmMethod, isWallet, missingFields } from "./methods.js";
import { pixBrCode, qrPngBase64, upiDeepLink } from "./qr.js";

type Payload = ApmPaymentRequest["apmPayload"];

/** The row columns an APM pay-in or payout keeps of its request as sent. */
const requestColumns = (body: ApmPaymentRequest | ApmPayoutRequest) => ({
  callbackUrl: body.callbackUrl ?? null,
  successRedirectUrl: body.successRedirectUrl ?? null,
  failureRedirectUrl: body.failureRedirectUrl ?? null,
  billingDetails: body.billingDetails ?? null,
  orderData: body.order ?? null,
  device: body.device ?? null,
  metadata: body.metadata ?? null,
});

const PAN_PATH = "apmPayload.decrypted.applicationPrimaryAccountNumber";

export class ApmService {
  constructor(private readonly deps: PaymentDeps) {}

  /**
   * docs/apm.md, the one use case behind POST /payments/apm: accountId, amount, the method's
   * direction/type/currency (the route judged these before the body's fields) and the request
   * checksum are checked first (400 naming the field, nothing written), then, idempotently on
   * requestId (operation "apm_payment"), the outcome.
   */
  createPayment(merchant: Merchant, body: ApmPaymentRequest): IdempotentResult<ApmCreateResponse> {
    requireOwnMerchant(merchant, "accountId", body.accountId);
    const amountMinor = parseAmount(body.amount, body.currency);
    const method = checkMethod(body.apmPayload, "payin", body.currency);
    const expected = hmacBase64(merchant.merchantSecret, `${body.accountId}|${body.amount}|${body.currency}|${body.requestId}`);
    if (!safeEqual(body.checksum, expected)) throw invalidField("checksum");
    let profile = DEFAULT_PROFILE;
    const pan = body.apmPayload.decrypted?.applicationPrimaryAccountNumber;
    if (isWallet(method) && pan !== undefined) {
      if (!luhnValid(pan)) throw invalidField(PAN_PATH);
      profile = this.deps.outcomes.profileFor(pan);
    }
    const echo = echoRequestPayload(body.apmPayload);
    const hashed = { ...body, apmPayload: { ...body.apmPayload, decrypted: echo.decrypted } };
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "apm_payment", requestId: body.requestId },
      hashed,
      () => {
        const spec = this.deps.outcomes.decide({
          profile,
          flow: "payment",
          amountMinor,
          currency: body.currency,
          threeDSRequested: false,
        });
        const fx = this.deps.fx.apply(amountMinor, body.currency, merchant.processingCurrency);
        const row = this.start(merchant, {
          kind: "apm_payment",
          method,
          payload: body.apmPayload,
          echo,
          spec: fx ? spec : { status: "FAILED", declineCode: DECLINE.CURRENCY_EXCHANGE_NOT_ALLOWED },
          base: {
            requestId: body.requestId,
            ...amountColumns(amountMinor, body.currency, fx),
            ...requestColumns(body),
          },
        });
        return presentCreate(row, false);
      },
    );
  }

  /**
   * POST /payouts/apm (docs/apm.md#payouts): the Referer header is required (the handler
   * passes it), then accountId, amount and method checks, then idempotently (operation "apm_payout")
   * PENDING that settles a virtual minute later, or FAILED at once when a payout rule declines.
   */
  createPayout(merchant: Merchant, body: ApmPayoutRequest): IdempotentResult<ApmCreateResponse> {
    requireOwnMerchant(merchant, "accountId", body.accountId);
    const amountMinor = parseAmount(body.amount, body.currency);
    const method = checkMethod(body.apmPayload, "payout", body.currency);
    const echo = echoRequestPayload(body.apmPayload);
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "apm_payout", requestId: body.requestId },
      body,
      () => {
        const spec = this.deps.outcomes.decide({
          profile: DEFAULT_PROFILE,
          flow: "payout",
          amountMinor,
          currency: body.currency,
          threeDSRequested: false,
        });
        const row = this.start(merchant, {
          kind: "apm_payout",
          method,
          payload: body.apmPayload,
          echo,
          spec,
          base: {
            requestId: body.requestId,
            ...amountColumns(amountMinor, body.currency),
            ...requestColumns(body),
          },
        });
        return presentCreate(row, true);
      },
    );
  }

  /** A merchant's APM pay-in; unknown, another kind or another merchant's → 404. */
  getOwnPayment(merchant: Merchant, id: string): TransactionRow {
    return this.deps.lifecycle.getOwn(merchant, id, ["apm_payment"]);
  }

  /** docs/apm.md: APM pay-in info, the payment callback body. */
  paymentInfo(merchant: Merchant, id: string): ApmPaymentCallback {
    return presentApmPayment(this.getOwnPayment(merchant, id), merchant);
  }

  /** Payout info (docs/apm.md#payouts): the payout callback body; unknown or another merchant's → 404. */
  payoutInfo(merchant: Merchant, id: string): ApmPayoutCallback {
    return presentApmPayout(this.deps.lifecycle.getOwn(merchant, id, ["apm_payout"], "Payout"), merchant);
  }

  /** Inside the create's transaction: the first status, apmResponseData, the row and its callback. */
  private start(
    merchant: Merchant,
    input: {
      kind: "apm_payment" | "apm_payout";
      method: ApmMethod;
      payload: Payload;
      echo: ApmRequestPayloadEcho;
      spec: OutcomeSpec;
      base: Partial<NewRowFields> & Pick<TransactionRow, "orderAmount" | "orderCurrency">;
    },
  ): StartedApmRow {
    const { method, spec } = input;
    const now = this.deps.clock.nowMs();
    const id = this.deps.ids.next(input.kind === "apm_payout" ? "payout" : "transaction");
    const missing = missingFields(method, input.payload as Record<string, unknown>);
    const shopper = missing.length > 0 || method.actionType === "QR";
    const start: Start = shopper ? "shopper" : input.kind === "apm_payout" ? "payout" : isWallet(method) ? "wallet" : "direct";
    const first = firstStatus(spec, start);
    const waitingOnShopper = shopper && first.status === "PENDING";
    const responseData: ApmResponseData = {
      paymentMethod: method.paymentMethod,
      paymentType: method.paymentType,
      actionType: "NONE",
      providerTransactionId: `sbx-${id}`,
    };
    if (waitingOnShopper && method.actionType === "QR" && missing.length === 0) {
      const amount = formatAmount(input.base.orderAmount, input.base.orderCurrency);
      const name = merchant.name ?? merchant.mid;
      const link = method.paymentMethod === "PIX_QR" ? pixBrCode(name, amount, id) : upiDeepLink(name, amount, id);
      Object.assign(responseData, {
        actionType: "QR",
        redirectUrl: `${this.deps.publicUrl()}/sandbox/qr/${encodeURIComponent(id)}`,
        qrDeepLink: link,
        qrData: qrPngBase64(link),
      });
    } else if (waitingOnShopper) {
      Object.assign(responseData, {
        actionType: "REDIRECT",
        redirectUrl: `${this.deps.publicUrl()}/sandbox/hpp/${encodeURIComponent(id)}`,
      });
    }
    const details: ApmDetails & { apmResponseData: ApmResponseData } = {
      apmPayload: input.echo,
      apmResponseData: responseData,
      missing: waitingOnShopper ? missing : [],
    };
    const due = first.spec ? deadlineOf(first.spec, now) : {};
    const row: StartedApmRow = {
      ...newTransactionRow(now, {
        ...input.base,
        id,
        merchantKey: merchant.merchantKey,
        kind: input.kind,
        status: first.status,
        declineCode: first.declineCode,
        paymentMethod: method.paymentMethod,
        ...due,
      }),
      status: first.status,
      details,
    };
    this.deps.lifecycle.create(row, merchant);
    return row;
  }
}
