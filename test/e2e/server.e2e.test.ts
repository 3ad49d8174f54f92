import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, type RunningServer, runCli, startServer, tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const json = async (url: string, init?: RequestInit) => {
  const res = await fetch(url, { ...init, headers: { "content-type": "application/json", ...init?.headers } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("the real server", () => {
  it("starts the README way, creates its database folder, serves health and auth", async () => {
    const dbPath = join(tempDbPath(), "nested", "sandbox.db");
    server = await startServer({ dbPath });
    expect(await json(`${server.url}/_sandbox/health`)).toEqual({ status: 200, body: { status: "ok" } });
    const auth = await json(`${server.url}/api/v1/auth`, {
      method: "POST",
      body: JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
    });
    expect(auth.status).toBe(200);
    expect(existsSync(dbPath)).toBe(true);
  });

  it("works on :memory:", async () => {
    server = await startServer({ dbPath: ":memory:" });
    expect((await json(`${server.url}/_sandbox/health`)).status).toBe(200);
  });

  it("keeps the virtual clock and state across a restart on the same database", async () => {
    const dbPath = tempDbPath();
    server = await startServer({ dbPath, args: ["--start-time", "2027-03-01T00:00:00Z"] });
    await json(`${server.url}/_sandbox/scenarios`, {
      method: "POST",
      body: JSON.stringify({
        name: "runtime",
        merchants: [{ merchantKey: "rt_key", merchantSecret: "rt_secret", mid: "rt-mid", merchantId: 9001, accountId: 9002 }],
      }),
    });
    const adv = await json(`${server.url}/_sandbox/clock/advance`, { method: "POST", body: JSON.stringify({ by: "P40D" }) });
    const advancedTo = Date.parse(adv.body.now as string);
    expect(advancedTo).toBeGreaterThanOrEqual(Date.parse("2027-04-10T00:00:00Z"));
    expect(await server.stop()).toBe(0);

    server = await startServer({ dbPath, args: ["--start-time", "2027-03-01T00:00:00Z"] });
    const clock = await json(`${server.url}/_sandbox/clock`);
    expect(Date.parse(clock.body.now as string)).toBeGreaterThanOrEqual(advancedTo);
    const auth = await json(`${server.url}/api/v1/auth`, {
      method: "POST",
      body: JSON.stringify({ merchantKey: "rt_key", merchantSecret: "rt_secret" }),
    });
    expect(auth.status).toBe(200);
  });

  it("loads scenario files given at start: scenarios/fx-refunds.yaml does what it says", async () => {
    server = await startServer({ env: { SANDBOX_SCENARIO: join(ROOT, "scenarios/fx-refunds.yaml") } });
    const auth = await json(`${server.url}/api/v1/auth`, {
      method: "POST",
      body: JSON.stringify({ merchantKey: "qa_key", merchantSecret: "qa_secret" }),
    });
    expect(auth.status).toBe(200);
    const pay = (over: Parameters<typeof cardPaymentBody>[0]) =>
      json(`${server!.url}/api/v1/payments/card`, {
        method: "POST",
        headers: { authorization: auth.body.token as string },
        body: JSON.stringify(cardPaymentBody({ mid: "qa-mid", amount: "20.00", currency: "USD", ...over })),
      });
    // USD order, EUR processing, USD 1.25 per EUR → 16.00 EUR
    const ok = await pay({});
    expect(ok.body.transactionStatus).toBe("SUCCEED");
    const info = await json(`${server.url}/api/v1/payments/card/info/${ok.body.transactionId}`, {
      headers: { authorization: auth.body.token as string },
    });
    expect(info.body).toMatchObject({
      orderAmount: 20,
      orderCurrency: "USD",
      processedAmount: 16,
      processedCurrency: "EUR",
      conversionRate: 0.8,
    });
    // the scenario's card and amount rule
    expect((await pay({ card: { number: "4242424242424242" } })).body).toMatchObject({
      transactionStatus: "FAILED",
      declineCode: 5,
    });
    expect((await pay({ amount: "13.37" })).body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });
  });

  it("closes within 2 s of SIGTERM and of SIGINT", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      server = await startServer();
      const t0 = performance.now();
      expect(await server.stop(signal)).toBe(0);
      expect(performance.now() - t0).toBeLessThan(2000);
      server = undefined;
    }
  });

  it("protects the control plane with the admin token setting", async () => {
    server = await startServer({ env: { SANDBOX_ADMIN_TOKEN: "t0ken" } });
    expect((await json(`${server.url}/_sandbox/clock`)).status).toBe(401);
    expect((await json(`${server.url}/_sandbox/clock`, { headers: { authorization: "Bearer t0ken" } })).status).toBe(200);
  });
});

describe("start-up failures", () => {
  it.each([
    [["start", "--port", "nope"], {}, /--port/],
    [["start"], { SANDBOX_TIME_SCALE: "fast" }, /SANDBOX_TIME_SCALE/],
    [["start"], { SANDBOX_START_TIME: "tomorrow" }, /SANDBOX_START_TIME/],
    [["start", "--scenario", "/no/such/file.yaml"], {}, /Cannot read scenario file/],
  ])("%j %j exits non-zero naming the problem", async (args, env, message) => {
    const { code, output } = await runCli([...args, "--db", ":memory:"], env);
    expect(code).not.toBe(0);
    expect(output).toMatch(message);
  });

  it("a bad scenario file names the path of the bad key and loads nothing", async () => {
    const file = join(tempDbPath(), "..", "bad.yaml");
    writeFileSync(
      file,
      [
        "name: bad",
        "merchants:",
        "  - { merchantKey: good_key, merchantSecret: s, mid: good, merchantId: 71, accountId: 72 }",
        "  - { merchantKey: k, merchantSecret: s, mid: m, merchantId: x, accountId: 1 }",
      ].join("\n"),
    );
    const dbPath = tempDbPath();
    const { code, output } = await runCli(["start", "--db", dbPath, "--port", "0", "--scenario", file]);
    expect(code).toBe(2);
    expect(output).toMatch(/merchants\.1\.merchantId/);
    server = await startServer({ dbPath });
    const auth = await json(`${server.url}/api/v1/auth`, {
      method: "POST",
      body: JSON.stringify({ merchantKey: "good_key", merchantSecret: "s" }),
    });
    expect(auth.status).toBe(401);
  });
});
