import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hmacBase64 } from "../../src/platform/crypto.js";
import { BUILTIN } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { type RunningServer, startServer } from "../helpers/server.js";
import { CARDS, cardPaymentBody } from "../http/payments.body.js";

let server: RunningServer;
let receiver: Receiver;
let token: string;

async function call(path: string, init: { method?: string; body?: unknown; auth?: boolean } = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", ...(init.auth === false ? {} : { authorization: token }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function login() {
  token = (
    await call("/api/v1/auth", {
      body: { merchantKey: BUILTIN.merchantKey, merchantSecret: BUILTIN.merchantSecret },
      auth: false,
    })
  ).body.token as string;
}

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer();
  await login();
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe("card payments on the real server", () => {
  it("a payment answers SUCCEED and its signed callback reaches the receiver", async () => {
    const res = await call("/api/v1/payments/card", { body: cardPaymentBody({ callbackUrl: `${receiver.url}/cb` }) });
    expect(res.status).toBe(200);
    expect(res.body.transactionStatus).toBe("SUCCEED");
    const [hook] = await receiver.waitFor(1);
    const body = hook!.body as Record<string, unknown>;
    expect(hook!.query.get("paymentMethod")).toBe("card");
    expect(body).toMatchObject({
      transactionId: res.body.transactionId,
      transactionStatus: "SUCCEED",
      orderAmount: 20.5,
      mid: BUILTIN.mid,
    });
    expect(hook!.headers["x-checksum"]).toBe(
      hmacBase64(BUILTIN.merchantSecret, `${BUILTIN.mid}|20.5|USD|${res.body.transactionId}`),
    );
  });

  it("a PROCESSING payment survives a restart and completes when the clock passes completeAfter", async () => {
    const scenario = {
      name: "slow",
      cards: [
        {
          number: "4242424242424242",
          payment: { status: "PROCESSING", completeAfter: "PT10M", completeWith: "FAILED", declineCode: 5 },
        },
      ],
    };
    expect((await call("/_sandbox/scenarios", { body: scenario })).status).toBe(200);
    const before = receiver.received.length;
    const res = await call("/api/v1/payments/card", {
      body: cardPaymentBody({ card: { number: "4242424242424242" }, callbackUrl: `${receiver.url}/cb` }),
    });
    expect(res.body).toEqual({ transactionId: expect.any(String), transactionStatus: "PROCESSING" });
    await receiver.waitFor(before + 1);

    await server.stop();
    server = await startServer({ dbPath: server.dbPath });
    await login();
    expect((await call(`/api/v1/payments/card/status/${res.body.transactionId}`)).body.transactionStatus).toBe("PROCESSING");

    const advanced = await call("/_sandbox/clock/advance", { body: { by: "PT10M" } });
    expect(advanced.status).toBe(200);
    expect(advanced.body.ran).toMatchObject({ completions: 1 });
    // advance answers after the webhooks due by then were attempted
    const statuses = receiver.received.slice(before).map((h) => (h.body as Record<string, unknown>).transactionStatus);
    expect(statuses).toEqual(["PROCESSING", "FAILED"]);
    const info = await call(`/api/v1/payments/card/info/${res.body.transactionId}`);
    expect(info.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });
  });

  it("a 3DS card gets challenge URLs on the server's public URL", async () => {
    const res = await call("/v1/payments/card", { body: cardPaymentBody({ card: { number: CARDS.threeDs } }) });
    expect(res.body.challengeUrl).toBe(`http://localhost:${server.port}/sandbox/3ds/${res.body.transactionId}`);
    const page = await fetch(res.body.challengeUrl as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('value="success"');
  });
});
