/**
 * /openapi.json documents the APM routes from the one method catalog: paymentMethod
 * and paymentType are enums, and each pay-in method has an example request that really works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by known paths; a wrong path fails the test.
let doc: any;
beforeAll(async () => {
  s = makeSandbox();
  doc = (await s.http.get("/openapi.json")).body;
});
afterAll(async () => {
  await s.close();
});

describe("/openapi.json for APM", () => {
  it("lists paymentMethod and paymentType as enums per direction, each method with its one paymentType (docs/apm.md)", () => {
    const schemas = doc.components.schemas;
    const methods = (name: string) => Object.keys(schemas[name].discriminator.mapping).sort();
    expect(schemas.ApmPaymentPayload.discriminator.propertyName).toBe("paymentMethod");
    expect(methods("ApmPaymentPayload")).toEqual(
      ["APPLE_PAY", "EXTERNAL_HPP_EFT", "GOOGLE_PAY", "PIX_QR", "SMART_BANK_TRANSFER", "SMART_E_WALLET", "UPI_QR"].sort(),
    );
    // a payout takes payout methods only: no pay-in method in its enum
    expect(methods("ApmPayoutPayload")).toEqual(["SMART_BANK_TRANSFER_PAYOUT", "SMART_E_WALLET"]);
    const pairs: Record<string, string> = {};
    for (const name of ["ApmPaymentPayload", "ApmPayoutPayload"]) {
      for (const ref of schemas[name].oneOf) {
        const variant = schemas[ref.$ref.split("/").pop()].properties;
        expect(variant.paymentMethod.enum).toHaveLength(1);
        expect(variant.paymentType.enum).toHaveLength(1);
        pairs[variant.paymentMethod.enum[0]] = variant.paymentType.enum[0];
      }
    }
    expect(pairs).toEqual({
      SMART_E_WALLET: "E_WALLET",
      SMART_BANK_TRANSFER: "BANK_TRANSFER",
      EXTERNAL_HPP_EFT: "BANK_TRANSFER",
      SMART_BANK_TRANSFER_PAYOUT: "BANK_TRANSFER",
      UPI_QR: "BANK_TRANSFER",
      PIX_QR: "BANK_TRANSFER",
      APPLE_PAY: "MOBILE_WALLET",
      GOOGLE_PAY: "MOBILE_WALLET",
    });
    expect(doc.components.schemas.ApmPayoutRequest.properties.apmPayload.$ref).toBe("#/components/schemas/ApmPayoutPayload");
  });

  it("documents every APM route, the pages and the wallet sessions", () => {
    for (const path of [
      "/api/v1/payments/apm",
      "/api/v1/payments/apm/status/{id}",
      "/api/v1/payments/apm/info/{id}",
      "/api/v1/payouts/apm",
      "/api/v1/payouts/apm/info/{id}",
      "/api/v1/wallet-pay/merchant-session",
      "/api/v1/wallet-pay/merchant-session-by-account",
      "/sandbox/hpp/{id}",
      "/sandbox/qr/{id}",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });

  it("has one example per pay-in method, each accepted as documented (its checksum is valid for the built-in merchant)", async () => {
    const examples = doc.paths["/api/v1/payments/apm"].post.requestBody.content["application/json"].examples;
    expect(Object.keys(examples).sort()).toEqual([
      "APPLE_PAY",
      "EXTERNAL_HPP_EFT",
      "GOOGLE_PAY",
      "PIX_QR",
      "SMART_BANK_TRANSFER",
      "SMART_E_WALLET",
      "UPI_QR",
    ]);
    const token = await s.token();
    for (const [method, { value }] of Object.entries<{ value: Record<string, unknown> }>(examples)) {
      const body = value.callbackUrl ? { ...value, callbackUrl: "http://127.0.0.1:9/cb" } : value;
      const res = await s.http.post("/api/v1/payments/apm").set("authorization", token).send(body);
      expect(res.status, `${method}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    const payouts = doc.paths["/api/v1/payouts/apm"].post.requestBody.content["application/json"].examples;
    expect(Object.keys(payouts).sort()).toEqual(["SMART_BANK_TRANSFER_PAYOUT", "SMART_E_WALLET"]);
  });
});
