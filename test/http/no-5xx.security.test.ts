/**
 * "Every bad input gets a clear 4xx ... and changes nothing. A 5xx for any input is a bug."
 * Valid bodies of every write route, randomly damaged (test/helpers/mutate.ts), and random
 * control-plane inputs: never a 5xx, always an errorMessage, and a refused create writes no row.
 */
import { count } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cardTokens, subscriptions, transactions } from "../../src/db/schema/index.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { mutate, mutations } from "../helpers/mutate.js";
import { apmBody, payoutBody, sign } from "./apm.support.js";
import { cardPaymentBody } from "./payments.body.js";
import { payoutBody as cardPayoutBody, refundBody } from "./refunds.support.js";
import { chargeBody, subscriptionBody, tokenFor, tokenizeBody } from "./subscriptions.support.js";

let s: TestSandbox;
let auth: string;
let cardToken: string;
let subscriptionId: string;
let paymentId: string;

beforeAll(async () => {
  s = makeSandbox();
  auth = await s.token();
  cardToken = await tokenFor(s);
  const sub = await s.http
    .post("/api/v1/payments/card/recurring")
    .set("authorization", auth)
    .send(subscriptionBody(cardToken, "http://127.0.0.1:9/cb"));
  subscriptionId = sub.body.subscriptionId;
  expect(subscriptionId).toMatch(/^sub_/);
  const pay = await s.http
    .post("/api/v1/payments/card")
    .set("authorization", auth)
    .send(cardPaymentBody({ amount: "99999.00" }));
  paymentId = pay.body.transactionId;
  expect(pay.body.transactionStatus).toBe("SUCCEED");
});
afterAll(async () => {
  await s.close();
});

const rows = () => ({
  tokens: s.ctx.db.select({ n: count() }).from(cardTokens).get()?.n,
  transactions: s.ctx.db.select({ n: count() }).from(transactions).get()?.n,
  subscriptions: s.ctx.db.select({ n: count() }).from(subscriptions).get()?.n,
});

function expectClean(res: { status: number; body: unknown }) {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) expect(typeof (res.body as { errorMessage?: unknown }).errorMessage).toBe("string");
}

const routes: Array<{ name: string; method: "post" | "put"; path: () => string; body: () => unknown; creates: boolean }> = [
  { name: "tokenize", method: "post", path: () => "/api/v1/payments/card/tokenize", body: () => tokenizeBody(), creates: true },
  {
    name: "one-click charge",
    method: "post",
    path: () => "/api/v1/payments/card/charge",
    body: () => chargeBody(cardToken, "http://127.0.0.1:9/cb"),
    creates: true,
  },
  {
    name: "create subscription",
    method: "post",
    path: () => "/api/v1/payments/card/recurring",
    body: () => subscriptionBody(cardToken, "http://127.0.0.1:9/cb"),
    creates: true,
  },
  {
    name: "update subscription",
    method: "put",
    path: () => `/api/v1/payments/card/recurring/${subscriptionId}`,
    body: () => ({ plan: { amount: "12.00", frequency: "WEEKLY", interval: 2 }, status: "ACTIVE" }),
    creates: false,
  },
  {
    name: "refund",
    method: "post",
    path: () => "/v1/refunds/card",
    body: () => refundBody(paymentId, "1.00", { callbackUrl: "http://127.0.0.1:9/cb" }),
    creates: true,
  },
  {
    name: "card payout",
    method: "post",
    path: () => "/v1/payouts/card",
    body: () => cardPayoutBody({ callbackUrl: "http://127.0.0.1:9/cb", billingDetails: { city: "Oslo" } }),
    creates: true,
  },
  {
    name: "auth",
    method: "post",
    path: () => "/api/v1/auth",
    body: () => ({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
    creates: false,
  },
];

describe("no 5xx for damaged bodies", () => {
  for (const route of routes) {
    it(`${route.name}: a damaged body is a 4xx with errorMessage (or accepted), and a refused create writes nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(mutations, fc.option(fc.jsonValue(), { freq: 8 }), async (ops, whole) => {
          const body = whole ?? mutate(route.body(), ops);
          const before = rows();
          const res = await s.http[route.method](route.path())
            .set("authorization", auth)
            .set("content-type", "application/json")
            .send(JSON.stringify(body));
          expectClean(res);
          if (route.creates && res.status >= 400) expect(rows()).toEqual(before);
        }),
        { numRuns: 60 },
      );
    });
  }
});

describe("no 5xx for random control-plane input", () => {
  it("clock advance, scenarios, transaction completion, the webhook journal and the 3DS form", async () => {
    const text = fc.oneof(fc.string(), fc.constantFrom("P1D", "PT0S", "P99999Y", "2020-01-01", "-P1D", "P1M", "tx_x", "SUCCEED"));
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), text, fc.dictionary(fc.string(), fc.string()), async (json, word, query) => {
        const calls = [
          s.http.post("/_sandbox/clock/advance").send({ by: word }),
          s.http.post("/_sandbox/clock/advance").set("content-type", "application/json").send(JSON.stringify(json)),
          s.http.post("/_sandbox/scenarios").set("content-type", "application/json").send(JSON.stringify(json)),
          s.http.post(`/_sandbox/transactions/${encodeURIComponent(word)}/complete`).send({ status: word }),
          s.http.get("/_sandbox/webhooks").query(query),
          s.http
            .post(`/sandbox/3ds/${encodeURIComponent(word)}`)
            .type("form")
            .send({ outcome: word }),
        ];
        for (const res of await Promise.all(calls)) expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});

describe("no 5xx over the APM routes", () => {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  const apmRoutes: Array<{ name: string; path: string; body: () => unknown; resign: boolean; creates: boolean }> = [
    ...["SMART_BANK_TRANSFER", "UPI_QR", "PIX_QR", "APPLE_PAY", "EXTERNAL_HPP_EFT"].map((m) => ({
      name: `APM pay-in ${m}`,
      path: "/api/v1/payments/apm",
      body: () => apmBody(m),
      resign: true,
      creates: true,
    })),
    { name: "APM payout", path: "/api/v1/payouts/apm", body: () => payoutBody(), resign: false, creates: true },
    {
      name: "wallet session by account",
      path: "/api/v1/wallet-pay/merchant-session-by-account",
      body: () => ({ validationUrl: "https://wallet.example/start", origin: "localhost", accountId: 2001 }),
      resign: false,
      creates: false,
    },
    {
      name: "wallet session",
      path: "/api/v1/wallet-pay/merchant-session",
      body: () => ({ validationUrl: "https://wallet.example/start", origin: "localhost", intentToken: "pi_1" }),
      resign: false,
      creates: false,
    },
  ];
  for (const route of apmRoutes) {
    it(`${route.name}: a damaged body (re-signed, so the checks behind the checksum run) is a 4xx or accepted`, async () => {
      await fc.assert(
        fc.asyncProperty(mutations, fc.option(fc.jsonValue(), { freq: 8 }), async (ops, whole) => {
          const damaged = whole ?? mutate(route.body(), ops);
          const body = route.resign && isObject(damaged) ? sign(damaged) : damaged;
          const before = rows();
          const res = await s.http
            .post(route.path)
            .set("authorization", auth)
            .set("referer", "https://shop.example")
            .set("content-type", "application/json")
            .send(JSON.stringify(body));
          expectClean(res);
          if (route.creates && res.status >= 400) expect(rows()).toEqual(before);
        }),
        { numRuns: 40 },
      );
    });
  }

  it("random answers on the HPP and QR pages, and random ids on the APM reads", async () => {
    const hpp = await s.http.post("/api/v1/payments/apm").set("authorization", auth).send(apmBody("EXTERNAL_HPP_EFT"));
    const qr = await s.http.post("/api/v1/payments/apm").set("authorization", auth).send(apmBody("UPI_QR"));
    const ids = [hpp.body.transactionId as string, qr.body.transactionId as string];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.string()), fc.string(), fc.nat(), async (form, word, pick) => {
        const id = pick % 3 === 2 ? word : (ids[pick % 2] ?? word);
        const calls = [
          s.http
            .post(`/sandbox/hpp/${encodeURIComponent(id)}`)
            .type("form")
            .send({ ...form, outcome: pick % 5 === 0 ? word : "success" }),
          s.http
            .post(`/sandbox/qr/${encodeURIComponent(id)}`)
            .type("form")
            .send(form),
          s.http.get(`/sandbox/hpp/${encodeURIComponent(word)}`),
          s.http.get(`/api/v1/payments/apm/info/${encodeURIComponent(word)}`).set("authorization", auth),
          s.http.get(`/api/v1/payouts/apm/info/${encodeURIComponent(word)}`).set("authorization", auth),
        ];
        for (const res of await Promise.all(calls)) expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});

describe("deep nesting is bad input, refused before any recursive work", () => {
  // the caller is judged before the body (docs/api.md#errors): a token of now, the random advances above
  // having moved the clock past the first one's 30 days
  beforeAll(async () => {
    auth = await s.token();
  });
  const LIMIT = 64;
  /** JSON text nested `depth` levels (arrays, objects, or both in turn) around `inner`. */
  const nestJson = (depth: number, shape: "array" | "object" | "mixed", inner = "1") => {
    const kinds = Array.from({ length: depth }, (_, i) => (shape === "array" || (shape === "mixed" && i % 2 === 1) ? "[" : "{"));
    return (
      kinds.map((k) => (k === "[" ? "[" : '{"a":')).join("") +
      inner +
      kinds
        .reverse()
        .map((k) => (k === "[" ? "]" : "}"))
        .join("")
    );
  };
  /** A valid body's JSON with a nested value added under `deep`: `depth` counts the body's own object. */
  const withDeep = (body: unknown, depth: number, shape: "array" | "object" | "mixed") => {
    const text = JSON.stringify(body);
    return `${text.slice(0, -1)}${text === "{}" ? "" : ","}"deep":${nestJson(depth - 1, shape)}}`;
  };

  const jsonRoutes: Array<{ name: string; method: "post" | "put"; path: () => string; body: () => unknown; field?: "error" }> = [
    ...routes,
    { name: "card payment", method: "post", path: () => "/api/v1/payments/card", body: () => cardPaymentBody() },
    { name: "APM pay-in", method: "post", path: () => "/api/v1/payments/apm", body: () => apmBody("SMART_BANK_TRANSFER") },
    { name: "APM payout", method: "post", path: () => "/api/v1/payouts/apm", body: () => payoutBody() },
    {
      name: "wallet session",
      method: "post",
      path: () => "/api/v1/wallet-pay/merchant-session",
      body: () => ({ validationUrl: "https://wallet.example/start", origin: "localhost", intentToken: "pi_1" }),
    },
    {
      name: "report",
      method: "post",
      path: () => "/api/v1/report-generator/s2s",
      body: () => ({ dateFrom: "2026-01-01", dateTo: "2026-01-31" }),
      field: "error",
    },
    { name: "scenarios", method: "post", path: () => "/_sandbox/scenarios", body: () => ({ name: "deep" }) },
    { name: "clock advance", method: "post", path: () => "/_sandbox/clock/advance", body: () => ({ by: "PT0S" }) },
    { name: "reset", method: "post", path: () => "/_sandbox/reset", body: () => ({}) },
    {
      name: "complete",
      method: "post",
      path: () => `/_sandbox/transactions/${paymentId}/complete`,
      body: () => ({ status: "SUCCEED" }),
    },
    { name: "webhook replay", method: "post", path: () => "/_sandbox/webhooks/wh_x/replay", body: () => ({}) },
  ];
  const send = (method: "post" | "put", path: string, text: string, type = "application/json") =>
    s.http[method](path)
      .set("authorization", auth)
      .set("referer", "https://shop.example")
      .set("x-merchant-key", "sandbox_merchant_key")
      .set("x-merchant-secret", "sandbox_merchant_secret")
      .set("content-type", type)
      .send(text);
  const refusedForDepth = (
    res: { status: number; body: Record<string, unknown> },
    field: "error" | "errorMessage" = "errorMessage",
  ) => {
    expect(res.status).toBe(400);
    expect(res.body[field]).toBe("Invalid field: body");
    if (field === "errorMessage") {
      expect(res.body.errors).toEqual([{ field: "body", message: `arrays and objects nested deeper than ${LIMIT} levels` }]);
    }
  };

  for (const route of jsonRoutes) {
    it(`${route.name}: a JSON body nested 10,000 levels deep → 400 naming the body, nothing written`, async () => {
      for (const shape of ["array", "object", "mixed"] as const) {
        const before = rows();
        const res = await send(route.method, route.path(), withDeep(route.body(), 10_000, shape));
        refusedForDepth(res, route.field);
        expect(rows()).toEqual(before);
      }
      refusedForDepth(await send(route.method, route.path(), nestJson(10_000, "array")), route.field);
    });
  }

  it("any JSON route, any depth past the bound → 400 naming the body; at the bound → not refused for its depth", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: jsonRoutes.length - 1 }),
        fc.integer({ min: 2, max: 3000 }),
        fc.constantFrom("array" as const, "object" as const, "mixed" as const),
        async (pick, depth, shape) => {
          const route = jsonRoutes[pick]!;
          const res = await send(route.method, route.path(), withDeep(route.body(), depth, shape));
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(typeof res.body[route.field ?? "errorMessage"]).toBe("string");
          if (depth > LIMIT) refusedForDepth(res, route.field);
          else expect(res.body.errorMessage ?? res.body.error).not.toBe("Invalid field: body");
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a string holding brackets is not nesting", async () => {
    const res = await send(
      "post",
      "/_sandbox/scenarios",
      JSON.stringify({ name: "brackets", description: `"[{\\${"[".repeat(500)}` }),
    );
    expect(res.status).toBe(200);
  });

  /** YAML text nested `depth` levels in one of YAML's ways to nest. */
  const nestYaml = (depth: number, shape: "flow" | "flowMap" | "compact" | "block" | "blockSeq") => {
    const head = "name: deep-yaml\nrules:";
    const under = depth - 1; // the document's own mapping is the first level
    switch (shape) {
      case "flow":
        return `${head} ${"[".repeat(under)}${"]".repeat(under)}\n`;
      case "flowMap":
        return `${head} ${"{a: ".repeat(under)}1${"}".repeat(under)}\n`;
      case "compact":
        return `${head}\n${"- ".repeat(under)}x\n`;
      case "block":
        return `${head}\n${Array.from({ length: under }, (_, i) => `${" ".repeat(i + 1)}a:\n`).join("")}${" ".repeat(under + 1)}b\n`;
      case "blockSeq": {
        // "- b:" opens a sequence and a mapping; the next "- b:" is the mapping's indentless sequence
        const lines = Array.from({ length: Math.floor(under / 2) }, (_, i) => `${"  ".repeat(i)}- b:`);
        if (under % 2 === 1) lines.push(`${"  ".repeat(lines.length)}- x`);
        else lines[lines.length - 1] += " x";
        return `${head}\n${lines.join("\n")}\n`;
      }
    }
  };
  const postYaml = (text: string) => send("post", "/_sandbox/scenarios", text, "application/yaml");
  const deepYaml = (res: { status: number; body: Record<string, unknown> }) => {
    expect(res.status).toBe(400);
    expect(String(res.body.errorMessage)).toMatch(/^Invalid field: body$|nested deeper than 64 levels/);
  };

  it("YAML nested 10,000 levels deep, in each of YAML's ways (and a 1 MiB compact sequence) → 400, cheaply", async () => {
    for (const shape of ["flow", "flowMap", "compact", "block", "blockSeq"] as const) {
      const depth = shape === "block" || shape === "blockSeq" ? 1_000 : 10_000;
      deepYaml(await postYaml(nestYaml(depth, shape)));
    }
    deepYaml(await postYaml(`name: deep-yaml\nrules:\n${"- ".repeat(520_000)}x\n`));
    expect((await s.http.get("/_sandbox/scenarios")).body.map((x: { name: string }) => x.name)).not.toContain("deep-yaml");
  });

  it("YAML aliases: a billion laughs, a cycle, and an alias that nests past the bound → 400, cheaply", async () => {
    const laughs = ["name: laughs", "a: &a [x, x, x, x, x, x, x, x, x]"];
    for (const [p, q] of ["ba", "cb", "dc", "ed", "fe", "gf", "hg", "ih"])
      laughs.push(`${p}: &${p} [${Array(9).fill(`*${q}`).join(", ")}]`);
    const bomb = await postYaml(laughs.join("\n"));
    expect(bomb.status).toBe(400);
    expect(bomb.body.errorMessage).toMatch(/alias/i);
    deepYaml(await postYaml("name: cycle\nrules: &r [*r]\n"));
    deepYaml(await postYaml("name: cycle\ncards: &c {x: *c}\n"));
    const forty = (inner: string) => `${"[".repeat(40)}${inner}${"]".repeat(40)}`;
    deepYaml(await postYaml(`name: alias\nx: &a ${forty("1")}\nrules: ${forty("*a")}\n`));
  });

  it("YAML at the bound is not refused for its depth; random YAML depths and shapes are never a 5xx", async () => {
    for (const shape of ["flow", "flowMap", "compact", "block", "blockSeq"] as const) {
      const res = await postYaml(nestYaml(LIMIT, shape));
      expectClean(res);
      expect(String(res.body.errorMessage)).not.toMatch(/^Invalid field: body$|nested deeper/);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 1000 }), // block nesting grows as the square of its depth: 1,000 levels stay under 1 MiB
        fc.constantFrom("flow" as const, "flowMap" as const, "compact" as const, "block" as const, "blockSeq" as const),
        async (depth, shape) => {
          const res = await postYaml(nestYaml(depth, shape));
          expectClean(res);
          if (depth > LIMIT) deepYaml(res);
        },
      ),
      { numRuns: 40 },
    );
  });
});
