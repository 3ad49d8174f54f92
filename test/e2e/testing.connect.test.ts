/**
 * `connectSandbox()` of `paysandbox/testing` used as a user's suite would (imported by the package
 * name, the built dist/testing.js and its .d.ts) against a real started server (docs/parallel-suites.md): two
 * handles side by side, each with its own merchant, clock and webhook receiver; `close()` deletes.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectSandbox, type TestSandbox } from "paysandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleDevice } from "../../src/platform/examples.js";
import { type RunningServer, startServer } from "../helpers/server.js";
import { BILLING } from "../http/payments.body.js";

const TOKEN = "suite-t0ken";
const admin = { authorization: `Bearer ${TOKEN}` };

const DEVICE = exampleDevice("vitest");

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ args: ["--start-time", "2026-02-01T00:00:00Z"], env: { SANDBOX_ADMIN_TOKEN: TOKEN } });
});
afterAll(() => server?.stop());

async function call(sandbox: TestSandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: await sandbox.auth() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A card payment, and a monthly subscription from 2026-03-01, both reporting to the handle's receiver. */
async function shop(sandbox: TestSandbox, tag: string) {
  const paid = await call(sandbox, "POST", "/api/v1/payments/card", {
    requestId: crypto.randomUUID(),
    mid: sandbox.merchant.mid,
    card: { number: "4111111111111111", expMonth: "12", expYear: "2035", cvv: "123", requestThreeDSecure: false },
    amount: "20.50",
    currency: "USD",
    lang: "en",
    callbackUrl: `${sandbox.webhooks.url}/payments/${tag}`,
    billingDetails: BILLING,
    order: { orderId: `order-${tag}` },
    device: DEVICE,
  });
  expect(paid.body.transactionStatus).toBe("SUCCEED");
  const tok = await call(sandbox, "POST", "/api/v1/payments/card/tokenize", {
    requestId: crypto.randomUUID(),
    merchantId: sandbox.merchant.merchantId,
    card: { number: "5500000000000004", expMonth: "12", expYear: "2030", cvv: "123" },
    billingDetails: BILLING,
  });
  expect(tok.status).toBe(200);
  const sub = await call(sandbox, "POST", "/api/v1/payments/card/recurring", {
    requestId: crypto.randomUUID(),
    mid: sandbox.merchant.mid,
    cardToken: tok.body.token,
    plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-03-01" },
    order: { orderId: `plan-${tag}` },
    device: DEVICE,
    callbackUrl: `${sandbox.webhooks.url}/subscriptions/${tag}`,
    successRedirectUrl: "https://shop.example/ok",
    failureRedirectUrl: "https://shop.example/ko",
  });
  expect(sub.body).toMatchObject({ status: "ACTIVE", nextChargeDate: "2026-04-01" });
  await sandbox.webhooks.waitFor((h) => h.body.transactionId === paid.body.transactionId);
  return {
    transactionId: paid.body.transactionId as string,
    subscriptionId: sub.body.subscriptionId as string,
    /** Its first charge's. */
    firstChargeId: sub.body.transactionId as string,
  };
}

const sandboxIdOf = (sandbox: TestSandbox) => /\/sandboxes\/(sbx_\w{20})$/.exec(sandbox.url)?.[1] ?? "";

describe("connectSandbox()", () => {
  it("two handles side by side: each its own merchant, clock and webhooks; close() deletes each", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-connect-"));
    const scenarioFile = join(dir, "shop-a.yaml");
    writeFileSync(
      scenarioFile,
      "name: shop-a\nmerchants:\n  - { merchantKey: a_key, merchantSecret: a_secret, mid: a-mid, merchantId: 7001, accountId: 7002 }\n",
    );
    const [a, b] = await Promise.all([
      connectSandbox(server.url, {
        adminToken: TOKEN,
        name: "a.test.ts",
        scenario: scenarioFile,
        startTime: "2026-03-01T09:00:00Z",
      }),
      connectSandbox(server.url, {
        adminToken: TOKEN,
        name: "b.test.ts",
        startTime: new Date("2026-03-01T09:00:00Z"),
        ttl: "PT10M",
        scenario: {
          name: "shop-b",
          merchants: [{ merchantKey: "b_key", merchantSecret: "b_secret", mid: "b-mid", merchantId: 8001, accountId: 8002 }],
        },
      }),
    ]);
    try {
      expect(a.url).toMatch(/^http:\/\/localhost:\d+\/sandboxes\/sbx_\w{20}$/);
      expect(b.url).not.toBe(a.url);
      expect(a.merchant).toEqual({
        merchantKey: "a_key",
        merchantSecret: "a_secret",
        mid: "a-mid",
        merchantId: 7001,
        accountId: 7002,
      });
      expect(b.merchant.merchantKey).toBe("b_key");
      expect(a.clock.now()).toMatch(/^2026-03-01T09:00/);
      const listed = (await (await fetch(`${server.url}/_sandbox/sandboxes`, { headers: admin })).json()) as Array<{
        id: string;
        name: string;
        baseUrl: string;
      }>;
      expect(listed.map((s) => [s.name, s.baseUrl]).sort()).toEqual([
        ["a.test.ts", a.url],
        ["b.test.ts", b.url],
      ]);

      const [ra, rb] = await Promise.all([shop(a, "a"), shop(b, "b")]);
      // each moves its own clock: one month here, three there, at the same time
      const [ma, mb] = await Promise.all([a.clock.advance("P1M"), b.clock.advance({ to: new Date("2026-06-01T09:00:00Z") })]);
      expect(ma).toMatchObject({ now: expect.stringMatching(/^2026-04-01T09:00/), ran: { charges: 1 } });
      expect(mb).toMatchObject({ now: expect.stringMatching(/^2026-06-01T09:00/), ran: { charges: 3 } });
      expect(a.clock.now()).toMatch(/^2026-04-01T09:00/);
      expect(b.clock.now()).toMatch(/^2026-06-01T09:00/);

      // each receiver got its own webhooks only (advance answers once they were attempted)
      const charges = (s: TestSandbox) => s.webhooks.received.map((h) => h.body.chargeDate).filter(Boolean);
      expect(charges(a)).toEqual(["2026-04-01"]);
      expect(charges(b)).toEqual(["2026-04-01", "2026-05-01", "2026-06-01"]);
      // and the payment's and the subscription's first charge's
      expect(a.webhooks.received).toHaveLength(3);
      expect(b.webhooks.received).toHaveLength(5);
      // each its own coverage: the first charge and the scheduled ones it ran (docs/coverage.md)
      const charged = (r: Awaited<ReturnType<TestSandbox["coverage"]>>) =>
        r.behaviours.find((x) => x.id === "subscription.charge.succeed")?.count;
      const [ca, cb] = await Promise.all([a.coverage(), b.coverage()]);
      expect([charged(ca), charged(cb)]).toEqual([2, 4]);
      for (const [s, own, tag] of [
        [a, ra, "a"],
        [b, rb, "b"],
      ] as const) {
        for (const h of s.webhooks.received) {
          expect(h.path.endsWith(`/${tag}`)).toBe(true);
          const mine =
            h.body.subscriptionId === own.subscriptionId || [own.transactionId, own.firstChargeId].includes(h.body.transactionId);
          expect(mine, JSON.stringify(h.body)).toBe(true);
        }
      }
      // its token is its own: another sandbox refuses it
      const foreign = await fetch(`${b.url}/api/v1/payments/card/status/${ra.transactionId}`, {
        headers: { authorization: await a.auth() },
      });
      expect(foreign.status).toBe(401);

      // reset: its clock back, its receiver emptied, its scenario's merchant still there
      await a.reset({ startTime: "2027-01-01T00:00:00Z" });
      expect(a.clock.now()).toMatch(/^2027-01-01T00:00/);
      expect(a.webhooks.received).toHaveLength(0);
      expect(b.webhooks.received).toHaveLength(5);
      expect((await call(a, "GET", `/api/v1/payments/card/status/${ra.transactionId}`)).status).toBe(404);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    for (const s of [a, b]) {
      const gone = await fetch(`${server.url}/_sandbox/sandboxes/${sandboxIdOf(s)}`, { headers: admin });
      expect(gone.status).toBe(404);
    }
    await a.close(); // twice is fine
  });

  it("refuses clearly: no admin token, a bad option, a server without sandboxes, a missing scenario file", async () => {
    const saved = process.env.SANDBOX_ADMIN_TOKEN;
    delete process.env.SANDBOX_ADMIN_TOKEN;
    try {
      await expect(connectSandbox(server.url)).rejects.toThrow(
        /^connectSandbox: POST http:\/\/127\.0\.0\.1:\d+\/_sandbox\/sandboxes answered 401: Admin token required/,
      );
      process.env.SANDBOX_ADMIN_TOKEN = TOKEN; // the default adminToken
      await expect(connectSandbox(server.url, { ttl: "P30D" })).rejects.toThrow(/answered 400: Invalid field: ttl/);
      await expect(connectSandbox(`${server.url}/elsewhere`)).rejects.toThrow(
        /has no POST \/_sandbox\/sandboxes \(it answered 404\)/,
      );
      await expect(connectSandbox(server.url, { scenario: "/no/such/shop.yaml" })).rejects.toThrow(
        "connectSandbox: scenario: cannot read /no/such/shop.yaml: no such file",
      );
      await expect(connectSandbox("localhost:8080")).rejects.toThrow(/serverUrl: expected an http\(s\) URL/);
      // nothing was left behind by any of them
      expect(await (await fetch(`${server.url}/_sandbox/sandboxes`, { headers: admin })).json()).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.SANDBOX_ADMIN_TOKEN;
      else process.env.SANDBOX_ADMIN_TOKEN = saved;
    }
  });

  it("asks for a sandbox in memory unless told (docs/parallel-suites.md#storage); a server from before that choice gets its own default", async () => {
    const storageOf = async (sandbox: TestSandbox) =>
      (
        (await (await fetch(`${server.url}/_sandbox/sandboxes/${sandboxIdOf(sandbox)}`, { headers: admin })).json()) as {
          storage: string;
        }
      ).storage;
    const inMemory = await connectSandbox(server.url, { adminToken: TOKEN });
    const onFile = await connectSandbox(server.url, { adminToken: TOKEN, storage: "file" });
    const copy = await connectSandbox(server.url, { adminToken: TOKEN, from: onFile.id });
    try {
      expect(await storageOf(inMemory)).toBe("memory");
      expect(await storageOf(onFile)).toBe("file");
      expect(await storageOf(copy)).toBe("memory");
    } finally {
      await Promise.all([inMemory.close(), onFile.close(), copy.close()]);
    }

    // before it, the server refused the field (as paysandbox 0.1 answers it); everything else reaches the real one
    const bodies: string[] = [];
    const older = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        if (req.method === "POST" && req.url === "/_sandbox/sandboxes") bodies.push(body);
        if (req.method === "POST" && req.url === "/_sandbox/sandboxes" && body.includes('"storage"')) {
          res.writeHead(400, { "content-type": "application/json" });
          res.end('{"errorMessage":"Unknown field: storage","errors":[{"field":"storage","message":"unknown field"}]}');
          return;
        }
        const to = request(`${server.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        to.end(body);
      });
    });
    await new Promise<void>((resolve) => older.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(older.address() as AddressInfo).port}`;
      const sandbox = await connectSandbox(url, { adminToken: TOKEN, name: "older.test.ts" });
      await sandbox.close();
      expect(bodies.map((b) => JSON.parse(b))).toEqual([{ name: "older.test.ts", storage: "memory" }, { name: "older.test.ts" }]);
      // told which, it does not ask again: the server's refusal is the answer
      await expect(connectSandbox(url, { adminToken: TOKEN, storage: "memory" })).rejects.toThrow(
        /answered 400: Unknown field: storage/,
      );
    } finally {
      await new Promise<void>((resolve) => older.close(() => resolve()));
    }
  });
});
