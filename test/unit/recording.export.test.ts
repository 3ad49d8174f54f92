/**
 * The recording's export (docs/recording.md), as a pure function over recorded rows: references to
 * earlier answers, the built-in placeholders, cards and CVVs, merchants, clock moves and the time a
 * session spent between calls, webhook deliveries placed after the call that caused them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RecordedCall, RecordedDelivery } from "../../src/recording/recorder.js";
import { redactForRecording, redactJsonText } from "../../src/recording/redact.js";
import { durationOf, exportSteps } from "../../src/recording/steps-export.js";

const T0 = Date.UTC(2026, 0, 15, 12);
let id = 0;
function row(over: Partial<RecordedCall>): RecordedCall {
  return {
    id: ++id,
    at: T0,
    kind: "request",
    method: "POST",
    path: "/api/v1/payments/card",
    merchantKey: "sandbox_merchant_key",
    body: null,
    status: 200,
    response: null,
    webhooksUpTo: 0,
    ...over,
  };
}
const delivery = (seq: number, createdAt: number, transactionId: string, status: string): RecordedDelivery => ({
  seq,
  id: `wh_00000000${seq}`,
  transactionId,
  subscriptionId: null,
  body: JSON.stringify({ transactionId, transactionStatus: status, declineCode: null }),
  createdAt,
});
const input = {
  name: "recording",
  source: "here",
  scenarios: [],
  testCards: ["4111111111111111"],
  builtinMerchantKey: "sandbox_merchant_key",
};

describe("exportSteps", () => {
  it("ids of earlier answers become references, saved under a short name; an id from nowhere gets a comment", () => {
    const file = exportSteps({
      ...input,
      calls: [
        row({
          body: JSON.stringify({ requestId: "r-1", amount: "1.00" }),
          response: JSON.stringify({ transactionId: "tx_0000000001", requestId: "r-1" }),
        }),
        row({
          body: JSON.stringify({ requestId: "r-1", amount: "1.00" }),
          response: JSON.stringify({ transactionId: "tx_0000000001" }),
        }),
        row({
          method: "GET",
          path: "/api/v1/payments/card/status/tx_0000000001",
          response: JSON.stringify({ transactionStatus: "SUCCEED" }),
        }),
        row({ path: "/api/v1/refunds/card", body: JSON.stringify({ requestId: "r-2", transactionId: "tx_9999999999" }) }),
      ],
      deliveries: [],
    });
    const [first, again, status, refund] = file.steps;
    expect(first?.step).toMatchObject({ body: { requestId: "${uuid}" }, save: "payment1" });
    expect(again?.step.body).toEqual({ requestId: "${payment1.requestId}", amount: "1.00" });
    expect(status?.step.request).toBe("GET /api/v1/payments/card/status/${payment1.transactionId}");
    expect(refund?.comment).toContain("tx_9999999999 did not come from an earlier answer");
  });

  it("cards become the test card of their mask with the test CVV; checksum and callbackUrl the runner's", () => {
    const body = redactForRecording({
      requestId: "a",
      card: { number: "4111111111111111", cvv: "737" },
      checksum: "abc=",
      callbackUrl: "https://shop.example/hooks",
    });
    expect(JSON.stringify(body)).not.toContain("4111111111111111");
    expect(body).toMatchObject({ card: { number: "411111******1111" } });
    expect(JSON.stringify(body)).not.toContain("cvv");
    const file = exportSteps({ ...input, calls: [row({ body: JSON.stringify(body) })], deliveries: [] });
    expect(file.steps[0]?.step.body).toEqual({
      requestId: "${uuid}",
      card: { number: "4111111111111111", cvv: "123" },
      checksum: "${checksum}",
      callbackUrl: "${callbackUrl}",
    });
  });

  it("a Luhn-valid number anywhere is masked; SSNs and wallet cryptograms dropped, wallet data a placeholder; other digits kept", () => {
    expect(
      redactForRecording({
        metadata: { note: "4000000000000002" },
        socialSecurityNumber: "123-45-6789",
        accountNumber: "000123456789",
        apmPayload: {
          token: { paymentData: { data: "ZW5j" } },
          decrypted: { applicationPrimaryAccountNumber: "4111111111111111", onlinePaymentCryptogram: "AgAA" },
        },
      }),
    ).toEqual({
      metadata: { note: "400000******0002" },
      accountNumber: "000123456789",
      apmPayload: {
        token: { paymentData: { data: "[masked]" } },
        decrypted: { applicationPrimaryAccountNumber: "411111******1111" },
      },
    });
  });

  it("a call as another merchant than the file's first says `as`; the scenarios' merchants head the file", () => {
    const merchant = { merchantKey: "qa_key", merchantSecret: "qa_secret", mid: "qa-mid", merchantId: 5001, accountId: 6001 };
    const file = exportSteps({
      ...input,
      scenarios: [{ name: "qa", merchants: [merchant], fxRates: { USD: 1.2 }, cards: [], rules: [] } as never],
      calls: [row({ merchantKey: "qa_key" }), row({ merchantKey: "sandbox_merchant_key" })],
      deliveries: [],
    });
    expect(file.document.merchants).toEqual([merchant]);
    expect(file.document.fxRates).toEqual({ USD: 1.2 });
    expect(file.steps[0]?.step.as).toBeUndefined();
    expect(file.steps[1]?.step.as).toBe("sandbox_merchant_key");
  });

  it("clock moves: `by` as given, `to` as the duration it moved; a minute or more between calls is advanced over", () => {
    const file = exportSteps({
      ...input,
      calls: [
        row({
          kind: "advance",
          path: "/_sandbox/clock/advance",
          body: '{"by":"P1M"}',
          response: JSON.stringify({ now: "2026-02-15T12:00:00.000Z" }),
        }),
        row({
          kind: "advance",
          at: Date.UTC(2026, 1, 15, 12),
          path: "/_sandbox/clock/advance",
          body: '{"to":"2026-02-16T13:30:00Z"}',
          response: JSON.stringify({ now: "2026-02-16T13:30:00.000Z" }),
        }),
        row({ at: Date.UTC(2026, 1, 16, 13, 35) }),
      ],
      deliveries: [],
    });
    expect(file.steps.map((s) => s.step.advance ?? s.step.request)).toEqual([
      "P1M",
      "P1DT1H30M",
      "PT5M",
      "POST /api/v1/payments/card",
    ]);
  });

  it("deliveries follow the call that caused them; one that time caused comes after an advance over that time", () => {
    const file = exportSteps({
      ...input,
      calls: [
        row({ response: JSON.stringify({ transactionId: "tx_0000000001", transactionStatus: "PENDING" }), webhooksUpTo: 1 }),
        row({ at: T0 + 110_000, method: "GET", path: "/api/v1/payments/card/status/tx_0000000001", webhooksUpTo: 2 }),
      ],
      deliveries: [delivery(1, T0, "tx_0000000001", "PENDING"), delivery(2, T0 + 60_000, "tx_0000000001", "SUCCEED")],
    });
    expect(file.steps.map((s) => s.step.name)).toEqual([
      "card payment → PENDING",
      "webhook of payment1: PENDING",
      "advance PT1M (time passed in the session)",
      "webhook of payment1: SUCCEED",
      "card payment status → 200",
    ]);
    expect(file.steps[1]?.step.webhook).toEqual({
      transactionId: "${payment1.transactionId}",
      body: { transactionStatus: "PENDING" },
    });
  });

  it("a replay of a delivery no answer named reads its transaction's journal first and refers to its place there", () => {
    const file = exportSteps({
      ...input,
      calls: [
        row({ response: JSON.stringify({ transactionId: "tx_0000000001", transactionStatus: "PENDING" }), webhooksUpTo: 2 }),
        row({ at: T0 + 1000, path: "/_sandbox/webhooks/wh_000000001/replay", status: 201, webhooksUpTo: 3 }),
      ],
      deliveries: [
        delivery(1, T0, "tx_0000000001", "PENDING"),
        delivery(2, T0, "tx_0000000001", "SUCCEED"),
        delivery(3, T0 + 1000, "tx_0000000001", "PENDING"),
      ],
    });
    const steps = file.steps.map((s) => s.step);
    expect(steps[3]).toEqual({
      name: "find the delivery in the webhook journal",
      request: "GET /_sandbox/webhooks?transactionId=${payment1.transactionId}&limit=1000",
      expect: { status: 200 },
      save: "journal1",
    });
    expect(steps[4]?.request).toBe("POST /_sandbox/webhooks/${journal1.1.id}/replay");
    expect(file.steps.every((s) => s.comment === undefined)).toBe(true);
  });

  it("durationOf writes ISO 8601 durations", () => {
    expect(durationOf(0)).toBe("PT0S");
    expect(durationOf(86_400_000 * 2 + 3_600_000)).toBe("P2DT1H");
    expect(durationOf(1500)).toBe("PT1.5S");
  });
});

describe("redactJsonText (the text path of redaction)", () => {
  const bodies: unknown[] = [
    { card: { number: "4111111111111111", cvv: "737" }, amount: "1.00" },
    { cvv: "123", a: 1 },
    { a: 1, cvv: "123" },
    { a: 1, cvv: "1", socialSecurityNumber: "078-05-1120", b: [1, 2] },
    { a: 1, card_cvv: "1", ssn: "2" },
    { nested: { list: [{ pan: "4000000000000002" }, "5500000000000004", "123456789012"] } },
    { accountNumber: "000123456789", note: 'a "quoted" 4111111111111111' },
    { apmPayload: { token: { paymentData: { data: "ZW5j" } } } },
    { cvv: { nested: "737" } },
    { number: 4111111111111111 },
    [],
    {},
  ];
  it.each(bodies.map((b) => [JSON.stringify(b), b]))("%s: the same as the structural path", (text) => {
    const out = redactJsonText(text as string);
    expect(JSON.parse(out)).toEqual(redactForRecording(JSON.parse(text as string)));
    expect(out).not.toMatch(/4111111111111111|4000000000000002|5500000000000004|cvv|737|078-05-1120/);
  });
  it("is the structural path for any body of cards, CVVs and digit strings, in any order (property)", () => {
    const key = fc.constantFrom("number", "cvv", "pan", "note", "amount", "a", "cardNumber", "ssn", "paymentData", "data");
    const leaf = fc.oneof(
      fc.constantFrom("4111111111111111", "4000000000000002", "123456789012", "737", "000123456789", ""),
      fc.stringMatching(/^\d{0,20}$/),
      fc.string(),
      fc.integer(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("value")), fc.dictionary(key, tie("value"))),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, value), (body) => {
        const text = JSON.stringify(body);
        expect(JSON.parse(redactJsonText(text))).toEqual(redactForRecording(JSON.parse(text)));
      }),
      { numRuns: 1000 },
    );
  });

  it("text that is not JSON is kept only when it holds nothing a card number could be", () => {
    expect(redactJsonText("not json")).toBe("not json");
    expect(redactJsonText("not json 4111111111111111")).toBe("null");
  });
});
