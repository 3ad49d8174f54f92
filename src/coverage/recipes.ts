/**
 * A Cause as a steps file (docs/coverage.md#the-catalogue, docs/run.md): what its hint says, as requests,
 * page answers and clock moves that `paysandbox run` plays on a fresh sandbox. The test that walks
 * the catalogue runs one per behaviour and sees each counted, so every hint is proven true; a person
 * gets the same file from `paysandbox coverage --recipe ID`.
 *
 * Each act works on what the acts before it made: the last card transaction (a payment, a one-click
 * charge, a subscription's first charge), the last token, subscription, APM transaction, delivery
 * and create call. Request ids are fixed (`r1`, `r2`...): a recipe runs on a sandbox of its own.
 */
import { methodOf } from "../modules/apm/methods.js";
import type { Act, Answering, Behaviour } from "../platform/behaviours.js";
import { CARD_BILLING, EXAMPLE_IP, EXAMPLE_PHONE, exampleDevice } from "../platform/examples.js";
import { BUILTIN_MERCHANT, TEST_CARDS } from "../platform/fixtures.js";
import { hintOf } from "./hints.js";

/** Where a recipe's clock starts: its dates (a subscription's startDate) are written from it. */
export const RECIPE_START = "2026-03-01T09:00:00Z";
const TODAY = RECIPE_START.slice(0, 10);
/** The first test card approved in every column (fixtures/test-cards.json). */
const APPROVED = (
  TEST_CARDS.find((c) => [c.payment, c.recurring.first, c.recurring.later, c.payout].every((o) => o.status === "SUCCEED")) ??
  (TEST_CARDS[0] as (typeof TEST_CARDS)[number])
).number;

/** The merchant a recipe with chaos or a processing currency adds and acts as. */
const MERCHANT = {
  merchantKey: "coverage_key",
  merchantSecret: "coverage_secret",
  mid: "coverage-mid",
  merchantId: 7101,
  accountId: 7201,
};

type Step = Record<string, unknown>;
/** What an act may work on: the last card transaction, token, subscription, APM transaction, transaction of any kind. */
type Made = "card" | "token" | "sub" | "apm" | "tx";

/** `${callbackUrl}` of the run's receiver, answering as asked (docs/run.md#steps). */
// biome-ignore-start lint/suspicious/noTemplateCurlyInString: step references, not templates
const CALLBACK: Record<Answering, string> = {
  ok: "${callbackUrl}",
  "refuse-first": "${callbackUrl}?fail=1",
  "refuse-all": "${callbackUrl}?fail=all",
};
// biome-ignore-end lint/suspicious/noTemplateCurlyInString: step references, not templates
/** The runner fills in the APM request checksum (docs/run.md). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a step reference, not a template
const CHECKSUM = "${checksum}";

const BILLING = CARD_BILLING;
const DEVICE = exampleDevice("Mozilla/5.0 (paysandbox coverage)", "3ds");
const REDIRECTS = { successRedirectUrl: "https://shop.example/ok", failureRedirectUrl: "https://shop.example/ko" };
/** The apmPayload fields each method may need, with values the catalog's patterns accept. */
const APM_FIELDS: Record<string, Record<string, unknown>> = {
  walletId: { walletId: "wallet-4471-0090" },
  accountNumber: { accountNumber: "000123456789" },
  bankName: { bankName: "Sandbox Bank" },
  accountHolderName: { accountHolderName: "Ada Lovelace" },
  bankAccountType: { bankAccountType: "SAVINGS" },
  token: { token: { paymentData: { data: "ZW5jcnlwdGVkLXdhbGxldC1kYXRh" } } },
};

const day = (n: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const card = (number: string) => ({ number, cardHolderName: "Ada Lovelace", expMonth: "12", expYear: "2030", cvv: "737" });

/** Builds the steps of one cause, tracking what each act made. */
class Recipe {
  readonly steps: Step[] = [];
  readonly rules: Array<Record<string, unknown>> = [];
  readonly merchant: Record<string, unknown> = {};
  private n = 0;
  private readonly last: Record<Made, string | undefined> = {
    card: undefined,
    token: undefined,
    sub: undefined,
    apm: undefined,
    tx: undefined,
  };
  private lastCreate: Step | undefined;
  /** What each card transaction made was for, in cents (what a refund of it may take). */
  private readonly paid = new Map<string, number>();

  private get m() {
    return Object.keys(this.merchant).length > 0 ? MERCHANT : BUILTIN_MERCHANT;
  }

  private name(what: string): string {
    this.n++;
    return `${what}${this.n}`;
  }

  private create(name: string, request: string, body: Record<string, unknown>, extra: Step = {}): void {
    // a fault rule answers the create its status instead (docs/scenarios.md#api-faults)
    const fault = this.rules.find((r) => r.httpStatus !== undefined)?.httpStatus;
    const expect = fault === undefined ? {} : { expect: { status: fault } };
    const step: Step = { name, request, body: { requestId: `r${this.n}`, ...body }, save: name, ...expect, ...extra };
    this.steps.push(step);
    this.lastCreate = step;
  }

  private needs(what: Made): string {
    const v = this.last[what];
    if (!v) throw new Error(`coverage recipe: no ${what} made before this act (src/coverage/recipes.ts)`);
    return v;
  }

  add(a: Act): void {
    const m = this.m;
    switch (a.act) {
      case "rule":
        this.rules.push({ ...a.rule });
        return;
      case "chaos":
        this.merchant.webhookChaos = { [a.mode]: 1 };
        return;
      case "convert":
        this.merchant.processingCurrency = a.processingCurrency;
        return;
      case "pay": {
        const name = this.name("pay");
        this.create(name, "POST /api/v1/payments/card", {
          mid: m.mid,
          amount: "20.00",
          currency: "USD",
          lang: "en",
          card: { ...card(a.card ?? APPROVED), requestThreeDSecure: a.threeDS === true },
          billingDetails: BILLING,
          order: { orderId: name },
          device: DEVICE,
          callbackUrl: CALLBACK[a.webhook ?? "ok"],
          ...REDIRECTS,
        });
        this.last.card = this.last.tx = name;
        this.paid.set(name, 2000);
        return;
      }
      case "tokenize": {
        const name = this.name("token");
        const { cardHolderName: _holder, ...c } = card(a.card ?? APPROVED);
        this.create(name, "POST /api/v1/payments/card/tokenize", { merchantId: m.merchantId, card: c, billingDetails: BILLING });
        this.last.token = name;
        return;
      }
      case "charge": {
        const token = this.needs("token");
        const name = this.name("charge");
        this.create(name, "POST /api/v1/payments/card/charge", {
          mid: m.mid,
          cardToken: `\${${token}.token}`,
          amount: "20.00",
          currency: "USD",
          order: { orderId: name },
          device: DEVICE,
          callbackUrl: CALLBACK.ok,
          ...REDIRECTS,
        });
        this.last.card = this.last.tx = name;
        this.paid.set(name, 2000);
        return;
      }
      case "subscribe": {
        this.add({ act: "tokenize", ...(a.card ? { card: a.card } : {}) });
        const token = this.needs("token");
        const name = this.name("sub");
        const plan: Record<string, unknown> = {
          amount: "9.99",
          currency: "USD",
          frequency: "MONTHLY",
          interval: 1,
          startDate: a.trial ? day(a.startIn ?? 1) : TODAY,
        };
        if (a.endIn !== undefined) plan.endDate = day(a.endIn);
        this.create(name, "POST /api/v1/payments/card/recurring", {
          mid: m.mid,
          cardToken: `\${${token}.token}`,
          plan,
          order: { orderId: name },
          device: DEVICE,
          ...(a.trial ? { skipFirstCharge: true } : {}),
          callbackUrl: CALLBACK.ok,
          ...REDIRECTS,
        });
        this.last.sub = name;
        // its first charge is the last card transaction (none with a trial)
        if (!a.trial) {
          this.last.card = this.last.tx = name;
          this.paid.set(name, 999);
        }
        return;
      }
      case "set-status":
        this.steps.push({
          request: `PUT /api/v1/payments/card/recurring/\${${this.needs("sub")}.subscriptionId}`,
          body: { status: a.status },
          expect: { status: 200 },
        });
        return;
      case "unsubscribe":
        this.steps.push({ request: `DELETE /api/v1/payments/card/recurring/\${${this.needs("sub")}.subscriptionId}` });
        return;
      case "refund": {
        const paid = this.needs("card");
        const name = this.name("refund");
        const whole = this.paid.get(paid) ?? 0;
        const cents = a.amount === "all" ? whole : a.amount === "part" ? Math.floor(whole / 4) : whole + 1;
        this.create(
          name,
          "POST /api/v1/refunds/card",
          {
            mid: m.mid,
            transactionId: `\${${paid}.transactionId}`,
            amount: (cents / 100).toFixed(2),
            reason: "coverage",
            callbackUrl: CALLBACK.ok,
          },
          a.amount === "too much" ? { expect: { status: 400 } } : {},
        );
        this.last.tx = `${name}:refundId`;
        return;
      }
      case "payout": {
        const name = this.name("payout");
        const { cardHolderName: _h, cvv: _c, ...c } = card(a.card ?? APPROVED);
        this.create(name, "POST /api/v1/payouts/card", {
          mid: m.mid,
          userEmail: "ada@example.com",
          amount: "25.00",
          currency: "USD",
          card: { ...c, cardHolder: "Ada Lovelace" },
          callbackUrl: CALLBACK.ok,
        });
        this.last.tx = name;
        return;
      }
      case "apm-pay":
      case "apm-payout": {
        const method = methodOf(a.method);
        if (!method) throw new Error(`coverage recipe: unknown APM method ${a.method}`);
        const payin = a.act === "apm-pay";
        const name = this.name(payin ? "apm" : "apmpayout");
        const fields = a.fields ? Object.assign({}, ...method.requiredFields.map((f) => APM_FIELDS[f] ?? { [f]: "x" })) : {};
        const decrypted =
          a.act === "apm-pay" && a.decrypted ? { decrypted: { applicationPrimaryAccountNumber: a.decrypted } } : {};
        const currency = Array.isArray(method.currencies) ? (method.currencies[0] as string) : "USD";
        this.create(
          name,
          payin ? "POST /api/v1/payments/apm" : "POST /api/v1/payouts/apm",
          {
            accountId: String(m.accountId),
            amount: "20.00",
            currency,
            apmPayload: { paymentMethod: method.paymentMethod, paymentType: method.paymentType, ...fields, ...decrypted },
            order: { orderId: name },
            billingDetails: { ...BILLING, phone: EXAMPLE_PHONE },
            device: { ip: EXAMPLE_IP },
            callbackUrl: CALLBACK.ok,
            ...REDIRECTS,
            checksum: CHECKSUM,
          },
          payin ? {} : { headers: { referer: "https://shop.example/checkout" } },
        );
        this.last.apm = this.last.tx = name;
        return;
      }
      case "3ds":
        this.steps.push({ threeDS: { transactionId: `\${${this.needs("card")}.transactionId}`, outcome: a.outcome } });
        return;
      case "page": {
        const apm = this.needs("apm");
        const step = this.steps.find((s) => s.save === apm);
        const method = methodOf(
          ((step?.body as { apmPayload?: { paymentMethod?: string } })?.apmPayload?.paymentMethod ?? "") as string,
        );
        const page = method?.actionType === "QR" ? "qr" : "hpp";
        const answer: Record<string, unknown> = { transactionId: `\${${apm}.transactionId}`, outcome: a.outcome };
        if (page === "hpp" && a.outcome === "success" && method) {
          const wanted = method.alwaysHpp ? (method.hppFields ?? method.requiredFields) : method.requiredFields;
          answer.fields = Object.fromEntries(wanted.map((f) => [f, hppValue(f)]));
        }
        this.steps.push({ [page]: answer });
        return;
      }
      case "complete": {
        const tx = this.needs("tx");
        const [saved, field = "transactionId"] = tx.split(":");
        this.steps.push({
          request: `POST /_sandbox/transactions/\${${saved}.${field}}/complete`,
          body: { status: a.status, ...(a.declineCode === undefined ? {} : { declineCode: a.declineCode }) },
        });
        return;
      }
      case "advance":
        this.steps.push({ advance: a.by });
        return;
      case "replay": {
        const tx = this.needs("tx");
        const [saved, field = "transactionId"] = tx.split(":");
        const hooks = this.name("hooks");
        this.steps.push({ request: `GET /_sandbox/webhooks?transactionId=\${${saved}.${field}}`, save: hooks });
        this.steps.push({ request: `POST /_sandbox/webhooks/\${${hooks}.0.id}/replay`, body: {} });
        return;
      }
      case "again": {
        const first = this.lastCreate;
        if (!first) throw new Error("coverage recipe: nothing to send again");
        const body = first.body as Record<string, unknown>;
        const { save: _save, name: _name, ...rest } = first;
        this.steps.push({
          ...rest,
          body: a.changed ? { ...body, order: { orderId: "another" }, ...(body.amount ? { amount: "21.00" } : {}) } : body,
          expect: { status: a.changed ? 409 : 200 },
        });
        return;
      }
      case "bad-call":
        this.steps.push(badCall(a.fault, m.mid));
        return;
    }
  }
}

/** What a hosted payment page field gets typed into it. */
function hppValue(field: string): string {
  const known = APM_FIELDS[field]?.[field];
  if (typeof known === "string") return known;
  if (field === "token") return "ZW5jcnlwdGVkLXdhbGxldC1kYXRh";
  return { institutionNumber: "001", transitNumber: "12345" }[field] ?? "000123456789";
}

function badCall(fault: "token" | "body" | "unknown id", mid: string): Step {
  switch (fault) {
    case "token":
      return {
        request: "GET /api/v1/payments/card/status/tx_unknown",
        headers: { authorization: "Bearer not-a-token" },
        expect: { status: 401 },
      };
    case "body":
      return { request: "POST /api/v1/payments/card", body: { requestId: "bad", mid, amount: "-1" }, expect: { status: 400 } };
    case "unknown id":
      return { request: "GET /api/v1/payments/card/status/tx_unknown", expect: { status: 404 } };
  }
}

/** The steps file that causes `b`: its hint as `name`, the scenario its setup acts need, its steps. */
export function recipeOf(b: Behaviour): Record<string, unknown> {
  const r = new Recipe();
  // the setup acts first: a merchant's settings decide whom the other acts act as
  for (const a of b.cause.acts) if (a.act === "chaos" || a.act === "convert") r.add(a);
  for (const a of b.cause.acts) if (a.act !== "chaos" && a.act !== "convert") r.add(a);
  const merchants = Object.keys(r.merchant).length > 0 ? [{ ...MERCHANT, ...r.merchant }] : [];
  return {
    name: `coverage-${b.id}`,
    description: hintOf(b.cause),
    startTime: RECIPE_START,
    ...(merchants.length > 0 ? { merchants } : {}),
    ...(r.rules.length > 0 ? { rules: r.rules } : {}),
    steps: r.steps,
  };
}
