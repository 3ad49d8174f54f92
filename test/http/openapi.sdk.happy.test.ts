/**
 * /openapi.json as a generator reads it (docs/api.md#openapi-and-sdks): readable unique operationIds,
 * enums from the code's tables, the webhooks section, closed shapes without allOf or untyped values,
 * two security schemes a client tells apart, servers; and each finding of a property tester run
 * against it resolved by one rule on both sides (the server does what the document says).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStatusesOf, statusesOf } from "../../src/modules/transactions/transitions.js";
import { DECLINE_CODES } from "../../src/platform/fixtures.js";
import { SIGNED_FIELDS } from "../../src/webhooks/signer.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestServer;
let token: string;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by known paths; a wrong path fails the test
let doc: any;
beforeAll(async () => {
  s = makeServer();
  token = await s.token("");
  doc = (await s.http.get("/openapi.json")).body;
});
afterAll(async () => {
  await s.close();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    // biome-ignore lint/suspicious/noExplicitAny: see doc
    Object.entries(ops as Record<string, any>).map(([method, op]) => ({ path, method, op })),
  );
const schema = (name: string) => doc.components.schemas[name];

describe("/openapi.json for generators", () => {
  it("names every operation by the rule: a verb and what it acts on, unique", () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(ids.length).toBeGreaterThan(40);
    expect(ids.filter((id) => typeof id !== "string")).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(
        /^(create|get|list|update|cancel|delete|advance|reset|load|replay|complete|stream|submit)[A-Z][A-Za-z]+$/,
      );
    }
    expect(doc.paths["/api/v1/payments/card/status/{id}"].get.operationId).toBe("getCardPaymentStatus");
    expect(doc.paths["/_sandbox/clock/advance"].post.operationId).toBe("advanceClock");
    // the /v1 alias is served, not documented: one operation per path
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/v1/"))).toBe(false);
  });

  it("has a webhooks entry per row of the signer table, and the journal's body is their union by kind, required", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(
      ["apmPayment", "apmPayout", "cardPayment", "cardPayout", "refund", "subscriptionCharge"].sort(),
    );
    expect(Object.keys(SIGNED_FIELDS)).toHaveLength(6);
    // biome-ignore lint/suspicious/noExplicitAny: the document as parsed JSON
    for (const hook of Object.values(doc.webhooks) as Array<{ post: Record<string, any> }>) {
      const params = hook.post.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`);
      expect(params).toEqual(
        expect.arrayContaining([
          "header:x-checksum",
          "header:x-sandbox-delivery-id",
          "header:x-sandbox-attempt",
          "query:paymentMethod",
        ]),
      );
      expect(hook.post.requestBody.content["application/json"].schema.$ref).toMatch(/Callback$/);
    }
    const delivery = schema("WebhookDelivery");
    expect(delivery.oneOf).toHaveLength(6);
    for (const ref of delivery.oneOf) {
      const variant = schema(ref.$ref.split("/").pop());
      expect(variant.required).toEqual(expect.arrayContaining(["kind", "body"]));
      expect(variant.properties.body.$ref).toMatch(/Callback$/);
    }
  });

  it("gives transactionStatus each kind's statuses from the lifecycle table, and declares every field sent", () => {
    const enumOf = (name: string) => schema(name).properties.transactionStatus.enum;
    expect(enumOf("CardPaymentStatus")).toEqual(statusesOf("card_payment"));
    expect(enumOf("CardPaymentInfo")).toEqual(statusesOf("card_payment"));
    expect(enumOf("RefundCallback")).toEqual(statusesOf("refund"));
    expect(enumOf("CardPayoutCallback")).toEqual(statusesOf("card_payout"));
    expect(enumOf("ApmPaymentCallback")).toEqual(statusesOf("apm_payment"));
    expect(enumOf("ApmPayoutCallback")).toEqual(statusesOf("apm_payout"));
    expect(enumOf("CompleteTransactionResponse")).toEqual(["SUCCEED", "FAILED"]);
    expect(new Set(enumOf("CardPaymentResponse"))).toEqual(new Set(createStatusesOf("card_payment")));
    expect(new Set(enumOf("RefundResponse"))).toEqual(new Set(createStatusesOf("refund")));
    expect(new Set(enumOf("CardPayoutResponse"))).toEqual(new Set(createStatusesOf("card_payout")));
    expect(schema("CardPaymentInfo").properties.refundedAmount.type).toBe("number");
    expect(schema("ClockAdvanceResponse").properties.ran.required).toEqual(["ticks", "charges", "deliveries", "completions"]);
    expect(schema("Currency").enum).toContain("JPY");
  });

  it("has no allOf and no untyped value anywhere a client reads (answers and webhooks)", () => {
    const seen = new Set<unknown>();
    const untyped: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (node === null || typeof node !== "object" || seen.has(node)) return;
      seen.add(node);
      const o = node as Record<string, unknown>;
      if (o.allOf) untyped.push(`${at}: allOf`);
      if (o.additionalProperties !== undefined && typeof o.additionalProperties === "object") {
        if (Object.keys(o.additionalProperties as object).length === 0) untyped.push(`${at}: additionalProperties {}`);
      }
      if (typeof o.$ref === "string") walk(schema(o.$ref.split("/").pop() as string), o.$ref);
      for (const [k, v] of Object.entries(o)) if (k !== "example" && k !== "examples") walk(v, `${at}/${k}`);
    };
    for (const { path, method, op } of operations()) walk(op.responses, `${method} ${path}`);
    walk(doc.webhooks, "webhooks");
    expect(untyped).toEqual([]);
    // the untyped placeholders the generated client showed as `{[key: string]: unknown}` are real schemas now
    expect(schema("CardPaymentCallback").properties.billingDetails.$ref).toBe("#/components/schemas/BillingDetailsEcho");
    expect(schema("ApmPaymentCallback").properties.apmRequestPayload.$ref).toBe("#/components/schemas/ApmRequestPayloadEcho");
    expect(schema("ApmPaymentCallback").properties.apmResponseData.$ref).toBe("#/components/schemas/ApmResponseData");
    const recording = doc.paths["/_sandbox/recording"].get.responses["200"].content;
    expect(recording["application/yaml"].schema).toEqual({ $ref: "#/components/schemas/ScenarioDocument" });
    expect(recording["application/json"].schema).toEqual({ $ref: "#/components/schemas/ScenarioDocument" });
  });

  it("tells the two tokens apart, and lists the servers", () => {
    const { BearerAuth, AdminToken } = doc.components.securitySchemes;
    expect(BearerAuth).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(AdminToken).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });
    expect(doc.servers[0].url).toBe("http://sandbox.test");
    expect(doc.servers[1]).toMatchObject({ url: "http://sandbox.test/sandboxes/{sandboxId}", variables: { sandboxId: {} } });
  });
});

describe("the property tester's findings, one rule on both sides", () => {
  const pay = (email: string) =>
    s.http
      .post("/api/v1/payments/card")
      .set("authorization", token)
      .send(cardPaymentBody({ billingDetails: { email } }));

  it("e-mail: addresses valid by the documented pattern (and format) are accepted; the pattern is the server's", async () => {
    const rule = new RegExp(schema("BillingDetails").properties.email.pattern);
    expect(schema("BillingDetails").properties.email.format).toBe("email");
    for (const email of ["o'brien@shop.example", "a!b#c$d%e&f*g+h=i?j^k_l`m{n|o}p~q@x.example", "a.b-c@sub-1.shop.example"]) {
      expect(rule.test(email), email).toBe(true);
      expect((await pay(email)).status, email).toBe(200);
    }
    for (const email of ["jane@localhost", "jane..doe@shop.example", "jane@shop.123"]) {
      expect(rule.test(email), email).toBe(false);
      expect((await pay(email)).status, email).toBe(400);
    }
  });

  it("POST /_sandbox/sandboxes: a fork with a startTime is refused, and the document says so (ForkSandbox is closed)", async () => {
    const fork = schema("ForkSandbox");
    expect(fork.additionalProperties).toBe(false);
    expect(Object.keys(fork.properties)).not.toContain("startTime");
    const res = await s.http.post("/_sandbox/sandboxes").send({ from: "root", startTime: "2026-01-15T12:00:00Z" });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "startTime", message: "not with from: a copy's clock is at its source's now" }]);
  });

  it("POST /_sandbox/scenarios: the rules a scenario must keep are in its schema", () => {
    const rule = schema("ScenarioDocument").properties.rules.items;
    expect(rule.anyOf.map((b: { required: string[] }) => b.required[0])).toEqual(["amount", "card", "operation"]);
    expect(rule.properties.declineCode.enum).toEqual(DECLINE_CODES.map((d) => d.code));
    expect(rule.properties.currency.enum).toContain("EUR");
    expect(rule.properties.completeAfter.pattern).toBeDefined();
    expect(schema("ScenarioDocument").properties.fxRates.propertyNames.enum).toContain("USD");
  });

  it("complete: declineCode is the decline codes' enum, and a code outside it is refused saying so", async () => {
    expect(schema("CompleteTransactionRequest").properties.declineCode.enum).toEqual(DECLINE_CODES.map((d) => d.code));
    const res = await s.http.post("/_sandbox/transactions/tx_x/complete").send({ status: "FAILED", declineCode: 19 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ field: "declineCode", message: expect.stringMatching(/known decline code/) });
  });

  it("wallet origin: the syntax is the document's pattern, the walletDomains a run-time rule said in the reason", async () => {
    const origin = schema("MerchantSessionByAccountRequest").properties.origin;
    expect(origin.pattern).toBeDefined();
    expect(origin.description).toMatch(/walletDomains.*run time/);
    const session = (o: string) =>
      s.http
        .post("/api/v1/wallet-pay/merchant-session-by-account")
        .set("authorization", token)
        .send({ validationUrl: "https://apple-pay-gateway.apple.com/x", origin: o, accountId: 2001 });
    const elsewhere = await session("https://shop.example");
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.errors[0].message).toBe(
      "its host shop.example is not one of the merchant's walletDomains (localhost, 127.0.0.1)",
    );
    const bad = await session("not a host");
    expect(bad.body.errors[0].message).toMatch(/expected a host such as/);
    expect((await session("http://127.0.0.1:8443/checkout")).status).toBe(200);
  });

  it("the control plane refuses an unknown query key as it refuses an unknown body key", async () => {
    const res = await s.http.get("/_sandbox/webhooks?limt=5");
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Unknown field: limt (did you mean limit?)");
    expect((await s.http.get("/_sandbox/webhooks?limit=5")).status).toBe(200);
  });
});
