/**
 * Shared by the tokens and subscriptions suites: valid tokenize, one-click and subscription bodies for the
 * built-in merchant and a few calls. Every call fetches a fresh bearer token, because these
 * suites move the virtual clock past the 30-day token lifetime.
 */
import { BUILTIN, type TestSandbox } from "../helpers/harness.js";
import { BILLING, CARDS, DEVICE } from "./payments.body.js";

export { BILLING, CARDS, DEVICE } from "./payments.body.js";

let n = 0;
export const rid = (prefix = "req") => `${prefix}-${process.pid}-${++n}`;

type Json = Record<string, unknown>;

export function tokenizeBody(over: Json & { card?: Json } = {}): Json {
  const { card, ...rest } = over;
  return {
    requestId: rid("tok"),
    merchantId: 1001,
    card: { number: CARDS.visa, expMonth: "12", expYear: "2030", cvv: "737", ...card },
    billingDetails: BILLING,
    ...rest,
  };
}

export function chargeBody(cardToken: string, callbackUrl: string, over: Json = {}): Json {
  return {
    requestId: rid("chg"),
    mid: "sandbox-mid-001",
    cardToken,
    amount: "20.50",
    currency: "USD",
    callbackUrl,
    successRedirectUrl: "https://shop.example/ok",
    failureRedirectUrl: "https://shop.example/ko",
    ...over,
  };
}

export function subscriptionBody(cardToken: string, callbackUrl: string, over: Json & { plan?: Json } = {}): Json {
  const { plan, ...rest } = over;
  return {
    requestId: rid("sub"),
    mid: "sandbox-mid-001",
    cardToken,
    plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15", ...plan },
    order: { orderId: "plan-1" },
    device: DEVICE,
    callbackUrl,
    successRedirectUrl: "https://shop.example/ok",
    failureRedirectUrl: "https://shop.example/ko",
    ...rest,
  };
}

/** Gateway calls with a fresh bearer token for the given merchant (default: the built-in one). */
export function gateway(s: TestSandbox, creds?: [string, string]) {
  const auth = () => (creds ? s.token(...creds) : s.token());
  return {
    post: async (path: string, body: unknown) =>
      s.http
        .post(`/api/v1${path}`)
        .set("authorization", await auth())
        .send(body as object),
    put: async (path: string, body: unknown) =>
      s.http
        .put(`/api/v1${path}`)
        .set("authorization", await auth())
        .send(body as object),
    get: async (path: string) => s.http.get(`/api/v1${path}`).set("authorization", await auth()),
    delete: async (path: string) => s.http.delete(`/api/v1${path}`).set("authorization", await auth()),
  };
}

/** Tokenizes a card for the built-in merchant; returns the token string. */
export async function tokenFor(s: TestSandbox, number: string = CARDS.visa, over: Json = {}): Promise<string> {
  const res = await gateway(s).post("/payments/card/tokenize", tokenizeBody({ card: { number }, ...over }));
  if (res.status !== 200) throw new Error(`tokenize failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

/** The subscription callbacks of one subscription in the journal, oldest first. */
export async function subscriptionCallbacks(s: TestSandbox, subscriptionId: string): Promise<Json[]> {
  const res = await s.http.get("/_sandbox/webhooks").query({ subscriptionId, limit: 1000 });
  return (res.body as Array<{ kind: string; body: Json }>)
    .filter((d) => d.kind === "subscription_charge")
    .map((d) => d.body)
    .reverse();
}

export const advance = (s: TestSandbox, by: string) => s.http.post("/_sandbox/clock/advance").send({ by });

/** A second merchant, loaded the scenario way. */
export const OTHER_MERCHANT = {
  merchantKey: "other_key",
  merchantSecret: "other_secret",
  mid: "other-mid",
  merchantId: 5001,
  accountId: 6001,
} as const;

export async function addOtherMerchant(s: TestSandbox): Promise<[string, string]> {
  const res = await s.http.post("/_sandbox/scenarios").send({ name: "other-merchant", merchants: [OTHER_MERCHANT] });
  if (res.status !== 200) throw new Error(`scenario load failed: ${JSON.stringify(res.body)}`);
  return [OTHER_MERCHANT.merchantKey, OTHER_MERCHANT.merchantSecret];
}

/** Seeds a token of the built-in merchant with no billing details (the fallback error). */
export function seedTokenWithoutBilling(s: TestSandbox, token = "tok_noBillingAtAll0000"): string {
  s.ctx.tokens.repo.insert({
    token,
    merchantKey: BUILTIN.merchantKey,
    requestId: "seeded",
    cardBin: "411111",
    cardLast4: "1111",
    expMonth: "12",
    expYear: "2030",
    cardProfile: s.ctx.outcomes.profileFor(CARDS.visa),
    expirationDate: "2026-12-31",
    billingDetails: null,
    createdAt: s.clock.nowMs(),
  });
  return token;
}
