/**
 * docs/parallel-suites.md: sandboxes side by side in one server, each a whole sandbox under its base URL with
 * its own clock, merchants, transactions, scheduler and webhook journal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { closedPortUrl, startSwitchServer } from "../unit/webhooks.support.js";
import { CARDS, cardPaymentBody } from "./payments.body.js";
import { subscriptionBody, tokenizeBody } from "./subscriptions.support.js";

let s: TestServer;
let receiver: Receiver | undefined;
afterEach(async () => {
  await s?.close();
  await receiver?.close();
  receiver = undefined;
});

describe("POST/GET/DELETE /_sandbox/sandboxes", () => {
  it("creates a sandbox with its base URL, the built-in merchant, its clock and its expiry", async () => {
    s = makeServer();
    const res = await s.http.post("/_sandbox/sandboxes").send({ name: "checkout.test.ts", startTime: "2027-03-01T00:00:00Z" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^sbx_[0-9A-Za-z]{20}$/),
      name: "checkout.test.ts",
      now: "2027-03-01T00:00:00.000Z",
      createdAt: new Date(s.wall.now()).toISOString(),
      expiresAt: new Date(s.wall.now() + 3_600_000).toISOString(),
      // a :memory: server keeps every sandbox in memory (docs/parallel-suites.md#storage)
      storage: "memory",
      merchant: {
        merchantKey: "sandbox_merchant_key",
        merchantSecret: "sandbox_merchant_secret",
        mid: "sandbox-mid-001",
        merchantId: 1001,
        accountId: 2001,
      },
    });
    expect(res.body.baseUrl).toBe(`http://sandbox.test/sandboxes/${res.body.id}`);

    const list = await s.http.get("/_sandbox/sandboxes");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: res.body.id,
        name: "checkout.test.ts",
        baseUrl: res.body.baseUrl,
        now: "2027-03-01T00:00:00.000Z",
        createdAt: res.body.createdAt,
        lastUsedAt: res.body.createdAt,
        expiresAt: res.body.expiresAt,
        storage: "memory",
      },
    ]);
    expect((await s.http.get(`/_sandbox/sandboxes/${res.body.id}`)).body).toEqual(list.body[0]);

    const del = await s.http.delete(`/_sandbox/sandboxes/${res.body.id}`);
    expect(del.status).toBe(204);
    expect((await s.http.get("/_sandbox/sandboxes")).body).toEqual([]);
    const gone = await s.http.get(`/sandboxes/${res.body.id}/_sandbox/clock`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ errorMessage: `Sandbox not found: ${res.body.id}` });
  });

  it("starts at the root's now without a startTime, and its clock runs at the server's scale", async () => {
    s = makeServer();
    const sb = await s.create();
    expect(sb.now).toBe(s.server.root.clock.now().toISOString());
    s.wall.advance(90_000);
    const clock = await s.http.get(`${sb.base}/_sandbox/clock`);
    expect(clock.body).toEqual({ now: new Date(s.server.root.clock.nowMs() + 90_000).toISOString(), scale: 1 });
  });

  it("serves the whole sandbox under its base URL: health, auth, a payment, its status, the dashboard", async () => {
    s = makeServer();
    const sb = await s.create();
    expect((await s.http.get(`${sb.base}/_sandbox/health`)).body).toEqual({ status: "ok" });
    const token = await s.token(sb.base);
    const pay = await s.http.post(`${sb.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
    expect(pay.status).toBe(200);
    expect(pay.body.transactionStatus).toBe("SUCCEED");
    const status = await s.http.get(`${sb.base}/v1/payments/card/status/${pay.body.transactionId}`).set("authorization", token);
    expect(status.status).toBe(200);
    // the dashboard's links carry the base
    const page = await s.http.get(`${sb.base}/`).set("accept", "text/html");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="${sb.base}/dashboard/transactions/${pay.body.transactionId}"`);
    expect(page.text).not.toMatch(/href="\/dashboard/);
  });

  it("hands out 3DS challenge URLs under its base URL, and the page posts back under it", async () => {
    s = makeServer();
    const sb = await s.create();
    const token = await s.token(sb.base);
    const body = cardPaymentBody({ card: { number: CARDS.threeDs } });
    const pay = await s.http
      .post(`${sb.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send({ ...body, threeDSecure: true });
    expect(pay.status).toBe(200);
    const url = pay.body.redirectUrl ?? pay.body.threeDSRedirectUrl ?? pay.body.challengeUrl;
    expect(String(url ?? JSON.stringify(pay.body))).toContain(`${sb.baseUrl}/sandbox/3ds/`);
    const page = await s.http.get(new URL(url).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="${sb.base}/sandbox/3ds/`);
  });

  it("loads its scenario (JSON or YAML text) and answers the scenario's first merchant", async () => {
    s = makeServer();
    const yaml = [
      "name: qa",
      "merchants:",
      "  - { merchantKey: qa_key, merchantSecret: qa_secret, mid: qa-mid, merchantId: 5001, accountId: 6001 }",
      "rules:",
      '  - { amount: "13.37", status: FAILED, declineCode: 5 }',
      "steps:",
      "  - advance: P1D",
    ].join("\n");
    const res = await s.http.post("/_sandbox/sandboxes").send({ scenario: yaml });
    expect(res.status).toBe(201);
    expect(res.body.merchant).toEqual({
      merchantKey: "qa_key",
      merchantSecret: "qa_secret",
      mid: "qa-mid",
      merchantId: 5001,
      accountId: 6001,
    });
    const base = new URL(res.body.baseUrl).pathname;
    const scenarios = await s.http.get(`${base}/_sandbox/scenarios`);
    expect(scenarios.body.map((x: { name: string }) => x.name)).toEqual(["qa"]);
    // the root does not have it
    expect((await s.http.get("/_sandbox/scenarios")).body).toEqual([]);
    const token = await s.token(base, "qa_key", "qa_secret");
    const declined = await s.http
      .post(`${base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ mid: "qa-mid", amount: "13.37" }));
    expect(declined.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5 });
    // the stored document holds no steps; reset reloads the scenario
    expect(JSON.stringify(s.server.sandboxes.list())).not.toContain("steps");
    const reset = await s.http.post(`${base}/_sandbox/reset`).send({});
    expect(reset.status).toBe(200);
    expect(await s.token(base, "qa_key", "qa_secret")).toMatch(/^Bearer /);
  });

  it("is renewed by every request and deleted by itself after its TTL of real time", async () => {
    s = makeServer();
    const sb = await s.create({ ttl: "PT10M" });
    s.wall.advance(9 * 60_000);
    expect((await s.http.get(`${sb.base}/_sandbox/clock`)).status).toBe(200);
    s.wall.advance(9 * 60_000);
    await s.server.tick();
    expect((await s.http.get(`/_sandbox/sandboxes/${sb.id}`)).status).toBe(200);
    s.wall.advance(60_001);
    await s.server.tick();
    expect((await s.http.get(`/_sandbox/sandboxes/${sb.id}`)).status).toBe(404);
    expect((await s.http.get(`${sb.base}/_sandbox/clock`)).body).toEqual({ errorMessage: `Sandbox not found: ${sb.id}` });
  });

  it("is closed when idle and opened again on use, with its data and its clock", async () => {
    s = makeServer({ idleMs: 1_000, maxOpen: 2 });
    const a = await s.create({ startTime: "2027-01-01T00:00:00Z" });
    const token = await s.token(a.base);
    const pay = await s.http.post(`${a.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
    // each opened by its first request (a create opens nothing)
    for (let i = 0; i < 3; i++) expect((await s.http.get(`${(await s.create()).base}/_sandbox/clock`)).status).toBe(200);
    // the least recently used beyond maxOpen are closed by the next tick
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBe(2);
    s.wall.advance(5_000);
    await s.server.tick();
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBe(0);
    const status = await s.http
      .get(`${a.base}/api/v1/payments/card/status/${pay.body.transactionId}`)
      .set("authorization", token);
    expect(status.status).toBe(200);
    expect(status.body.transactionStatus).toBe("SUCCEED");
    expect((await s.http.get(`${a.base}/_sandbox/clock`)).body.now).toBe(new Date(Date.UTC(2027, 0, 1) + 5_000).toISOString());
  });

  it("lists the sandboxes on the root's dashboard with links to theirs", async () => {
    s = makeServer();
    const sb = await s.create({ name: "orders suite" });
    const page = await s.http.get("/").set("accept", "text/html");
    expect(page.status).toBe(200);
    expect(page.text).toContain("orders suite");
    expect(page.text).toContain(`href="/sandboxes/${sb.id}/"`);
  });
});

describe("two sandboxes advancing at once", () => {
  it("each charges its own subscriptions and sends only its own webhooks", async () => {
    s = makeServer();
    receiver = await startReceiver();
    const a = await s.create({ startTime: "2026-01-15T12:00:00Z" });
    const b = await s.create({ startTime: "2026-01-15T12:00:00Z" });
    const subscribe = async (base: string, path: string) => {
      const token = await s.token(base);
      const tok = await s.http.post(`${base}/api/v1/payments/card/tokenize`).set("authorization", token).send(tokenizeBody());
      expect(tok.status).toBe(200);
      const sub = await s.http
        .post(`${base}/api/v1/payments/card/recurring`)
        .set("authorization", token)
        .send(subscriptionBody(tok.body.token, `${receiver?.url}${path}`));
      expect(sub.status).toBe(200);
      return sub.body.subscriptionId as string;
    };
    const subA = await subscribe(a.base, "/a");
    const subB = await subscribe(b.base, "/b");
    const [ra, rb] = await Promise.all([
      s.http.post(`${a.base}/_sandbox/clock/advance`).send({ by: "P3M" }),
      s.http.post(`${b.base}/_sandbox/clock/advance`).send({ by: "P12M" }),
    ]);
    expect(ra.body.ran.charges).toBe(3);
    expect(rb.body.ran.charges).toBe(12);
    expect(ra.body.now).toMatch(/^2026-04-15/);
    expect(rb.body.now).toMatch(/^2027-01-15/);
    // the root's clock did not move
    expect(s.server.root.clock.now().toISOString()).toBe("2026-01-15T12:00:00.000Z");
    const hooks = (path: string) =>
      receiver?.received.filter((h) => h.path === path).map((h) => h.body as Record<string, unknown>) ?? [];
    const subscriptionIds = (path: string) =>
      new Set(
        hooks(path)
          .map((b) => b.subscriptionId)
          .filter(Boolean),
      );
    expect(subscriptionIds("/a")).toEqual(new Set([subA]));
    expect(subscriptionIds("/b")).toEqual(new Set([subB]));
    // each journal holds only its own deliveries
    const journal = async (base: string) =>
      (await s.http.get(`${base}/_sandbox/webhooks?limit=100`)).body as Array<{ url: string }>;
    const paths = async (base: string) => new Set((await journal(base)).map((d) => new URL(d.url).pathname));
    expect(await paths(a.base)).toEqual(new Set(["/a"]));
    expect(await paths(b.base)).toEqual(new Set(["/b"]));
    expect(await journal("")).toEqual([]);
  });
});

describe("fairness", () => {
  it("a sandbox whose receiver never answers, in a long advance, stalls neither another's requests nor its webhooks", async () => {
    s = makeServer({ webhooks: { timeoutMs: 1_500 } });
    receiver = await startReceiver();
    const silent = await startSwitchServer();
    silent.mode = "hang";
    try {
      const a = await s.create();
      const b = await s.create();
      const tokenA = await s.token(a.base);
      const tokenB = await s.token(b.base);
      // A: a payment whose webhook hangs, then an advance that must wait for that attempt to end
      await s.http
        .post(`${a.base}/api/v1/payments/card`)
        .set("authorization", tokenA)
        .send(cardPaymentBody({ callbackUrl: `${silent.url}/a` }));
      await silent.waitFor(1);
      let advancedA = false;
      const advanceA = s.http
        .post(`${a.base}/_sandbox/clock/advance`)
        .send({ by: "P1Y" })
        .then((r) => {
          advancedA = true;
          return r;
        });
      // B meanwhile: payments answered, their webhooks delivered, its own advance done, all before A's advance ends
      for (let i = 0; i < 5; i++) {
        const pay = await s.http
          .post(`${b.base}/api/v1/payments/card`)
          .set("authorization", tokenB)
          .send(cardPaymentBody({ callbackUrl: `${receiver.url}/b` }));
        expect(pay.status).toBe(200);
      }
      await receiver.waitFor(5);
      expect((await s.http.post(`${b.base}/_sandbox/clock/advance`).send({ by: "P1M" })).status).toBe(200);
      expect(advancedA).toBe(false);
      silent.dropHanging();
      expect((await advanceA).status).toBe(200);
    } finally {
      await silent.close();
    }
  });
});

describe("a closed sandbox's time keeps running", () => {
  it("is opened by the tick when its work falls due (a webhook retry) and runs it", async () => {
    s = makeServer({ idleMs: 1_000 });
    const a = await s.create({ startTime: "2027-01-01T00:00:00Z" });
    const token = await s.token(a.base);
    const dead = await closedPortUrl();
    const pay = await s.http
      .post(`${a.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ callbackUrl: `${dead}/cb` }));
    const attempts = async () => {
      const j = await s.http.get(`${a.base}/_sandbox/webhooks?transactionId=${pay.body.transactionId}`);
      return (j.body as Array<{ attempts: unknown[] }>)[0]?.attempts.length ?? 0;
    };
    // the first attempt fails at once (nothing listens); the retry is due 2 virtual minutes later
    for (let i = 0; i < 50 && (await attempts()) < 1; i++) await s.server.sandboxes.tick();
    expect(await attempts()).toBe(1);
    s.wall.advance(5_000);
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBe(0);
    // at scale 1, three real minutes later the retry is due: the tick opens the sandbox to send it
    s.wall.advance(180_000);
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBe(1);
    const sandbox = s.server.sandboxes;
    for (let i = 0; i < 50 && (await attempts()) < 2; i++) await sandbox.tick();
    expect(await attempts()).toBe(2);
  });
});
