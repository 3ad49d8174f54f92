/**
 * The hosted payment page and the QR page over HTTP (docs/apm.md#the-hosted-payment-page, "APM
 * flows"), and the QR code itself: the PNG decodes (jsqr) back to the deep link; the PIX BR Code's
 * CRC16 is checked by an independent implementation.
 */
import jsQRModule from "jsqr";
import { PNG } from "pngjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandboxWithReceiver, type TestSandbox } from "../helpers/harness.js";
import type { Receiver } from "../helpers/receiver.js";
import { apmBody, type Body, payoutBody } from "./apm.support.js";

let s: TestSandbox;
let token: string;
let receiver: Receiver;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ s, token, receiver, close } = await sandboxWithReceiver());
});

afterEach(() => close());

const pay = async (body: Body) => {
  const res = await s.http.post("/api/v1/payments/apm").set("authorization", token).send(body);
  expect(res.status).toBe(200);
  return res.body;
};
const statuses = async () => {
  await s.ctx.work.runUntil();
  return receiver.received.map((h) => (h.body as Body).transactionStatus);
};
const status = async (id: string) =>
  (await s.http.get(`/api/v1/payments/apm/status/${id}`).set("authorization", token)).body.transactionStatus;

/** jsqr is CommonJS whose typings declare an ES default export; take whichever the loader gives. */
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule.default }).default ??
  jsQRModule) as typeof jsQRModule.default;

function decodeQr(base64: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(base64, "base64"));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/** CRC16/CCITT-FALSE written independently of src/modules/apm/qr.ts. */
function crc16ccitt(s: string): number {
  let crc = 0xffff;
  for (const b of Buffer.from(s)) {
    for (let i = 0; i < 8; i++) {
      const bit = ((b >> (7 - i)) & 1) === 1;
      const c15 = ((crc >> 15) & 1) === 1;
      crc = (crc << 1) & 0xffff;
      if (c15 !== bit) crc ^= 0x1021;
    }
  }
  return crc;
}

describe("HPP (docs/apm.md Hosted payment page)", () => {
  it("asks for exactly the missing fields; success stores them, PROCESSING, 303, then SUCCEED by webhook", async () => {
    const res = await pay(apmBody("SMART_BANK_TRANSFER", { callbackUrl: `${receiver.url}/cb` }, { bankName: "Sandbox Bank" }));
    const id = res.transactionId;
    const page = await s.http.get(`/sandbox/hpp/${id}`);
    expect(page.status).toBe(200);
    expect(page.text.match(/<input\b/g)).toHaveLength(2);
    expect(page.text).toContain('name="accountNumber"');
    expect(page.text).toContain('name="accountHolderName"');
    expect(page.text).not.toContain('name="bankName"');
    expect(page.text).toContain("Bank account number");
    expect(page.text).toContain('name="outcome" value="success"');
    expect(page.text).toContain('name="outcome" value="failure"');

    const bad = await s.http.post(`/sandbox/hpp/${id}`).type("form").send({ outcome: "success", accountNumber: "12345678" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("Please fill in: accountHolderName");
    expect(bad.text).toContain('value="12345678"');
    expect(await status(id)).toBe("PENDING");

    const ok = await s.http
      .post(`/sandbox/hpp/${id}`)
      .type("form")
      .send({ outcome: "success", accountNumber: "12345678", accountHolderName: "Jane Doe" });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe(`https://shop.example/ok?transactionId=${id}`);
    expect(await status(id)).toBe("PROCESSING");
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);
    expect(await statuses()).toEqual(["PENDING", "PROCESSING", "SUCCEED"]);
    const info = await s.http.get(`/api/v1/payments/apm/info/${id}`).set("authorization", token);
    // docs/apm.md#the-hosted-payment-page: what the shopper typed joins apmRequestPayload as entered,
    // in the info and in the callbacks (a bank account number is not card data)
    const typed = { bankName: "Sandbox Bank", accountNumber: "12345678", accountHolderName: "Jane Doe" };
    expect(info.body.apmRequestPayload).toMatchObject(typed);
    expect(receiver.received.at(-1)?.body).toMatchObject({ apmRequestPayload: typed });

    const again = await s.http.post(`/sandbox/hpp/${id}`).type("form").send({ outcome: "failure" });
    expect(again.status).toBe(409);
    expect((await s.http.get(`/sandbox/hpp/${id}`)).status).toBe(409);
  });

  it("failure → FAILED, 303 to the failure URL with transactionId kept beside its query", async () => {
    const { transactionId: id } = await pay(apmBody("EXTERNAL_HPP_EFT", { callbackUrl: `${receiver.url}/cb` }));
    const page = await s.http.get(`/sandbox/hpp/${id}?mode=iframe`);
    expect(page.text).toContain('target="_top"');
    expect(page.text).toContain('name="institutionNumber"');
    const res = await s.http.post(`/sandbox/hpp/${id}?mode=iframe`).type("form").send({ outcome: "failure" });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`https://shop.example/ko?order=9&transactionId=${id}`);
    expect(await statuses()).toEqual(["PENDING", "FAILED"]);
  });

  it("an invalid value re-renders with 400 and changes nothing", async () => {
    const { transactionId: id } = await pay(apmBody("EXTERNAL_HPP_EFT"));
    const res = await s.http.post(`/sandbox/hpp/${id}`).type("form").send({
      outcome: "success",
      accountHolderName: "Jo",
      institutionNumber: "12",
      transitNumber: "00011",
      accountNumber: "1234",
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain("institutionNumber");
    expect(res.text).toContain('aria-invalid="true"');
    expect(await status(id)).toBe("PENDING");
  });

  it("a payout missing fields is collected the same way", async () => {
    const res = await s.http
      .post("/api/v1/payouts/apm")
      .set("authorization", token)
      .set("referer", "https://shop.example")
      .send(payoutBody("SMART_E_WALLET", {}, {}));
    expect(res.body.apmResponseData.actionType).toBe("REDIRECT");
    const page = await s.http.get(new URL(res.body.apmResponseData.redirectUrl).pathname);
    expect(page.text).toContain('name="walletId"');
    const ok = await s.http
      .post(`/sandbox/hpp/${res.body.transactionId}`)
      .type("form")
      .send({ outcome: "success", walletId: "w-1" });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("PROCESSING");
  });

  it("unknown ids are 404 pages, a card transaction's id too", async () => {
    expect((await s.http.get("/sandbox/hpp/tx_nope")).status).toBe(404);
    expect((await s.http.post("/sandbox/qr/tx_nope").type("form").send({ outcome: "success" })).status).toBe(404);
  });
});

describe("QR pay-ins (docs/apm.md)", () => {
  it("UPI_QR: the PNG decodes to the UPI deep link; the QR page shows it with the two buttons", async () => {
    const res = await pay(apmBody("UPI_QR", { amount: "1250.75", callbackUrl: `${receiver.url}/cb` }));
    const { qrData, qrDeepLink } = res.apmResponseData;
    expect(qrDeepLink).toBe(`upi://pay?pa=sandbox@upi&pn=sandbox-mid-001&am=1250.75&cu=INR&tr=${res.transactionId}`);
    expect(decodeQr(qrData)).toBe(qrDeepLink);
    const page = await s.http.get(`/sandbox/qr/${res.transactionId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`src="data:image/png;base64,${qrData}"`);
    expect(page.text).toContain("upi://pay?pa=sandbox@upi&amp;pn=sandbox-mid-001");
    expect(page.text).not.toContain("<input");
    const paid = await s.http.post(`/sandbox/qr/${res.transactionId}`).type("form").send({ outcome: "success" });
    expect(paid.status).toBe(303);
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);
    expect(await statuses()).toEqual(["PENDING", "PROCESSING", "SUCCEED"]);
  });

  it("PIX_QR: an EMV BR Code with a valid CRC16, decoded from the PNG", async () => {
    const res = await pay(apmBody("PIX_QR", { amount: "99.90" }));
    const code: string = res.apmResponseData.qrDeepLink;
    expect(code.startsWith("000201")).toBe(true);
    expect(code).toContain("br.gov.bcb.pix");
    expect(code).toContain("5303986");
    expect(code).toContain("540599.90");
    expect(code).toContain("5802BR");
    expect(code.slice(-8, -4)).toBe("6304");
    expect(Number.parseInt(code.slice(-4), 16)).toBe(crc16ccitt(code.slice(0, -4)));
    expect(decodeQr(res.apmResponseData.qrData)).toBe(code);
  });

  it("the complete call finishes a QR pay-in waiting PENDING; the page is then closed", async () => {
    const { transactionId: id } = await pay(apmBody("PIX_QR"));
    const done = await s.http.post(`/_sandbox/transactions/${id}/complete`).send({ status: "FAILED", declineCode: 5 });
    expect(done.body).toEqual({ transactionId: id, transactionStatus: "FAILED", declineCode: 5 });
    expect((await s.http.get(`/sandbox/qr/${id}`)).status).toBe(409);
    const info = await s.http.get(`/api/v1/payments/apm/info/${id}`).set("authorization", token);
    expect(info.body.declineSubReason).toBe("INSUFFICIENT_FUNDS_ERROR");
  });
});

describe("a rule's completeAfter ends a QR pay-in waiting PENDING (docs/apm.md)", () => {
  it("PENDING until the rule's deadline, then its outcome by webhook", async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "slow-qr",
        rules: [{ amount: "77.00", status: "PENDING", completeAfter: "PT10M", completeWith: "FAILED", declineCode: 4 }],
      })
      .expect(200);
    const { transactionId: id, apmResponseData } = await pay(
      apmBody("PIX_QR", { amount: "77.00", callbackUrl: `${receiver.url}/cb` }),
    );
    expect(apmResponseData.actionType).toBe("QR");
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT9M" }).expect(200);
    expect(await status(id)).toBe("PENDING");
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);
    expect(await status(id)).toBe("FAILED");
    expect(await statuses()).toEqual(["PENDING", "FAILED"]);
  });
});
