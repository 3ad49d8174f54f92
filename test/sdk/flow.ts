/**
 * A merchant's integration written against the client that @hey-api/openapi-ts generates from the
 * served /openapi.json (test/e2e/sdk.e2e.test.ts generates it into ./generated, type-checks this file
 * with it under strict tsc, then runs it): every operation of the document, errors included, each
 * answer validated by the client's own zod schemas (2xx by its response validator, errors by
 * `zError`), and the webhooks a real receiver gets typed and validated by the generated webhook
 * types. No cast, and no `unknown` in a type it reads (NoUnknown below fails the type-check).
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { APM_BILLING, EXAMPLE_IP, exampleDevice } from "../../src/platform/examples.js";
import { createClient } from "./generated/client/index.js";
import * as sdk from "./generated/sdk.gen.js";
import type { Currency, Webhooks } from "./generated/types.gen.js";
import {
  zApmPaymentWebhookRequest,
  zApmPayoutWebhookRequest,
  zCardPaymentWebhookRequest,
  zCardPayoutWebhookRequest,
  zError,
  zRefundWebhookRequest,
  zReportError,
  zSubscriptionChargeWebhookRequest,
} from "./generated/zod.gen.js";

// ---- the types the flow reads hold no `unknown` (nor `any`) ----------------------------------------

type Depth = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8];
/** true when T is, or holds anywhere (10 levels down), `unknown` or `any`. */
type HasUnknown<T, D extends number = 9> = [D] extends [never]
  ? false
  : unknown extends T
    ? true
    : T extends readonly (infer E)[]
      ? HasUnknown<E, Depth[D]>
      : T extends Blob | ReadableStream | Response | Request
        ? false
        : T extends object
          ? true extends { [K in keyof T]-?: HasUnknown<T[K], Depth[D]> }[keyof T]
            ? true
            : false
          : false;
/** Compiles only when T is false. */
type False<T extends false> = T;
/** What each operation answers, as the SDK types it: its data, and its errors where it documents some. */
type Answers = {
  [K in keyof typeof sdk]: (typeof sdk)[K] extends (...args: never[]) => Promise<infer R>
    ? R extends { data: infer D; error: infer E }
      ? { data: D; error: unknown extends E ? never : E }
      : R
    : never;
};
export type CheckAnswers = False<HasUnknown<Answers>>;
export type CheckWebhooks = False<HasUnknown<Webhooks["body"]>>;

// ---- helpers ---------------------------------------------------------------------------------------

export const MERCHANT = { key: "sandbox_merchant_key", secret: "sandbox_merchant_secret", mid: "sandbox-mid-001" };

/** The data of a call that must succeed (the response validator has checked it). */
function ok<D, E>(r: { data: D; error: E; response?: Response }) {
  const data = r.data;
  if (r.error !== undefined || data === undefined) {
    throw new Error(`expected success, got ${r.response?.status}: ${JSON.stringify(r.error)}`);
  }
  return data;
}

/** A call that must fail with `status`: its error body checked by the generated schema of the envelope. */
function fails<E>(r: { error?: E; response?: Response }, status: number, report = false): string {
  if (r.response?.status !== status) throw new Error(`expected ${status}, got ${r.response?.status}: ${JSON.stringify(r.error)}`);
  return report ? zReportError.parse(r.error).error : zError.parse(r.error).errorMessage;
}

/** A shopper page's refusal: its status and an HTML page saying why (the document's `text/html` string). */
function failsPage<E>(r: { error?: E; response?: Response }, status: number): void {
  if (r.response?.status !== status) throw new Error(`expected ${status}, got ${r.response?.status}`);
  check(r.response.headers.get("content-type")?.startsWith("text/html") === true && typeof r.error === "string", "an HTML page");
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`flow: ${what}`);
}

const uuid = () => crypto.randomUUID();
const hmac = (key: string, message: string) => createHmac("sha256", key).update(message).digest("base64");

/** Webhook signature fields per callback kind (docs/webhooks.md#signature), as a receiver writes them. */
const SIGNED = {
  cardPayment: ["mid", "orderAmount", "orderCurrency", "transactionId"],
  cardPayout: ["transactionId", "requestId", "transactionStatus"],
  refund: ["transactionId", "requestId", "transactionStatus"],
  subscriptionCharge: ["subscriptionId", "transactionId", "transactionStatus"],
  apmPayment: ["accountId", "orderAmount", "orderCurrency", "transactionId"],
  apmPayout: ["transactionId", "requestId", "transactionStatus"],
} as const;

/** A received webhook, typed by the generated webhook types once its body validated. */
export type ReceivedWebhook =
  | { kind: "cardPayment"; request: ReturnType<typeof zCardPaymentWebhookRequest.parse> }
  | { kind: "cardPayout"; request: ReturnType<typeof zCardPayoutWebhookRequest.parse> }
  | { kind: "refund"; request: ReturnType<typeof zRefundWebhookRequest.parse> }
  | { kind: "subscriptionCharge"; request: ReturnType<typeof zSubscriptionChargeWebhookRequest.parse> }
  | { kind: "apmPayment"; request: ReturnType<typeof zApmPaymentWebhookRequest.parse> }
  | { kind: "apmPayout"; request: ReturnType<typeof zApmPayoutWebhookRequest.parse> };

/** The first webhook schema the request validates against, with the signature checked. */
function typeWebhook(input: { body: object; query: Record<string, string>; headers: IncomingHttpHeaders }): ReceivedWebhook {
  const tries: Array<() => ReceivedWebhook | undefined> = [
    () => {
      const r = zCardPaymentWebhookRequest.safeParse(input);
      return r.success ? { kind: "cardPayment", request: r.data } : undefined;
    },
    () => {
      const r = zCardPayoutWebhookRequest.safeParse(input);
      return r.success ? { kind: "cardPayout", request: r.data } : undefined;
    },
    () => {
      const r = zRefundWebhookRequest.safeParse(input);
      return r.success ? { kind: "refund", request: r.data } : undefined;
    },
    () => {
      const r = zSubscriptionChargeWebhookRequest.safeParse(input);
      return r.success ? { kind: "subscriptionCharge", request: r.data } : undefined;
    },
    () => {
      const r = zApmPaymentWebhookRequest.safeParse(input);
      return r.success ? { kind: "apmPayment", request: r.data } : undefined;
    },
    () => {
      const r = zApmPayoutWebhookRequest.safeParse(input);
      return r.success ? { kind: "apmPayout", request: r.data } : undefined;
    },
  ];
  for (const t of tries) {
    const hook = t();
    if (!hook) continue;
    const body: Record<string, string | number | boolean | object | null> = { ...hook.request.body };
    const message = SIGNED[hook.kind].map((f) =>
      body[f] === null ? "" : typeof body[f] === "string" ? body[f] : JSON.stringify(body[f]),
    );
    check(hmac(MERCHANT.secret, message.join("|")) === hook.request.headers["x-checksum"], `signature of a ${hook.kind} webhook`);
    return hook;
  }
  throw new Error(`a webhook no generated schema takes: ${JSON.stringify(input.body).slice(0, 300)}`);
}

/** A real receiver: every POST typed and verified as it arrives. */
export async function startReceiver() {
  const hooks: ReceivedWebhook[] = [];
  const problems: string[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://receiver");
      if (req.method === "POST" && req.headers["x-checksum"] !== undefined) {
        try {
          hooks.push(typeWebhook({ body: JSON.parse(raw), query: Object.fromEntries(url.searchParams), headers: req.headers }));
        } catch (err) {
          problems.push(String(err));
        }
      }
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hooks,
    problems,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- the flow --------------------------------------------------------------------------------------

/** The APM examples' shopper with an address of this flow's own, and a browser 3DS takes (src/platform/examples.ts). */
const billing = { ...APM_BILLING, email: "jane.doe+sdk@shop.example" };
const device = exampleDevice("sdk-flow", "3ds");
const card = (number: string) => ({ number, expMonth: "12", expYear: "2030", cvv: "123" });

/**
 * The whole flow on a server at `serverUrl` started with `adminToken`; webhooks go to `receiver`.
 * Returns the operations it called (method and path template), for the test to compare with the document.
 */
export async function runFlow(
  serverUrl: string,
  adminToken: string,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
): Promise<Set<string>> {
  const called = new Set<string>();
  let merchantToken = "";
  const client = createClient({
    baseUrl: serverUrl,
    // the two schemes tell the tokens apart: the admin token is apiKey-shaped, the merchant's a bearer
    auth: (auth) => {
      if (auth.type === "apiKey" && auth.name === "Authorization") return `Bearer ${adminToken}`;
      if (auth.type === "apiKey" && auth.name === "x-merchant-key") return MERCHANT.key;
      if (auth.type === "apiKey" && auth.name === "x-merchant-secret") return MERCHANT.secret;
      return merchantToken;
    },
  });
  client.interceptors.request.use((request, options) => {
    called.add(`${request.method} ${options.url}`);
    return request;
  });
  const c = { client };

  // the root: health, a sandbox of its own (fresh; a fork cannot take a startTime)
  check(ok(await sdk.getHealth(c)).status === "ok", "health");
  fails(await sdk.createSandbox({ ...c, body: { from: "sbx_00000000000000000000" } }), 404);
  fails(await sdk.createSandbox({ ...c, body: { ttl: "P30D" } }), 400); // PT1S to P7D, as its description says
  fails(await sdk.getSandbox({ ...c, path: { id: "sbx_00000000000000000000" } }), 404);
  const sandbox = ok(await sdk.createSandbox({ ...c, body: { name: "sdk flow", startTime: "2026-01-15T12:00:00Z" } }));
  check(
    ok(await sdk.listSandboxes(c)).some((s) => s.id === sandbox.id),
    "the list has it",
  );
  check(ok(await sdk.getSandbox({ ...c, path: { id: sandbox.id } })).baseUrl === sandbox.baseUrl, "one sandbox");

  // everything else in the sandbox: the same client, its base URL
  client.setConfig({ baseUrl: sandbox.baseUrl });
  fails(await sdk.createAuthToken({ ...c, body: { merchantKey: MERCHANT.key, merchantSecret: "wrong" } }), 401);
  const login = async () => {
    const auth = ok(await sdk.createAuthToken({ ...c, body: { merchantKey: MERCHANT.key, merchantSecret: MERCHANT.secret } }));
    merchantToken = auth.token.replace(/^Bearer /, "");
  };
  await login();

  // clock and scenarios
  const clock = ok(await sdk.getClock(c));
  const moved = ok(await sdk.advanceClock({ ...c, body: { by: "PT1M" } }));
  check(moved.ran.completions >= 0 && moved.now > clock.now, "advance answers where it is and what ran");
  fails(await sdk.advanceClock({ ...c, body: { to: "2020-01-01T00:00:00Z" } }), 400); // never backwards: a run-time rule
  const loaded = ok(
    await sdk.loadScenario({
      ...c,
      body: { name: "sdk", cards: [{ number: "4242424242424242", payment: { status: "FAILED", declineCode: 5 } }] },
    }),
  );
  check(loaded.cards === 1, "scenario loaded");
  check(ok(await sdk.listScenarios(c))[0]?.cards[0]?.number === "424242******4242", "cards listed masked");
  fails(await sdk.loadScenario({ ...c, body: { name: "bad name!" } }), 400);

  // card payments: approved, declined by a scenario card, 3DS on the challenge page
  const paid = ok(
    await sdk.createCardPayment({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        card: { ...card("4111111111111111"), requestThreeDSecure: false },
        amount: "20.50",
        currency: "USD",
        lang: "en",
        callbackUrl: receiver.url,
        billingDetails: billing,
        order: { orderId: "A-1" },
        device,
      },
    }),
  );
  check(paid.transactionStatus === "SUCCEED", "approved");
  const declined = ok(
    await sdk.createCardPayment({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        card: { ...card("4242424242424242"), requestThreeDSecure: false },
        amount: "5.00",
        currency: "EUR",
        lang: "en",
        billingDetails: billing,
        order: {},
        device,
      },
    }),
  );
  check(declined.transactionStatus === "FAILED" && declined.declineCode === 5, "declined by the scenario's card");
  fails(
    await sdk.createCardPayment({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        card: { ...card("4111111111111112"), requestThreeDSecure: false },
        amount: "1.00",
        currency: "USD",
        lang: "en",
        billingDetails: billing,
        order: {},
        device,
      },
    }),
    400,
  );
  const status = ok(await sdk.getCardPaymentStatus({ ...c, path: { id: paid.transactionId } }));
  switch (status.transactionStatus) {
    case "SUCCEED":
      break;
    case "PENDING":
    case "PROCESSING":
    case "CUSTOMER_VERIFICATION":
    case "FAILED":
    case "REFUNDED":
      throw new Error(`status ${status.transactionStatus}`);
  }
  fails(await sdk.getCardPaymentInfo({ ...c, path: { id: "tx_unknown" } }), 404);
  const threeDs = ok(
    await sdk.createCardPayment({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        card: { ...card("4000000000003220"), requestThreeDSecure: true },
        amount: "30.00",
        currency: "USD",
        lang: "en",
        callbackUrl: receiver.url,
        successRedirectUrl: `${receiver.url}/ok`,
        failureRedirectUrl: `${receiver.url}/ko`,
        billingDetails: billing,
        order: {},
        device,
      },
    }),
  );
  check(threeDs.transactionStatus === "CUSTOMER_VERIFICATION", "3DS challenge");
  check(ok(await sdk.getThreeDsPage({ ...c, path: { id: threeDs.transactionId } })).includes("<form"), "challenge page");
  const answered = await sdk.submitThreeDsPage({
    ...c,
    path: { id: threeDs.transactionId },
    body: { outcome: "success" },
    redirect: "manual",
  });
  check(answered.response?.status === 303, `303 to the merchant's page, got ${answered.response?.status}`);
  failsPage(await sdk.submitThreeDsPage({ ...c, path: { id: threeDs.transactionId }, body: { outcome: "success" } }), 409);

  // tokens and one-click
  const token = ok(
    await sdk.createCardToken({
      ...c,
      body: { requestId: uuid(), merchantId: 1001, card: card("5500000000000004"), billingDetails: billing },
    }),
  );
  const charge = ok(
    await sdk.createOneClickCharge({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        cardToken: token.token,
        amount: "12.00",
        currency: "USD",
        callbackUrl: receiver.url,
        successRedirectUrl: `${receiver.url}/ok`,
        failureRedirectUrl: `${receiver.url}/ko`,
        order: {},
        device,
      },
    }),
  );
  check(charge.transactionStatus === "SUCCEED", "one-click");

  // a subscription: created, charged a month later, changed, cancelled
  const sub = ok(
    await sdk.createSubscription({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        cardToken: token.token,
        plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15" },
        order: {},
        device,
        callbackUrl: receiver.url,
        successRedirectUrl: `${receiver.url}/ok`,
        failureRedirectUrl: `${receiver.url}/ko`,
      },
    }),
  );
  const subscriptionId = sub.subscriptionId ?? "";
  check(sub.status === "ACTIVE", "subscription active");
  ok(await sdk.advanceClock({ ...c, body: { by: "P1M" } }));
  await login(); // a token lives 30 virtual days
  const charged = ok(await sdk.getSubscription({ ...c, path: { subscriptionId } }));
  check(charged.billingDetails?.email === billing.email, "the token's billing details");
  ok(await sdk.updateSubscription({ ...c, path: { subscriptionId }, body: { plan: { amount: "19.99" } } }));
  fails(await sdk.updateSubscription({ ...c, path: { subscriptionId }, body: { status: "TRIALING" } }), 400);
  ok(await sdk.cancelSubscription({ ...c, path: { subscriptionId } }));

  // a refund of the first payment, settled a minute later; its status as the lifecycle table says
  const refund = ok(
    await sdk.createRefund({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        transactionId: paid.transactionId,
        amount: "20.50",
        reason: "sdk",
        callbackUrl: receiver.url,
      },
    }),
  );
  ok(await sdk.advanceClock({ ...c, body: { by: "PT2M" } }));
  check(ok(await sdk.getRefundStatus({ ...c, path: { id: refund.refundId } })).transactionStatus === "SUCCEED", "refund settled");
  check(ok(await sdk.getRefundInfo({ ...c, path: { id: refund.refundId } })).totalAmount === 20.5, "refund info");
  const info = ok(await sdk.getCardPaymentInfo({ ...c, path: { id: paid.transactionId } }));
  check(info.refundedAmount === 20.5 && info.transactionStatus === "REFUNDED", "refundedAmount and REFUNDED");
  check(info.billingDetails.city === billing.city && info.order.orderId === "A-1", "the echoed billing details and order");

  // a card payout
  const payout = ok(
    await sdk.createCardPayout({
      ...c,
      body: {
        requestId: uuid(),
        mid: MERCHANT.mid,
        userEmail: "o'brien@shop.example",
        amount: "15.00",
        card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cardHolder: "Jane Doe" },
        callbackUrl: receiver.url,
      },
    }),
  );
  ok(await sdk.advanceClock({ ...c, body: { by: "PT2M" } }));
  check(
    ok(await sdk.getCardPayoutStatus({ ...c, path: { id: payout.transactionId } })).transactionStatus === "SUCCEED",
    "payout",
  );
  check(ok(await sdk.getCardPayoutInfo({ ...c, path: { id: payout.transactionId } })).totalAmount === 15, "payout info");

  // APM: a direct pay-in, the hosted page, a QR pay-in completed by the control plane, a payout
  const checksum = (amount: string, currency: Currency, requestId: string) =>
    hmac(MERCHANT.secret, `2001|${amount}|${currency}|${requestId}`);
  const apmBase = (requestId: string, amount: string, currency: Currency) => ({
    requestId,
    accountId: "2001",
    amount,
    currency,
    order: { orderId: "A-2" },
    billingDetails: billing,
    device: { ip: EXAMPLE_IP },
    callbackUrl: receiver.url,
    successRedirectUrl: `${receiver.url}/ok`,
    failureRedirectUrl: `${receiver.url}/ko`,
    checksum: checksum(amount, currency, requestId),
  });
  const bankId = uuid();
  const bank = ok(
    await sdk.createApmPayment({
      ...c,
      body: {
        ...apmBase(bankId, "40.00", "USD"),
        apmPayload: {
          paymentMethod: "SMART_BANK_TRANSFER",
          paymentType: "BANK_TRANSFER",
          accountNumber: "DE89370400440532013000",
          bankName: "Bank",
          accountHolderName: "Jane Doe",
        },
      },
    }),
  );
  check(bank.transactionStatus === "PROCESSING", "direct pay-in");
  const eftId = uuid();
  const eft = ok(
    await sdk.createApmPayment({
      ...c,
      body: {
        ...apmBase(eftId, "25.00", "CAD"),
        apmPayload: { paymentMethod: "EXTERNAL_HPP_EFT", paymentType: "BANK_TRANSFER" },
      },
    }),
  );
  check(ok(await sdk.getHostedPaymentPage({ ...c, path: { id: eft.transactionId } })).includes("<form"), "hosted page");
  const hpp = await sdk.submitHostedPaymentPage({
    ...c,
    path: { id: eft.transactionId },
    body: {
      outcome: "success",
      accountHolderName: "Jane Doe",
      institutionNumber: "001",
      transitNumber: "00011",
      accountNumber: "000123456789",
    },
    redirect: "manual",
  });
  check(hpp.response?.status === 303, `hosted page answered, got ${hpp.response?.status}`);
  const qrId = uuid();
  const qr = ok(
    await sdk.createApmPayment({
      ...c,
      body: { ...apmBase(qrId, "100.00", "INR"), apmPayload: { paymentMethod: "UPI_QR", paymentType: "BANK_TRANSFER" } },
    }),
  );
  check(qr.apmResponseData.actionType === "QR" && (qr.apmResponseData.qrDeepLink ?? "").startsWith("upi://"), "QR");
  check(ok(await sdk.getQrPage({ ...c, path: { id: qr.transactionId } })).includes("<form"), "QR page");
  const pixId = uuid();
  const pix = ok(
    await sdk.createApmPayment({
      ...c,
      body: { ...apmBase(pixId, "10.00", "BRL"), apmPayload: { paymentMethod: "PIX_QR", paymentType: "BANK_TRANSFER" } },
    }),
  );
  const qrAnswer = await sdk.submitQrPage({
    ...c,
    path: { id: pix.transactionId },
    body: { outcome: "failure" },
    redirect: "manual",
  });
  check(qrAnswer.response?.status === 303, "QR page answered");
  const completed = ok(
    await sdk.completeTransaction({ ...c, path: { id: qr.transactionId }, body: { status: "FAILED", declineCode: 5 } }),
  );
  check(completed.transactionStatus === "FAILED" && completed.declineCode === 5, "completed");
  fails(await sdk.completeTransaction({ ...c, path: { id: qr.transactionId }, body: { status: "SUCCEED" } }), 409);
  ok(await sdk.advanceClock({ ...c, body: { by: "PT2M" } }));
  const bankStatus = ok(await sdk.getApmPaymentStatus({ ...c, path: { id: bank.transactionId } }));
  check(bankStatus.transactionStatus === "SUCCEED", "direct pay-in settled");
  const bankInfo = ok(await sdk.getApmPaymentInfo({ ...c, path: { id: bank.transactionId } }));
  check(bankInfo.apmRequestPayload.paymentMethod === "SMART_BANK_TRANSFER" && bankInfo.orderAmount === 40, "pay-in info");
  const apmPayoutId = uuid();
  const apmPayout = ok(
    await sdk.createApmPayout({
      ...c,
      headers: { referer: "https://shop.example/payouts" },
      body: {
        requestId: apmPayoutId,
        accountId: "2001",
        amount: "8.00",
        currency: "USD",
        apmPayload: { paymentMethod: "SMART_E_WALLET", paymentType: "E_WALLET", walletId: "wallet-123" },
        callbackUrl: receiver.url,
      },
    }),
  );
  ok(await sdk.advanceClock({ ...c, body: { by: "PT2M" } }));
  check(
    ok(await sdk.getApmPayoutInfo({ ...c, path: { id: apmPayout.transactionId } })).transactionStatus === "SUCCEED",
    "APM payout",
  );

  // wallet sessions: the origin's host must be a walletDomain (a run-time rule, said in the answer)
  const session = ok(
    await sdk.createWalletSession({
      ...c,
      body: {
        validationUrl: "https://apple-pay-gateway.apple.com/paymentservices/startSession",
        origin: "https://localhost:8443",
        intentToken: "it",
      },
    }),
  );
  check(session.signature !== undefined && session.domainName === "localhost", "wallet session");
  ok(
    await sdk.createWalletSessionByAccount({
      ...c,
      body: {
        validationUrl: "https://apple-pay-gateway.apple.com/paymentservices/startSession",
        origin: "localhost",
        accountId: 2001,
      },
    }),
  );
  const elsewhere = fails(
    await sdk.createWalletSessionByAccount({
      ...c,
      body: {
        validationUrl: "https://apple-pay-gateway.apple.com/paymentservices/startSession",
        origin: "shop.example",
        accountId: 2001,
      },
    }),
    400,
  );
  check(elsewhere === "Invalid field: origin", "origin outside the walletDomains");

  // the report (its own credentials and error body)
  const csv = ok(await sdk.createReport({ ...c, body: { dateFrom: "2026-01-01", dateTo: "2026-12-31" }, parseAs: "text" }));
  check(String(csv).startsWith("transactionId,"), "CSV report");
  fails(await sdk.createReport({ ...c, body: { dateFrom: "2026-02-01", dateTo: "2026-01-01" } }), 400, true);

  // the journal: each delivery's body typed by its kind
  const journal = ok(await sdk.listWebhookDeliveries({ ...c, query: { limit: 1000 } }));
  for (const d of journal) {
    switch (d.kind) {
      case "card_payment":
        check(d.body.mid === MERCHANT.mid, "card payment body");
        break;
      case "refund":
        check(d.body.refundId === refund.refundId, "refund body");
        break;
      case "subscription_charge":
        check(d.body.subscriptionId === subscriptionId, "subscription body");
        break;
      case "card_payout":
        check(d.body.totalAmount === 15, "card payout body");
        break;
      case "apm_payment":
        check(d.body.accountId === 2001, "APM payment body");
        break;
      case "apm_payout":
        check(d.body.apmType === "SMART_E_WALLET", "APM payout body");
        break;
    }
  }
  fails(await sdk.listWebhookDeliveries({ ...c, query: { limit: 0 } }), 400);
  const first = journal.at(-1);
  check(first !== undefined, "a delivery");
  if (first) {
    ok(await sdk.getWebhookDelivery({ ...c, path: { id: first.id } }));
    const replay = ok(await sdk.replayWebhookDelivery({ ...c, path: { id: first.id }, body: { chaos: "duplicate" } }));
    check(replay.replayOf === first.id && replay.chaos === "duplicate", "replay");
  }
  fails(await sdk.getWebhookDelivery({ ...c, path: { id: "wh_unknown" } }), 404);

  // events, the recording, a snapshot; reset; the sandbox deleted
  const events = await sdk.streamEvents({ ...c, query: { since: "0", types: "clock" }, sseMaxRetryAttempts: 1 });
  for await (const event of events.stream) {
    check(typeof event === "string" && event.includes("now"), "a clock event");
    break;
  }
  const recording = ok(await sdk.getRecording({ ...c, headers: { accept: "application/json" } }));
  check((recording.steps ?? []).length > 10, "the recording's steps");
  const snapshot = ok(await sdk.getSnapshot({ ...c, parseAs: "blob" }));
  check(snapshot.size > 1000, "a snapshot file");
  const coverage = ok(await sdk.getCoverage(c));
  const seen = coverage.behaviours.find((b) => b.id === "card.payment.failed.decline-5");
  check(seen !== undefined && seen.count > 0 && coverage.seen <= coverage.total, "the declined payment is covered");
  const reset = ok(await sdk.resetSandbox({ ...c, body: {} }));
  check(reset.status === "reset", "reset");
  fails(await sdk.resetSandbox({ ...c, body: { startTime: "yesterday" } }), 400);

  client.setConfig({ baseUrl: serverUrl });
  ok(await sdk.deleteSandbox({ ...c, path: { id: sandbox.id }, query: { force: "true" } }));
  return called;
}
