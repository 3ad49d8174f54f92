/**
 * What `paysandbox trigger KIND` can cause (docs/webhooks.md#building-a-receiver), made from the code's
 * own tables, never from a list of its own: the test cards of fixtures/test-cards.json (each outcome
 * their payment, recurring and payout columns give), the APM methods of the catalog (each direction
 * each takes) and the callback kinds of the signer table (every one has a trigger kind: a test
 * holds it). Each kind is the real calls that make its transaction, through the gateway API and the
 * control plane of one sandbox.
 */
import { randomUUID } from "node:crypto";
import { apmRequestExample } from "../modules/apm/apm.examples.js";
import { type ApmMethod, FIELD_EXAMPLES, METHODS } from "../modules/apm/methods.js";
import { CARD_BILLING, exampleDevice } from "../platform/examples.js";
import { type OutcomeSpec, TEST_CARDS, type TestCard } from "../platform/fixtures.js";
import type { CallbackKind } from "../webhooks/signer.js";

/** A JSON answer, read by the fields a kind needs. */
type Answer = { [field: string]: string | number | boolean | null | object | undefined };

/** The calls a kind makes, on one sandbox as its built-in merchant. */
export interface TriggerApi {
  /** A gateway call with the merchant's token; the parsed JSON answer (a non-2xx throws, naming it). */
  gateway(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A control-plane call (`/_sandbox/...`), with the admin token when there is one. */
  control(method: string, path: string, body?: unknown): Promise<Answer>;
  /** A shopper page's form posted with `fields` (the 3DS challenge, the hosted page). */
  page(path: string, fields: Record<string, string>): Promise<void>;
  merchant: { mid: string; merchantId: number; accountId: number; merchantSecret: string };
  /** Where the webhooks go. */
  callbackUrl: string;
}

export interface TriggerKind {
  name: string;
  /** The callback it sends (the signer table's row). */
  callback: CallbackKind;
  description: string;
  /** Makes the transaction; answers the id whose deliveries to report (a transaction, or a subscription's). */
  run(api: TriggerApi): Promise<{ transactionId?: string; subscriptionId?: string }>;
}

type Column = "payment" | "payout" | "later";
const outcomeOf = (card: TestCard, column: Column): OutcomeSpec | undefined =>
  column === "later" ? card.recurring?.later : card[column];

/** The first test card whose column gives `status`. */
function cardFor(column: Column, status: OutcomeSpec["status"]): TestCard | undefined {
  return TEST_CARDS.find((c) => outcomeOf(c, column)?.status === status);
}

/** The statuses a column of the test cards gives, in the table's order. */
const statusesOf = (column: Column) => [...new Set(TEST_CARDS.flatMap((c) => outcomeOf(c, column)?.status ?? []))];

/** `card-payment`, `card-payment-failed`, `card-payment-3ds`: an outcome's suffix. */
const SUFFIX: Partial<Record<OutcomeSpec["status"], string>> = { SUCCEED: "", FAILED: "-failed", CUSTOMER_VERIFICATION: "-3ds" };
const slug = (name: string) => name.toLowerCase().replaceAll("_", "-");

/** The card examples' shopper and a browser 3DS takes (src/platform/examples.ts). */
const BILLING = CARD_BILLING;
const DEVICE = exampleDevice("paysandbox trigger", "3ds");
/** An expiry the gateway takes whatever the sandbox's clock (it checks "not in the past" against it). */
const expiry = () => ({ expMonth: "12", expYear: "2099" });

const redirects = (api: TriggerApi) => {
  const origin = new URL(api.callbackUrl).origin;
  return { successRedirectUrl: `${origin}/ok`, failureRedirectUrl: `${origin}/ko` };
};

async function cardPayment(api: TriggerApi, card: TestCard, threeDs?: "success" | "failure") {
  const answer = await api.gateway("POST", "/api/v1/payments/card", {
    requestId: randomUUID(),
    mid: api.merchant.mid,
    card: { number: card.number, ...expiry(), cvv: "123", requestThreeDSecure: threeDs !== undefined },
    amount: "20.50",
    currency: "USD",
    lang: "en",
    callbackUrl: api.callbackUrl,
    ...redirects(api),
    billingDetails: BILLING,
    order: { orderId: `trigger-${randomUUID()}` },
    device: DEVICE,
  });
  const id = String(answer.transactionId);
  if (threeDs) await api.page(`/sandbox/3ds/${encodeURIComponent(id)}`, { outcome: threeDs });
  return id;
}

async function oneClick(api: TriggerApi, card: TestCard) {
  const token = await api.gateway("POST", "/api/v1/payments/card/tokenize", {
    requestId: randomUUID(),
    merchantId: api.merchant.merchantId,
    card: { number: card.number, ...expiry(), cvv: "123" },
    billingDetails: BILLING,
  });
  const answer = await api.gateway("POST", "/api/v1/payments/card/charge", {
    requestId: randomUUID(),
    mid: api.merchant.mid,
    cardToken: token.token,
    amount: "12.00",
    currency: "USD",
    callbackUrl: api.callbackUrl,
    ...redirects(api),
    device: DEVICE,
  });
  return String(answer.transactionId);
}

const cardKinds = (): TriggerKind[] =>
  statusesOf("payment").flatMap((status) => {
    const card = cardFor("payment", status);
    const suffix = SUFFIX[status];
    if (!card || suffix === undefined) return [];
    const what = `card ${card.number} (${card.label})`;
    if (status === "CUSTOMER_VERIFICATION") {
      return (["success", "failure"] as const).map((outcome) => ({
        name: `card-payment-3ds${outcome === "failure" ? "-failed" : ""}`,
        callback: "card_payment" as const,
        description: `a card payment with ${what}, its 3DS challenge answered ${outcome}`,
        run: async (api: TriggerApi) => ({ transactionId: await cardPayment(api, card, outcome) }),
      }));
    }
    return [
      {
        name: `card-payment${suffix}`,
        callback: "card_payment" as const,
        description: `a card payment with ${what}`,
        run: async (api: TriggerApi) => ({ transactionId: await cardPayment(api, card) }),
      },
      {
        name: `one-click${suffix}`,
        callback: "card_payment" as const,
        description: `a one-click charge of a token of ${what}`,
        run: async (api: TriggerApi) => ({ transactionId: await oneClick(api, card) }),
      },
    ];
  });

const payoutKinds = (): TriggerKind[] =>
  statusesOf("payout").flatMap((status) => {
    const card = cardFor("payout", status);
    const suffix = SUFFIX[status];
    if (!card || suffix === undefined) return [];
    return [
      {
        name: `card-payout${suffix}`,
        callback: "card_payout" as const,
        description: `a card payout to ${card.number} (${card.label})${status === "SUCCEED" ? ": PENDING, then SUCCEED a virtual minute later" : ""}`,
        run: async (api: TriggerApi) => {
          const answer = await api.gateway("POST", "/api/v1/payouts/card", {
            requestId: randomUUID(),
            mid: api.merchant.mid,
            userEmail: "jane@example.com",
            amount: "15.00",
            card: { number: card.number, ...expiry(), cardHolder: "Jane Doe" },
            callbackUrl: api.callbackUrl,
          });
          await api.control("POST", "/_sandbox/clock/advance", { by: "PT2M" });
          return { transactionId: String(answer.transactionId) };
        },
      },
    ];
  });

const refundKind = (): TriggerKind[] => {
  const card = cardFor("payment", "SUCCEED");
  if (!card) return [];
  return [
    {
      name: "refund",
      callback: "refund",
      description: `a refund of a card payment with ${card.number}: PENDING, then SUCCEED a virtual minute later`,
      run: async (api) => {
        const paid = await cardPayment({ ...api, callbackUrl: api.callbackUrl }, card);
        const refund = await api.gateway("POST", "/api/v1/refunds/card", {
          requestId: randomUUID(),
          mid: api.merchant.mid,
          transactionId: paid,
          amount: "20.50",
          reason: "paysandbox trigger",
          callbackUrl: api.callbackUrl,
        });
        await api.control("POST", "/_sandbox/clock/advance", { by: "PT2M" });
        return { transactionId: String(refund.refundId) };
      },
    },
  ];
};

const subscriptionKinds = (): TriggerKind[] =>
  statusesOf("later").flatMap((status) => {
    const card = TEST_CARDS.find((c) => c.recurring?.first?.status === "SUCCEED" && c.recurring.later?.status === status);
    const suffix = SUFFIX[status];
    if (!card || suffix === undefined) return [];
    return [
      {
        name: `subscription-charge${suffix}`,
        callback: "subscription_charge" as const,
        description: `a monthly subscription on ${card.number} (${card.label}), its second charge a month later`,
        run: async (api: TriggerApi) => {
          const token = await api.gateway("POST", "/api/v1/payments/card/tokenize", {
            requestId: randomUUID(),
            merchantId: api.merchant.merchantId,
            card: { number: card.number, ...expiry(), cvv: "123" },
            billingDetails: BILLING,
          });
          const clock = await api.control("GET", "/_sandbox/clock");
          const sub = await api.gateway("POST", "/api/v1/payments/card/recurring", {
            requestId: randomUUID(),
            mid: api.merchant.mid,
            cardToken: token.token,
            plan: {
              amount: "9.99",
              currency: "USD",
              frequency: "MONTHLY",
              interval: 1,
              startDate: String(clock.now).slice(0, 10),
            },
            order: { orderId: `trigger-${randomUUID()}` },
            device: DEVICE,
            callbackUrl: api.callbackUrl,
            ...redirects(api),
          });
          await api.control("POST", "/_sandbox/clock/advance", { by: "P1M" });
          return { subscriptionId: String(sub.subscriptionId) };
        },
      },
    ];
  });

/** How an APM pay-in of method `m` reaches its final status: by itself, a minute later, or on its page. */
async function finishApm(api: TriggerApi, m: ApmMethod, id: string, status: string): Promise<void> {
  if (status === "PENDING" && m.actionType !== "NONE") {
    // the shopper's page: the hosted page takes the fields it asks for, the QR page only the outcome
    const fields: Record<string, string> = { outcome: "success" };
    for (const f of m.alwaysHpp ? (m.hppFields ?? m.requiredFields) : []) fields[f] = FIELD_EXAMPLES[f] ?? "Jane Doe";
    await api.page(`/sandbox/${m.actionType === "QR" ? "qr" : "hpp"}/${encodeURIComponent(id)}`, fields);
  }
  await api.control("POST", "/_sandbox/clock/advance", { by: "PT2M" });
}

const apmKinds = (): TriggerKind[] =>
  METHODS.flatMap((m) =>
    m.directions.map((direction) => ({
      name: `apm-${direction === "payin" ? "payment" : "payout"}-${slug(m.paymentMethod)}`,
      callback: direction === "payin" ? ("apm_payment" as const) : ("apm_payout" as const),
      description: `an APM ${direction === "payin" ? "pay-in" : "payout"} by ${m.paymentMethod} (${m.paymentType}${
        direction === "payin" && m.actionType !== "NONE"
          ? `, completed on its ${m.actionType === "QR" ? "QR" : "hosted"} page`
          : ""
      })`,
      run: async (api: TriggerApi) => {
        const body = apmRequestExample(m, direction, {
          requestId: randomUUID(),
          accountId: String(api.merchant.accountId),
          merchantSecret: api.merchant.merchantSecret,
          callbackUrl: api.callbackUrl,
        });
        const path = direction === "payin" ? "/api/v1/payments/apm" : "/api/v1/payouts/apm";
        const answer = await api.gateway("POST", path, body, { referer: new URL(api.callbackUrl).origin });
        const id = String(answer.transactionId);
        await finishApm(api, m, id, String(answer.transactionStatus));
        return { transactionId: id };
      },
    })),
  );

/** Every kind, in the order `paysandbox trigger --help` lists them. */
export const TRIGGER_KINDS: readonly TriggerKind[] = [
  ...cardKinds(),
  ...refundKind(),
  ...payoutKinds(),
  ...subscriptionKinds(),
  ...apmKinds(),
];

export const triggerKind = (name: string): TriggerKind | undefined => TRIGGER_KINDS.find((k) => k.name === name);
