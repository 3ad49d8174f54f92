/**
 * docs/snapshots.md against the real server on a file database: a copy never sends what its source
 * had pending (a real receiver counts every delivery id), and forks survive a restart with their data,
 * their clocks and the image their `reset {"snapshot": true}` goes back to.
 */
import { existsSync, readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { call, type RunningServer, startServer, tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";

let server: RunningServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await server?.stop("SIGKILL");
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

const CREDS = { merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" };
const token = async (base: string) => (await call("POST", `${base}/api/v1/auth`, CREDS)).body.token as string;

describe("a copy and its source's webhooks", () => {
  it("the source retries what it had pending; the copy never sends it, and sends its own", async () => {
    receiver = await startReceiver();
    receiver.defaultStatus = 500;
    server = await startServer();
    const src = (await call("POST", `${server.url}/_sandbox/sandboxes`, { startTime: "2030-01-01T00:00:00Z" })).body;
    const auth = await token(src.baseUrl);
    for (let i = 0; i < 5; i++) {
      const pay = await call(
        "POST",
        `${src.baseUrl}/api/v1/payments/card`,
        cardPaymentBody({ callbackUrl: `${receiver.url}/hooks` }),
        auth,
      );
      expect(pay.body.transactionStatus).toBe("SUCCEED");
    }
    // each first attempt is answered 500: five deliveries pending in the source, a retry due
    await receiver.waitFor(5);
    const fork = await call("POST", `${server.url}/_sandbox/sandboxes`, { from: src.id });
    expect(fork.status).toBe(201);
    const copy = fork.body.baseUrl as string;
    receiver.defaultStatus = 200;
    for (const base of [copy, src.baseUrl]) {
      expect((await call("POST", `${base}/_sandbox/clock/advance`, { by: "P1D" })).status).toBe(200);
    }
    const own = await call(
      "POST",
      `${copy}/api/v1/payments/card`,
      cardPaymentBody({ callbackUrl: `${receiver.url}/hooks` }),
      auth,
    );
    expect(own.body.transactionStatus).toBe("SUCCEED");
    expect((await call("POST", `${copy}/_sandbox/clock/advance`, { by: "P7D" })).status).toBe(200);
    expect((await call("POST", `${src.baseUrl}/_sandbox/clock/advance`, { by: "P7D" })).status).toBe(200);
    await receiver.waitFor(11);

    const byDelivery = new Map<string, number>();
    for (const hook of receiver.received) {
      const id = String(hook.headers["x-sandbox-delivery-id"]);
      byDelivery.set(id, (byDelivery.get(id) ?? 0) + 1);
    }
    const copied = ((await call("GET", `${copy}/_sandbox/webhooks?status=skipped`)).body as Array<{ id: string }>).map(
      (d) => d.id,
    );
    expect(copied).toHaveLength(5);
    // the source's five: a failed attempt and its retry each, both from the source
    for (const id of copied) expect(byDelivery.get(id)).toBe(2);
    // the copy's own: once
    const mine = (await call("GET", `${copy}/_sandbox/webhooks?transactionId=${own.body.transactionId}`)).body as Array<{
      id: string;
      status: string;
    }>;
    expect(mine).toMatchObject([{ status: "delivered" }]);
    expect(byDelivery.get(mine[0]!.id)).toBe(1);
    expect(receiver.received).toHaveLength(11);
  }, 60_000);
});

describe("forks on a file database", () => {
  it("survive a restart: data, clock, and the image their reset goes back to; deleting one removes its files", async () => {
    const dbPath = tempDbPath();
    server = await startServer({ dbPath });
    const src = (await call("POST", `${server.url}/_sandbox/sandboxes`, { startTime: "2030-06-01T00:00:00Z" })).body;
    const auth = await token(src.baseUrl);
    const first = await call("POST", `${src.baseUrl}/api/v1/payments/card`, cardPaymentBody(), auth);
    const fork = (await call("POST", `${server.url}/_sandbox/sandboxes`, { from: src.id, name: "fork" })).body;
    const second = await call("POST", `${fork.baseUrl}/api/v1/payments/card`, cardPaymentBody(), auth);
    expect(second.body.transactionStatus).toBe("SUCCEED");
    expect((await call("POST", `${fork.baseUrl}/_sandbox/clock/advance`, { by: "P2D" })).body.now).toMatch(/^2030-06-03T/);
    expect(
      readdirSync(`${dbPath}-sandboxes`)
        .filter((f) => f.startsWith(fork.id))
        .sort(),
    ).toContain(`${fork.id}.db-origin`);
    expect(await server.stop("SIGTERM")).toBe(0);

    server = await startServer({ dbPath });
    const base = `${server.url}/sandboxes/${fork.id}`;
    const listed = (await call("GET", `${server.url}/_sandbox/sandboxes`)).body as Array<{ id: string }>;
    expect(listed.map((x) => x.id)).toEqual([src.id, fork.id]);
    expect((await call("GET", `${base}/_sandbox/clock`)).body.now).toMatch(/^2030-06-03T/);
    const status = (id: string, b = base) => call("GET", `${b}/api/v1/payments/card/status/${id}`, undefined, auth);
    expect((await status(first.body.transactionId)).body.transactionStatus).toBe("SUCCEED");
    expect((await status(second.body.transactionId)).body.transactionStatus).toBe("SUCCEED");
    // back to the fork's start: the source's payment is there, its own is gone, its clock at the fork's now
    const reset = await call("POST", `${base}/_sandbox/reset`, { snapshot: true });
    expect(reset.body.now).toMatch(/^2030-06-01T/);
    expect((await status(first.body.transactionId)).body.transactionStatus).toBe("SUCCEED");
    expect((await status(second.body.transactionId)).status).toBe(404);
    // the source never saw the fork's
    expect((await status(second.body.transactionId, `${server.url}/sandboxes/${src.id}`)).status).toBe(404);

    expect((await call("DELETE", `${server.url}/_sandbox/sandboxes/${fork.id}`)).status).toBe(204);
    expect(readdirSync(`${dbPath}-sandboxes`).filter((f) => f.startsWith(fork.id))).toEqual([]);
    expect(existsSync(`${dbPath}-sandboxes/${src.id}.db`)).toBe(true);
  }, 60_000);
});
