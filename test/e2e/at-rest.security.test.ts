/**
 * No card number or CVV at rest, on any path (docs/cards.md#card-data; docs/scenarios.md "a stored scenario
 * document holds no steps"; docs/cards.md "Card data"). The real server on a file database with
 * LOG_LEVEL=trace is driven through every feature once, each with a card number of its own
 * (Luhn-valid, several schemes and lengths, a 19-digit one among them) and a CVV of its own:
 * card payments with and without 3DS (the challenge form posted), tokenize + one-click, a
 * subscription charged by a clock advance, a refund, a card payout, APM pay-ins (the hosted page
 * posted, with a card and a CVV among extra autofilled fields, a QR pay-in, a wallet pay-in with a
 * decrypted PAN), an APM payout, the report (CSV and XLS), a replay, a 409 and 400s that carry a card
 * (a number failing Luhn, a CVV sent as a JSON number), scenarios (JSON and YAML, and one refused)
 * whose steps hold a card and a CVV, sandboxes created with such scenarios (a JSON object and a YAML
 * string), and `paysandbox run --target --keep` of a steps file paying with a card and a CVV. The
 * files under the database's folder are read while the server runs (the db, its -wal and -shm,
 * `<db>-sandboxes/`) and again after SIGTERM, and with everything it logged they are scanned: no PAN
 * in full, no CVV. The same scan must find what IS expected there (orderIds, requestIds and scenario
 * names sent, X-Request-Ids in the log), so it is known to read the right bytes. The snapshots of the
 * root and of a sandbox (docs/snapshots.md) are scanned the same way, and a fork's files with the others.
 *
 * The scenario's own `cards` entries are the documented exception (stored as written): they hold a
 * test number that is not scanned for.
 */
import { createHmac, randomInt } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_IP, EXAMPLE_PHONE } from "../../src/platform/examples.js";
import { type RunningServer, runCli, startServer } from "../helpers/server.js";
import { BILLING, DEVICE, THREE_DS_DEVICE } from "../http/payments.body.js";

const MERCHANT = {
  merchantKey: "sandbox_merchant_key",
  merchantSecret: "sandbox_merchant_secret",
  mid: "sandbox-mid-001",
  merchantId: 1001,
  accountId: 2001,
};

/** A run-unique tag: every orderId and request id below carries it, so what the scan must find is this run's. */
const RUN = `atrest${randomInt(1e9).toString(36)}`;

/** A Luhn-valid number of `length` digits starting with `prefix`, the rest random. */
function luhnNumber(prefix: string, length: number): string {
  let body = prefix;
  while (body.length < length - 1) body += String(randomInt(10));
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

/** The Luhn check, written here (not the project's). */
function luhnOk(n: string): boolean {
  let sum = 0;
  for (let i = 0; i < n.length; i++) {
    let d = Number(n[n.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

const usedCvvs = new Set<string>();
/**
 * A 4-digit CVV of 7000-9999 (no year, merchant id, amount or screen size of the bodies here), unique
 * in the run and none of `avoid` (the cards' last 4 digits, which are stored and end every mask:
 * `…******7785"`): distinctive enough to be looked for bare, bounded by characters that are not
 * letters, digits, `_` or `-` (so a timestamp, a uuid segment or an id never matches).
 */
function cvv(avoid: ReadonlySet<string>): string {
  for (;;) {
    const c = String(randomInt(7000, 10_000));
    if (!usedCvvs.has(c) && !avoid.has(c)) {
      usedCvvs.add(c);
      return c;
    }
  }
}

interface Secret {
  use: string;
  number: string;
  cvv: string;
}
/** Every card number and CVV sent in this run; none may be at rest. */
const SECRETS: Secret[] = [];
function card(use: string, prefix: string, length: number): Secret {
  let number = luhnNumber(prefix, length);
  while (SECRETS.some((s) => s.number === number)) number = luhnNumber(prefix, length);
  const s = { use, number, cvv: "" };
  SECRETS.push(s);
  return s;
}

// distinct cards, several schemes and lengths; none is a test card of the table (all take the default:
// SUCCEED, with 3DS when asked), so every outcome below is the default one
const C = {
  payment: card("card payment", "4539", 16), // Visa
  threeDs: card("3DS payment", "6759", 19), // Maestro, 19 digits
  oneClick: card("tokenize + one-click", "3782", 15), // Amex
  subscription: card("subscription token", "6011", 16), // Discover
  payout: card("card payout", "5425", 16), // Mastercard
  wallet: card("wallet decrypted PAN", "3530", 16), // JCB
  hppAutofill: card("extra fields posted to the hosted page", "5555", 16),
  luhnBad: { use: "400: a number failing Luhn", number: "", cvv: "" },
  conflict: card("409: requestId reused with another card", "2223", 16), // Mastercard 2-series
  cvvNumber: card("400: a CVV sent as a JSON number", "4485", 16),
  scenarioJson: card("steps of a scenario posted as JSON", "3056", 14), // Diners
  scenarioYaml: card("steps of a scenario posted as YAML", "4929", 13), // Visa, 13 digits
  scenarioRefused: card("steps of a scenario refused with a 400", "6011", 16),
  sandboxJson: card("steps of a sandbox's scenario (JSON)", "6221", 17), // UnionPay
  sandboxYaml: card("steps of a sandbox's scenario (YAML string)", "4026", 18), // Visa Electron
  inSandbox: card("card payment in a sandbox", "5105", 16),
  runnerPay: card("paysandbox run --target: payment step", "4917", 16),
  runnerTok: card("paysandbox run --target: tokenize step", "3714", 15),
};
// a Luhn-failing number is no card, but a mistyped real one: it must not be kept either
C.luhnBad.number = `${C.payment.number.slice(0, 15)}${(Number(C.payment.number.slice(15)) + 1) % 10}`;
SECRETS.push(C.luhnBad);
// the CVVs once every number is known
const LAST_FOURS = new Set(SECRETS.map((s) => s.number.slice(-4)));
for (const s of SECRETS) s.cvv = cvv(LAST_FOURS);

/** The test card a scenario's `cards` entry declares: stored as written (the documented exception), so not scanned for. */
const SCENARIO_CARD = "4242424242424242";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-atrest-steps-"));
let server: RunningServer;
let token = "";
/** Ids sent as X-Request-Id: the log must show them (it is the log the scan reads). */
const sentRequestIds: string[] = [];
/** Values that must be found at rest: the scan is known to read the bytes they are in. */
const expectedInRoot: string[] = [];
const expectedInSandboxes: string[] = [];

const hmac = (secret: string, message: string) => createHmac("sha256", secret).update(message).digest("base64");

let reqN = 0;
async function call(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string>; auth?: string | false } = {},
) {
  const reqId = `${RUN}-req-${++reqN}`;
  sentRequestIds.push(reqId);
  const auth: Record<string, string> = init.auth === false ? {} : { authorization: init.auth ?? token };
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined && init.raw === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", "x-request-id": reqId, ...auth, ...init.headers },
    body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
    redirect: "manual",
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {}
  return { status: res.status, body, text, headers: res.headers };
}

/** A form post as a browser sends it (the 3DS, hosted and QR pages). */
async function postForm(url: string, fields: Record<string, string>) {
  const reqId = `${RUN}-req-${++reqN}`;
  sentRequestIds.push(reqId);
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": reqId },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location") };
}

async function login(base: string): Promise<string> {
  const res = await call(base, "/api/v1/auth", {
    body: { merchantKey: MERCHANT.merchantKey, merchantSecret: MERCHANT.merchantSecret },
    auth: false,
  });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/** A card payment with `s`'s number and CVV; its orderId must be found at rest. */
function payment(s: Secret, over: Record<string, unknown> = {}, where = expectedInRoot) {
  const orderId = `${RUN}-order-${reqN + 1}-${s.use.replace(/\W+/g, "-")}`;
  where.push(orderId);
  return {
    requestId: `${RUN}-pay-${++reqN}`,
    mid: MERCHANT.mid,
    amount: "20.50",
    currency: "USD",
    lang: "en",
    card: {
      number: s.number,
      cardHolderName: "Ada Lovelace",
      expMonth: "12",
      expYear: "2030",
      cvv: s.cvv,
      requestThreeDSecure: false,
    },
    billingDetails: BILLING,
    order: { orderId },
    device: DEVICE,
    callbackUrl: "http://127.0.0.1:9/hooks",
    ...over,
  };
}

/** A steps list whose one request pays with `s` (what is never to be stored). */
const stepsPaying = (s: Secret) => [
  { name: "pays with a card", request: "POST /api/v1/payments/card", body: payment(s, {}, []), expect: { status: 200 } },
];

/** A scenario document whose steps pay with `s`; its `cards` hold only the untracked test number. */
const scenarioDoc = (name: string, s: Secret) => ({
  name,
  cards: [{ number: SCENARIO_CARD, payment: { status: "FAILED", declineCode: 5 } }],
  rules: [{ amount: "13.37", status: "FAILED", declineCode: 5 }],
  steps: stepsPaying(s),
});

/** The same document as YAML text, written by hand (the number quoted, as it must be to stay exact; the CVV a YAML number). */
const scenarioYaml = (name: string, s: Secret) => `name: ${name}
cards:
  - { number: "${SCENARIO_CARD}", payment: { status: FAILED, declineCode: 5 } }
steps:
  - name: pays with a card
    request: POST /api/v1/payments/card
    body:
      requestId: "\${uuid}"
      mid: ${MERCHANT.mid}
      amount: "20.50"
      currency: USD
      card:
        number: "${s.number}"
        expMonth: "12"
        expYear: "2030"
        cvv: ${s.cvv}
`;

function apmSigned(body: Record<string, unknown>): Record<string, unknown> {
  return {
    ...body,
    checksum: hmac(MERCHANT.merchantSecret, `${body.accountId}|${body.amount}|${body.currency}|${body.requestId}`),
  };
}

function apmPayIn(payload: Record<string, unknown>, over: Record<string, unknown> = {}) {
  const orderId = `${RUN}-apm-order-${++reqN}`;
  expectedInRoot.push(orderId);
  return apmSigned({
    requestId: `${RUN}-apm-${reqN}`,
    accountId: String(MERCHANT.accountId),
    amount: "20.50",
    currency: "USD",
    apmPayload: payload,
    order: { orderId },
    billingDetails: { ...BILLING, phone: EXAMPLE_PHONE },
    device: { ip: EXAMPLE_IP },
    callbackUrl: "http://127.0.0.1:9/cb",
    successRedirectUrl: "https://shop.example/ok",
    failureRedirectUrl: "https://shop.example/ko",
    ...over,
  });
}

/** Every file under the database's folder, read whole: the db, its -wal and -shm, `<db>-sandboxes/`. */
function filesAtRest(dbPath: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ path: p, bytes: readFileSync(p) });
    }
  };
  walk(dirname(dbPath));
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where `needle` occurs in `text` (latin1, so every byte is one character), with 40 characters around each. */
function occurrences(text: string, needle: RegExp): string[] {
  return [...text.matchAll(needle)].map((m) => JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40)));
}

/**
 * What gives a secret away in `text`: the number in full; the CVV bare, bounded by characters that are
 * neither letters, digits, `_` nor `-` (this covers `"cvv":"8123"`, `cvv: 8123`, `cvv=8123`, and
 * the same under any other key).
 */
function leaks(text: string, secrets: readonly Secret[]): string[] {
  const found: string[] = [];
  for (const s of secrets) {
    for (const at of occurrences(text, new RegExp(escapeRegExp(s.number), "g"))) found.push(`PAN of "${s.use}" at ${at}`);
    for (const at of occurrences(text, new RegExp(`(?<![\\w-])${s.cvv}(?![\\w-])`, "g")))
      found.push(`CVV of "${s.use}" at ${at}`);
  }
  return found;
}

/** The same scan, for a value that must be there: true when the bytes hold it. */
const holds = (text: string, value: string) => occurrences(text, new RegExp(escapeRegExp(value), "g")).length > 0;

describe("no card number or CVV at rest after every feature ran once (file database, LOG_LEVEL=trace)", () => {
  beforeAll(async () => {
    server = await startServer({ args: ["--start-time", "2026-01-15T12:00:00Z"], env: { LOG_LEVEL: "trace" } });
    token = await login(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (server) rmSync(dirname(server.dbPath), { recursive: true, force: true });
  });

  it("drives every feature with its own card and CVV, stops the server, and finds none of them in the db, WAL, sandboxes or log", async () => {
    const root = server.url;
    // the cards really are distinct, Luhn-valid and of several lengths (13 to 19 digits)
    expect(new Set(SECRETS.map((s) => s.number)).size).toBe(SECRETS.length);
    expect(SECRETS.filter((s) => !luhnOk(s.number)).map((s) => s.use)).toEqual([C.luhnBad.use]);
    expect(new Set(SECRETS.map((s) => s.number.length))).toEqual(new Set([13, 14, 15, 16, 17, 18, 19]));

    // 1. a card payment, no 3DS; a refund of it
    const paid = await call(root, "/api/v1/payments/card", { body: payment(C.payment) });
    expect(paid.body).toMatchObject({ transactionStatus: "SUCCEED" });
    // replayed with the same body: the first answer again, nothing new
    const replayBody = payment(C.payment);
    expect((await call(root, "/api/v1/payments/card", { body: replayBody })).status).toBe(200);
    expect((await call(root, "/api/v1/payments/card", { body: replayBody })).status).toBe(200);
    // 409: the same requestId with another card
    const clash = await call(root, "/api/v1/payments/card", {
      body: { ...replayBody, card: { ...replayBody.card, number: C.conflict.number, cvv: C.conflict.cvv } },
    });
    expect(clash.status).toBe(409);
    // 400: a number failing Luhn, with a CVV
    const bad = await call(root, "/api/v1/payments/card", { body: payment(C.luhnBad, {}, []) });
    expect(bad.body).toMatchObject({ errorMessage: "Invalid field: card.number" });
    // 400: a CVV sent as a JSON number (a client's easy mistake), to the payment, tokenize and payout routes
    const numeric = { number: C.cvvNumber.number, expMonth: "12", expYear: "2030", cvv: Number(C.cvvNumber.cvv) };
    for (const [path, body] of [
      ["/api/v1/payments/card", payment(C.cvvNumber, {}, [])],
      [
        "/api/v1/payments/card/tokenize",
        { requestId: `${RUN}-tok-bad`, merchantId: MERCHANT.merchantId, billingDetails: BILLING },
      ],
      ["/v1/payouts/card", { requestId: `${RUN}-po-bad`, mid: MERCHANT.mid, userEmail: "jane@example.com", amount: "1.00" }],
    ] as const) {
      const refused = await call(root, path, {
        body: { ...body, card: { ...numeric, cardHolderName: "Ada", cardHolder: "Ada" } },
      });
      expect(refused.body, path).toMatchObject({ errorMessage: "Invalid field: card.cvv" });
    }

    const refundId = `${RUN}-refund`;
    expectedInRoot.push(refundId);
    const refund = await call(root, "/v1/refunds/card", {
      body: { requestId: refundId, mid: MERCHANT.mid, transactionId: paid.body.transactionId, amount: "5.00", reason: "damaged" },
    });
    expect(refund.body).toMatchObject({ transactionStatus: "PENDING" });

    // 2. 3DS: the challenge page's form posted
    const challenged = await call(root, "/api/v1/payments/card", {
      body: payment(C.threeDs, {
        card: {
          number: C.threeDs.number,
          cardHolderName: "Ada Lovelace",
          expMonth: "12",
          expYear: "2030",
          cvv: C.threeDs.cvv,
          requestThreeDSecure: true,
        },
        device: { ...DEVICE, ...THREE_DS_DEVICE },
        successRedirectUrl: "https://shop.example/ok",
        failureRedirectUrl: "https://shop.example/ko",
      }),
    });
    expect(challenged.body).toMatchObject({ transactionStatus: "CUSTOMER_VERIFICATION" });
    const posted = await postForm(challenged.body.challengeUrl as string, { outcome: "success" });
    expect(posted).toMatchObject({
      status: 303,
      location: expect.stringMatching(/^https:\/\/shop\.example\/ok\?transactionId=/),
    });

    // 3. tokenize + one-click charge
    const tokenize = (s: Secret) => {
      const requestId = `${RUN}-tok-${++reqN}`;
      expectedInRoot.push(requestId);
      return call(root, "/api/v1/payments/card/tokenize", {
        body: {
          requestId,
          merchantId: MERCHANT.merchantId,
          card: { number: s.number, expMonth: "12", expYear: "2030", cvv: s.cvv, cardHolderName: "Ada Lovelace" },
          billingDetails: BILLING,
        },
      });
    };
    const tok = await tokenize(C.oneClick);
    expect(tok.status).toBe(200);
    const chargeOrder = `${RUN}-charge-order`;
    expectedInRoot.push(chargeOrder);
    const charged = await call(root, "/api/v1/payments/card/charge", {
      body: {
        requestId: `${RUN}-charge`,
        mid: MERCHANT.mid,
        cardToken: tok.body.token,
        amount: "12.00",
        currency: "USD",
        order: { orderId: chargeOrder },
        callbackUrl: "http://127.0.0.1:9/hooks",
        successRedirectUrl: "https://shop.example/ok",
        failureRedirectUrl: "https://shop.example/ko",
      },
    });
    expect(charged.body).toMatchObject({ transactionStatus: "SUCCEED" });

    // 4. a subscription, and a clock advance that charges it
    const subTok = await tokenize(C.subscription);
    const subOrder = `${RUN}-plan-order`;
    expectedInRoot.push(subOrder);
    const sub = await call(root, "/api/v1/payments/card/recurring", {
      body: {
        requestId: `${RUN}-sub`,
        mid: MERCHANT.mid,
        cardToken: subTok.body.token,
        plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15" },
        order: { orderId: subOrder },
        device: DEVICE,
        callbackUrl: "http://127.0.0.1:9/hooks",
        successRedirectUrl: "https://shop.example/ok",
        failureRedirectUrl: "https://shop.example/ko",
      },
    });
    expect(sub.body).toMatchObject({ status: "ACTIVE", nextChargeDate: "2026-02-15" });

    // 5. a card payout (it carries a card number)
    const payoutId = `${RUN}-payout`;
    expectedInRoot.push(payoutId);
    const payout = await call(root, "/v1/payouts/card", {
      body: {
        requestId: payoutId,
        mid: MERCHANT.mid,
        userEmail: "jane@example.com",
        amount: "25.00",
        card: { number: C.payout.number, cardHolder: "Jane Doe", expMonth: "12", expYear: "2030", cvv: C.payout.cvv },
        callbackUrl: "http://127.0.0.1:9/hooks",
      },
    });
    expect(payout.body).toMatchObject({ transactionStatus: "PENDING" });

    // 6. APM: a pay-in through the hosted payment page, a QR pay-in, a wallet pay-in with a decrypted PAN, a payout
    const hpp = await call(root, "/api/v1/payments/apm", {
      body: apmPayIn({ paymentMethod: "SMART_BANK_TRANSFER", paymentType: "BANK_TRANSFER", bankName: "Sandbox Bank" }),
    });
    expect(hpp.body).toMatchObject({ transactionStatus: "PENDING" });
    // a browser's autofill may post more than the page asks for: a card and a CVV among them
    const hppPosted = await postForm((hpp.body.apmResponseData as { redirectUrl: string }).redirectUrl, {
      outcome: "success",
      accountNumber: "000123456789",
      accountHolderName: "Jane Doe",
      cardNumber: C.hppAutofill.number,
      cvv: C.hppAutofill.cvv,
    });
    expect(hppPosted.status).toBe(303);

    const qr = await call(root, "/api/v1/payments/apm", {
      body: apmPayIn({ paymentMethod: "UPI_QR", paymentType: "BANK_TRANSFER" }, { amount: "499.00", currency: "INR" }),
    });
    expect(qr.body).toMatchObject({ transactionStatus: "PENDING", apmResponseData: { actionType: "QR" } });
    expect(
      (await postForm((qr.body.apmResponseData as { redirectUrl: string }).redirectUrl, { outcome: "success" })).status,
    ).toBe(303);

    const wallet = await call(root, "/api/v1/payments/apm", {
      body: apmPayIn({
        paymentMethod: "APPLE_PAY",
        paymentType: "MOBILE_WALLET",
        decrypted: {
          applicationPrimaryAccountNumber: C.wallet.number,
          applicationExpirationDate: "301231",
          onlinePaymentCryptogram: "AOnE2x4AAAAAAAAAAAAAAAAAAAA=",
          cvv: C.wallet.cvv,
        },
        token: { paymentMethod: { network: "Visa", displayName: `Visa ${C.wallet.number.slice(-4)}` } },
      }),
    });
    expect(wallet.body).toMatchObject({ transactionStatus: "SUCCEED" });

    const apmPayoutId = `${RUN}-apm-payout`;
    expectedInRoot.push(apmPayoutId);
    const apmPayout = await call(root, "/api/v1/payouts/apm", {
      headers: { referer: "https://shop.example/payouts" },
      body: {
        requestId: apmPayoutId,
        accountId: String(MERCHANT.accountId),
        amount: "75.00",
        currency: "EUR",
        apmPayload: {
          paymentMethod: "SMART_BANK_TRANSFER_PAYOUT",
          paymentType: "BANK_TRANSFER",
          accountNumber: "000123456789",
          bankName: "Sandbox Bank",
          accountHolderName: "Jane Doe",
          bankAccountType: "SAVINGS",
        },
        callbackUrl: "http://127.0.0.1:9/cb",
      },
    });
    expect(apmPayout.body).toMatchObject({ transactionStatus: "PENDING" });

    // the month passes: the subscription's scheduled charge, the refund, the payouts settle
    const advanced = await call(root, "/_sandbox/clock/advance", { body: { by: "P1M" }, auth: false });
    expect(advanced.body).toMatchObject({ ran: { charges: 1 } });
    const charges = await call(root, `/_sandbox/webhooks?subscriptionId=${sub.body.subscriptionId}`, { auth: false });
    expect(charges.text).toContain('"chargeDate":"2026-02-15"');

    // 7. the report, CSV and XLS: one row per transaction, masks only
    for (const format of ["CSV", "XLS"]) {
      const report = await call(root, "/api/v1/report-generator/s2s", {
        auth: false,
        headers: { "x-merchant-key": MERCHANT.merchantKey, "x-merchant-secret": MERCHANT.merchantSecret },
        body: { dateFrom: "2026-01-01", dateTo: "2026-12-31", format },
      });
      expect(report.status).toBe(200);
      if (format === "CSV") {
        expect(report.text).toContain(`${C.payment.number.slice(0, 6)}******${C.payment.number.slice(-4)}`);
        expect(leaks(report.text, SECRETS)).toEqual([]);
      }
    }

    // 8. scenarios whose steps hold a card and a CVV: posted as JSON and as YAML (loaded without their steps)
    const scenarioJson = await call(root, "/_sandbox/scenarios", {
      auth: false,
      body: scenarioDoc(`${RUN}-scenario-json`, C.scenarioJson),
    });
    expect(scenarioJson.status).toBe(200);
    expectedInRoot.push(`${RUN}-scenario-json`, SCENARIO_CARD);
    const scenarioYamlAnswer = await call(root, "/_sandbox/scenarios", {
      auth: false,
      headers: { "content-type": "application/yaml" },
      raw: scenarioYaml(`${RUN}-scenario-yaml`, C.scenarioYaml),
    });
    expect(scenarioYamlAnswer.status).toBe(200);
    expectedInRoot.push(`${RUN}-scenario-yaml`);
    // refused (a step's expect.status is not a number): nothing loaded, and its 400 names paths, not values
    const refusedDoc = scenarioDoc(`${RUN}-scenario-refused`, C.scenarioRefused);
    const refusedScenario = await call(root, "/_sandbox/scenarios", {
      auth: false,
      body: { ...refusedDoc, steps: refusedDoc.steps.map((st) => ({ ...st, expect: { status: "200" } })) },
    });
    expect(refusedScenario.status).toBe(400);
    expect(refusedScenario.body.errorMessage).toMatch(/steps\.0\.expect\.status/);

    // 9. sandboxes created with such scenarios (a JSON object, a YAML string), and a payment in one
    const sbxJson = await call(root, "/_sandbox/sandboxes", {
      auth: false,
      body: { name: `${RUN}-sbx-json`, scenario: scenarioDoc(`${RUN}-sbx-scenario-json`, C.sandboxJson) },
    });
    expect(sbxJson.status).toBe(201);
    const sbxYaml = await call(root, "/_sandbox/sandboxes", {
      auth: false,
      body: { name: `${RUN}-sbx-yaml`, scenario: scenarioYaml(`${RUN}-sbx-scenario-yaml`, C.sandboxYaml) },
    });
    expect(sbxYaml.status).toBe(201);
    expectedInSandboxes.push(`${RUN}-sbx-scenario-json`, `${RUN}-sbx-scenario-yaml`);
    const sbxBase = sbxJson.body.baseUrl as string;
    const sbxToken = await login(sbxBase);
    const inSandbox = await call(sbxBase, "/api/v1/payments/card", {
      auth: sbxToken,
      body: payment(C.inSandbox, {}, expectedInSandboxes),
    });
    expect(inSandbox.body).toMatchObject({ transactionStatus: "SUCCEED" });

    // 10. paysandbox run --target of a steps file (outside the database's folder) paying with a card and a CVV
    const runnerOrder = `${RUN}-runner-order`;
    expectedInSandboxes.push(runnerOrder);
    const file = join(dir, "pays.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: `${RUN}-runner`,
        steps: [
          {
            name: "tokenizes a card",
            request: "POST /api/v1/payments/card/tokenize",
            body: {
              requestId: "${uuid}",
              merchantId: MERCHANT.merchantId,
              card: { number: C.runnerTok.number, expMonth: "12", expYear: "2030", cvv: C.runnerTok.cvv },
              billingDetails: BILLING,
            },
            expect: { status: 200 },
          },
          {
            name: "pays with a card",
            request: "POST /api/v1/payments/card",
            body: { ...payment(C.runnerPay, {}, []), requestId: "${uuid}", order: { orderId: runnerOrder } },
            expect: { status: 200, body: { transactionStatus: "SUCCEED" } },
          },
        ],
      }),
    );
    // --keep: the sandbox's database stays to be scanned (deleted, its files would be gone)
    const run = await runCli(["run", "--target", root, "--keep", file], {}, 30_000);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/^kept sandbox sbx_\w+ at /m);

    // 11. snapshots of the root and of a sandbox (docs/snapshots.md), and a fork of that sandbox (its
    // database and the image its reset goes back to are files in <db>-sandboxes/, scanned below)
    const snapshots: Array<{ path: string; bytes: Buffer }> = [];
    for (const base of [root, sbxBase]) {
      const res = await fetch(`${base}/_sandbox/snapshot`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/vnd.paysandbox.snapshot");
      snapshots.push({ path: `GET ${base}/_sandbox/snapshot`, bytes: Buffer.from(await res.arrayBuffer()) });
    }
    const fork = await call(root, "/_sandbox/sandboxes", { auth: false, body: { from: sbxJson.body.id } });
    expect(fork.status).toBe(201);
    const snapshotText = snapshots.map((f) => f.bytes.toString("latin1")).join("\n");
    expect(expectedInRoot.filter((v) => !holds(snapshots[0]!.bytes.toString("latin1"), v))).toEqual([]);
    expect(holds(snapshotText, `${RUN}-sbx-scenario-json`)).toBe(true);

    // 12. what is on disk while it runs (the -wal holds every page written since the last checkpoint, the
    // versions overwritten since included), then after it stopped (checkpointed, the -wal folded in)
    const running = filesAtRest(server.dbPath);
    expect(running.map((f) => f.path)).toContain(`${server.dbPath}-wal`);
    expect(await server.stop()).toBe(0);
    const files = filesAtRest(server.dbPath);
    const names = files.map((f) => f.path.slice(dirname(server.dbPath).length + 1));
    expect(names).toContain("sandbox.db");
    const sandboxFiles = files.filter((f) => f.path.includes(`${server.dbPath}-sandboxes/`));
    // the four sandboxes (two created, one by the runner, one fork) each have a database there; beside
    // them, images/ may hold the image a source's copies were made from (its name no sandbox's id)
    const ids = sandboxFiles.map((f) => /sbx_\w+/.exec(f.path)?.[0]);
    expect(new Set(ids.filter((id) => id !== undefined)).size).toBe(4);
    expect(sandboxFiles.filter((_, i) => ids[i] === undefined).every((f) => f.path.includes("-sandboxes/images/"))).toBe(true);
    expect(sandboxFiles.some((f) => f.path.endsWith(".db-origin"))).toBe(true);
    const rootText = files
      .filter((f) => !sandboxFiles.includes(f))
      .map((f) => f.bytes.toString("latin1"))
      .join("\n");
    const sandboxText = sandboxFiles.map((f) => f.bytes.toString("latin1")).join("\n");
    const log = server.output();

    // the scan reads the right bytes: what was meant to be stored and logged is found by it
    expect(expectedInRoot.filter((v) => !holds(rootText, v))).toEqual([]);
    expect(expectedInSandboxes.filter((v) => !holds(sandboxText, v))).toEqual([]);
    expect(sentRequestIds.filter((id) => !holds(log, id))).toEqual([]);
    // and it would see a leak: the same scan flags a secret put into bytes like these
    expect(leaks(`{"card":{"number":"${C.payment.number}","cvv":"${C.payment.cvv}"}}`, SECRETS)).toHaveLength(2);
    expect(leaks(`cvv: ${C.runnerPay.cvv}\n`, SECRETS)).toHaveLength(1);

    const found = [
      ...running.flatMap((f) => leaks(f.bytes.toString("latin1"), SECRETS).map((l) => `${f.path} (running): ${l}`)),
      ...files.flatMap((f) => leaks(f.bytes.toString("latin1"), SECRETS).map((l) => `${f.path}: ${l}`)),
      ...snapshots.flatMap((f) => leaks(f.bytes.toString("latin1"), SECRETS).map((l) => `${f.path}: ${l}`)),
      ...leaks(log, SECRETS).map((l) => `log: ${l}`),
    ];
    expect(found).toEqual([]);
  }, 60_000);
});
