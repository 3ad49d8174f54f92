import { afterEach, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { type RunningServer, startServer, tempDbPath } from "../helpers/server.js";
import { BILLING, DEVICE } from "../http/subscriptions.support.js";

let server: RunningServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await server?.stop();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

type Json = Record<string, unknown>;
const START = ["--start-time", "2026-01-15T12:00:00Z"];

async function call(method: string, path: string, body?: unknown, auth?: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${server!.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}
const login = async () =>
  (await call("POST", "/api/v1/auth", { merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" })).body
    .token as string;
const advance = (by: string) => call("POST", "/_sandbox/clock/advance", { by });
const chargeDates = (r: Receiver) =>
  r.received.map((h) => (h.body as Json).chargeDate).filter((d): d is string => typeof d === "string");

describe("subscriptions on the real server", () => {
  it("a restart (even a kill) in the middle of a schedule neither repeats nor misses a charge", async () => {
    receiver = await startReceiver();
    const dbPath = tempDbPath();
    server = await startServer({ dbPath, args: START });
    let auth = await login();
    const tok = await call(
      "POST",
      "/api/v1/payments/card/tokenize",
      {
        requestId: "e2e-tok",
        merchantId: 1001,
        card: { number: "5500000000000004", expMonth: "12", expYear: "2030", cvv: "123" },
        billingDetails: BILLING,
      },
      auth,
    );
    expect(tok.status).toBe(200);
    const created = await call(
      "POST",
      "/api/v1/payments/card/recurring",
      {
        requestId: "e2e-sub",
        mid: "sandbox-mid-001",
        cardToken: tok.body.token,
        plan: { amount: "12.00", currency: "EUR", frequency: "MONTHLY", interval: 1, startDate: "2026-01-31" },
        order: {},
        device: DEVICE,
        callbackUrl: `${receiver.url}/subs`,
        successRedirectUrl: "https://shop.example/ok",
        failureRedirectUrl: "https://shop.example/ko",
      },
      auth,
    );
    expect(created.body).toMatchObject({ status: "ACTIVE", nextChargeDate: "2026-02-28" });
    const id = created.body.subscriptionId as string;

    const first = await advance("P2M"); // → 2026-03-15: Feb 28
    expect(first.body.ran).toMatchObject({ charges: 1 });
    expect(await server.stop("SIGKILL")).toBeNull();

    server = await startServer({ dbPath, args: START });
    const second = await advance("P3M"); // → 2026-06-15: Mar 31, Apr 30, May 31
    expect(second.body.ran).toMatchObject({ charges: 3 });
    await server.stop();

    server = await startServer({ dbPath, args: START });
    auth = await login();
    const sub = await call("GET", `/api/v1/payments/card/recurring/${id}`, undefined, auth);
    expect(sub.body).toMatchObject({ status: "ACTIVE", nextChargeDate: "2026-06-30", failureCount: 0 });
    expect(chargeDates(receiver)).toEqual(["2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31"]);
    const journal = await call("GET", `/_sandbox/webhooks?subscriptionId=${id}`);
    expect((journal.body as unknown as Json[]).map((d) => d.status)).toEqual([
      "delivered",
      "delivered",
      "delivered",
      "delivered",
    ]);
  });
});
