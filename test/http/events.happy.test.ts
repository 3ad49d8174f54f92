/**
 * docs/events.md: `GET /_sandbox/events`, its event types and their fields, ids that only grow, resume
 * with `?since=` and `Last-Event-ID`, the filters, the retention's 410, keep-alives, the admin
 * token, and each sandbox's own stream.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, makeServer, type TestSandbox, type TestServer } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { dataOf, type Listener, listen } from "../helpers/sse.js";
import { CARDS, cardPaymentBody } from "./payments.body.js";

let s: TestSandbox;
let receiver: Receiver;
const open: Listener[] = [];

beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
  await s?.close();
  await receiver.close();
});

async function stream(query = "", headers: Record<string, string> = {}, sandbox = s): Promise<Listener> {
  const l = await listen((req) => sandbox.app.fetch(req), `http://sandbox.test/_sandbox/events${query}`, headers);
  open.push(l);
  return l;
}

async function pay(token: string, over: Record<string, unknown> = {}): Promise<string> {
  const res = await s.http.post("/api/v1/payments/card").set("Authorization", token).send(cardPaymentBody(over));
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

describe("GET /_sandbox/events", () => {
  it("sends every kind of event with its fields, ids growing, as they happen", async () => {
    s = makeSandbox();
    const token = await s.token();
    const l = await stream();
    expect(l.status).toBe(200);

    const tx = await pay(token, { callbackUrl: `${receiver.url}/hook` });
    await receiver.waitFor(1);
    await s.ctx.work.runUntil(); // the attempt's answer is recorded
    const threeDs = await pay(token, { card: { number: CARDS.threeDs } });
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT31M" }).expect(200); // the challenge times out
    await s.http
      .post("/_sandbox/scenarios")
      .send({ name: "events-demo", rules: [{ amount: "13.37", status: "FAILED", declineCode: 5 }] })
      .expect(200);
    await s.http.post("/_sandbox/reset").send({ startTime: "2026-03-01T00:00:00Z" }).expect(200);

    const events = await l.waitFor(8);
    expect(events.map((e) => e.event)).toEqual([
      "transaction",
      "webhook",
      "transaction",
      "transaction",
      "clock",
      "scenario",
      "reset",
      "clock",
    ]);
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const [created, hook, challenge, timedOut, clock, scenario, reset, back] = dataOf(events);
    expect(created).toEqual({
      transactionId: tx,
      kind: "card_payment",
      merchant: "sandbox-mid-001",
      status: "SUCCEED",
      declineCode: null,
      at: "2026-01-15T12:00:00.000Z",
    });
    expect(hook).toMatchObject({
      transactionId: tx,
      url: `${receiver.url}/hook?paymentMethod=card`,
      attempt: 1,
      httpStatus: 200,
    });
    expect(hook?.deliveryId).toMatch(/^wh_/);
    expect(hook).not.toHaveProperty("error");
    expect(hook).not.toHaveProperty("chaos");
    expect(challenge).toMatchObject({ transactionId: threeDs, status: "CUSTOMER_VERIFICATION", declineCode: null });
    expect(timedOut).toMatchObject({ transactionId: threeDs, status: "FAILED", declineCode: 4, at: "2026-01-15T12:30:00.000Z" });
    expect(clock).toEqual({ from: "2026-01-15T12:00:00.000Z", now: "2026-01-15T12:31:00.000Z" });
    expect(scenario).toEqual({ name: "events-demo" });
    expect(reset).toEqual({});
    expect(back).toEqual({ from: "2026-01-15T12:31:00.000Z", now: "2026-03-01T00:00:00.000Z" });
    expect(events.every((e) => e.data.indexOf(CARDS.visa) === -1 && !e.data.includes("sandbox_merchant_secret"))).toBe(true);

    // ids go on growing after the reset: the log is kept, and with it its sequence
    await pay(await s.token());
    const after = await l.waitFor(9);
    expect(Number(after[8]?.id)).toBeGreaterThan(Number(after[7]?.id));
  });

  it("writes each event's JSON as the page shows it: keys in order, milliseconds kept, a callbackUrl's userinfo masked", async () => {
    s = makeSandbox();
    const token = await s.token();
    s.clock.advance(1_234); // a time with milliseconds
    const l = await stream();
    const hook = receiver.url.replace("http://", "http://user:secret@");
    const tx = await pay(token, { callbackUrl: `${hook}/hook` });
    await receiver.waitFor(1);
    await s.ctx.work.runUntil();
    const [created, attempt] = await l.waitFor(2);
    // the storage layer writes them with the changes (transactions.repo.ts, migration 0009): the text itself is the contract
    expect(created?.data).toBe(
      `{"transactionId":"${tx}","kind":"card_payment","merchant":"sandbox-mid-001","status":"SUCCEED","declineCode":null,"at":"2026-01-15T12:00:01.234Z"}`,
    );
    expect(attempt?.data).toMatch(
      new RegExp(
        `^\\{"deliveryId":"wh_[^"]+","transactionId":"${tx}","url":"http://\\*\\*\\*@127\\.0\\.0\\.1:\\d+/hook\\?paymentMethod=card","attempt":1,"httpStatus":200,"at":"2026-01-15T12:00:01\\.234Z"\\}$`,
      ),
    );
    expect(attempt?.data).not.toContain("secret");
    // a declined payment's code is a JSON integer too
    const declined = await pay(token, { card: { number: CARDS.declined } });
    const [, , refused] = await l.waitFor(3);
    expect(refused?.data).toMatch(new RegExp(`^\\{"transactionId":"${declined}",.*"status":"FAILED","declineCode":\\d+,"at"`));
  });

  it("says why a webhook attempt failed, and the chaos it carried", async () => {
    s = makeSandbox({ config: {} });
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "chaotic",
        merchants: [
          {
            merchantKey: "ck",
            merchantSecret: "cs",
            mid: "chaos-mid",
            merchantId: 7001,
            accountId: 8001,
            webhookChaos: { badSignature: 1 },
          },
        ],
      })
      .expect(200);
    const token = await s.token("ck", "cs");
    const l = await stream("?types=webhook");
    receiver.respondWith(500);
    const tx = await pay(token, { mid: "chaos-mid", callbackUrl: `${receiver.url}/hook` });
    await receiver.waitFor(1);
    await s.ctx.work.runUntil();
    const [e] = dataOf(await l.waitFor(1));
    expect(e).toMatchObject({ transactionId: tx, attempt: 1, httpStatus: 500, chaos: "badSignature" });

    // an unreachable receiver: no status, an error
    const closed = await startReceiver();
    const deadUrl = closed.url;
    await closed.close();
    const tx2 = await pay(token, { mid: "chaos-mid", callbackUrl: `${deadUrl}/hook` });
    await s.ctx.work.runUntil();
    const events = dataOf(await l.waitFor(2));
    const dead = events.find((d) => d.transactionId === tx2);
    expect(dead).toMatchObject({ attempt: 1 });
    expect(dead).not.toHaveProperty("httpStatus");
    expect(typeof dead?.error).toBe("string");
  });

  it("resumes after ?since= or Last-Event-ID (the header wins), and filters by type, transaction and merchant", async () => {
    s = makeSandbox();
    const token = await s.token();
    await s.http
      .post("/_sandbox/scenarios")
      .send({
        name: "two",
        merchants: [{ merchantKey: "k2", merchantSecret: "s2", mid: "mid-2", merchantId: 7002, accountId: 8002 }],
      })
      .expect(200);
    const token2 = await s.token("k2", "s2");
    const a = await pay(token);
    const b = await pay(token2, { mid: "mid-2" });
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);

    const all = await stream("?since=0");
    const events = await all.waitFor(4);
    expect(events.map((e) => e.event)).toEqual(["scenario", "transaction", "transaction", "clock"]);
    const [first, second] = events.map((e) => e.id);

    const resumed = await stream(`?since=${first}`);
    expect((await resumed.waitFor(3)).map((e) => e.id)).toEqual(events.slice(1).map((e) => e.id));
    const header = await stream("?since=0", { "Last-Event-ID": String(second) });
    expect((await header.waitFor(2)).map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id));

    const byType = await stream("?since=0&types=clock,scenario");
    expect((await byType.waitFor(2)).map((e) => e.event)).toEqual(["scenario", "clock"]);
    const byTx = await stream(`?since=0&transactionId=${b}`);
    expect(dataOf(await byTx.waitFor(1))).toMatchObject([{ transactionId: b, merchant: "mid-2" }]);
    const byMerchant = await stream("?since=0&merchant=sandbox-mid-001");
    expect(dataOf(await byMerchant.waitFor(1))).toMatchObject([{ transactionId: a }]);

    // new events reach only the listeners whose filters they pass
    const c = await pay(token2, { mid: "mid-2" });
    await all.waitFor(5);
    await byMerchant.close();
    await pay(token);
    await all.waitFor(6);
    await byTx.close();
    expect(byType.events).toHaveLength(2);
    expect(dataOf(all.events.slice(4, 5))).toMatchObject([{ transactionId: c }]);

    // without since: only what comes next
    const fresh = await stream();
    await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);
    expect((await fresh.waitFor(1)).map((e) => e.event)).toEqual(["clock"]);
  });

  it("answers 410 with the oldest id kept when since is older than the retention, 400 for a bad since or type", async () => {
    s = makeSandbox({ config: { eventsKeep: 3 } });
    for (let i = 0; i < 6; i++) await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);
    await new Promise((resolve) => setImmediate(resolve));
    s.ctx.events.pruneNow();
    const newest = s.ctx.events.newest;
    expect(newest).toBe(6);

    const gone = await stream("?since=2");
    expect(gone.status).toBe(410);
    expect(gone.body).toEqual({ errorMessage: expect.stringContaining("oldest kept is 4"), oldestId: 4 });
    expect((await stream("", { "Last-Event-ID": "0" })).status).toBe(410);
    const kept = await stream("?since=3");
    expect((await kept.waitFor(3)).map((e) => e.id)).toEqual(["4", "5", "6"]);

    const ahead = await stream("?since=99");
    expect(ahead.status).toBe(400);
    expect(ahead.body).toMatchObject({ errorMessage: "Invalid field: since" });
    expect((await stream("?types=transaction,bogus")).status).toBe(400);
    expect((await stream("?since=-1")).status).toBe(400);
    expect((await stream("", { "Last-Event-ID": "x" })).status).toBe(400);
  });

  it("keeps ids growing past the retention and a reset with no sequence row: a payment's commit leaves sqlite_sequence alone", async () => {
    s = makeSandbox({ config: { eventsKeep: 1 } });
    const sequences = s.ctx.db.$client.prepare("SELECT name FROM sqlite_sequence ORDER BY name").pluck();
    let last = 0;
    for (let round = 0; round < 3; round++) {
      await pay(await s.token(), { callbackUrl: `${receiver.url}/hook` });
      await receiver.waitFor(round + 1);
      await s.ctx.work.runUntil(); // the attempt's answer is recorded, with its event
      await new Promise((resolve) => setImmediate(resolve));
      s.ctx.events.pruneNow(); // down to the newest event alone
      expect(s.ctx.events.newest).toBeGreaterThan(last);
      last = s.ctx.events.newest;
      await s.http.post("/_sandbox/reset").expect(200); // empties every table but the events
    }
    // events, recorded calls and attempts take the largest rowid + 1 (migration 0011): only the
    // deliveries' seq, which must never go back across a reset, keeps a sequence row
    expect(sequences.all()).toEqual(["webhook_deliveries"]);
    const l = await stream(`?since=${last}`);
    await pay(await s.token());
    const [next] = await l.waitFor(1);
    expect(Number(next?.id)).toBe(last + 1);
  });

  it("ends a listener the retention passed, so that its reconnect learns it (410)", async () => {
    s = makeSandbox({ config: { eventsKeep: 2 } });
    // a client that does not read: the stream stops at the first writes that find no room
    const res = await s.app.fetch(new Request("http://sandbox.test/_sandbox/events?since=0"));
    for (let i = 0; i < 8; i++) await s.http.post("/_sandbox/clock/advance").send({ by: "PT1M" }).expect(200);
    await new Promise((resolve) => setImmediate(resolve));
    s.ctx.events.pruneNow();
    // it reads now: what was already written, then the end (its next event was pruned)
    const text = await res.text();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.length).toBeLessThan(8);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const again = await stream("", { "Last-Event-ID": String(ids.at(-1) ?? 0) });
    expect(again.status).toBe(410);
    expect(again.body).toMatchObject({ oldestId: 7 });
    expect(s.ctx.events.listening).toBe(0);
  });

  it("sends a keep-alive comment when nothing happens", async () => {
    s = makeSandbox();
    await s.close();
    const { createContext } = await import("../../src/context.js");
    const { createApp } = await import("../../src/app.js");
    const { defaultConfig } = await import("../../src/config.js");
    const { ManualClock } = await import("../../src/platform/clock.js");
    const ctx = createContext({ config: defaultConfig(), clock: new ManualClock(0), events: { keepAliveMs: 20 } });
    const app = createApp(ctx);
    const l = await listen((req) => app.fetch(req), "http://sandbox.test/_sandbox/events");
    open.push(l);
    const started = performance.now();
    while (l.comments.length < 2 && performance.now() - started < 5_000) await new Promise((r) => setTimeout(r, 10));
    expect(l.comments.slice(0, 2)).toEqual(["keep-alive", "keep-alive"]);
    expect(l.events).toHaveLength(0);
    await l.close();
    expect(ctx.events.listening).toBe(0);
    ctx.db.$client.close();
  });

  it("needs the admin token when it is set; the dashboard's copy needs its session", async () => {
    s = makeSandbox({ config: { adminToken: "sekret" } });
    expect((await stream()).status).toBe(401);
    expect((await stream("", { Authorization: "Bearer sekret" })).status).toBe(200);

    const page = async (headers: Record<string, string>) => {
      const l = await listen((req) => s.app.fetch(req), "http://sandbox.test/dashboard/events?since=0&types=clock", headers);
      open.push(l);
      return l;
    };
    expect((await page({})).status).toBe(303);
    const login = await s.http
      .post("/dashboard/login")
      .set("origin", "http://sandbox.test")
      .type("form")
      .send({ token: "sekret", next: "/" });
    const cookie = String(login.headers["set-cookie"]).split(";")[0] as string;
    const live = await page({ cookie });
    expect(live.status).toBe(200);
    await s.http.post("/_sandbox/clock/advance").set("Authorization", "Bearer sekret").send({ by: "PT1M" }).expect(200);
    expect((await live.waitFor(1)).map((e) => e.event)).toEqual(["clock"]);
  });
});

describe("each sandbox's stream", () => {
  let server: TestServer;
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
    await server?.close();
  });

  it("has its own events only, and its own ids", async () => {
    server = makeServer();
    const one = await server.create({ name: "one" });
    const two = await server.create({ name: "two" });
    const fetcher = (req: Request) => server.server.fetch(req);
    const on = async (base: string) => {
      const l = await listen(fetcher, `http://sandbox.test${base}/_sandbox/events?since=0`);
      open.push(l);
      return l;
    };
    const [root, l1, l2] = [await on(""), await on(one.base), await on(two.base)];
    const t1 = await server.token(one.base);
    const res = await server.http.post(`${one.base}/api/v1/payments/card`).set("Authorization", t1).send(cardPaymentBody());
    expect(res.status).toBe(200);
    await server.http.post(`${two.base}/_sandbox/clock/advance`).send({ by: "P1D" }).expect(200);
    await server.http.post("/_sandbox/clock/advance").send({ by: "PT1H" }).expect(200);

    expect(dataOf(await l1.waitFor(1))).toMatchObject([{ transactionId: res.body.transactionId }]);
    expect((await l2.waitFor(1)).map((e) => [e.id, e.event])).toEqual([["1", "clock"]]);
    expect((await root.waitFor(1)).map((e) => e.event)).toEqual(["clock"]);
    expect(dataOf(root.events)[0]).toMatchObject({ from: "2026-01-15T12:00:00.000Z", now: "2026-01-15T13:00:00.000Z" });
    expect(l1.events).toHaveLength(1);
    expect(l2.events).toHaveLength(1);
  });
});

describe("the OpenAPI document", () => {
  it("documents the stream as text/event-stream, with its 410", async () => {
    s = makeSandbox();
    const doc = (await s.http.get("/openapi.json").expect(200)).body;
    const op = doc.paths["/_sandbox/events"].get;
    expect(Object.keys(op.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(op.responses["410"].content["application/json"]).toBeDefined();
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual([
      "since",
      "types",
      "transactionId",
      "merchant",
      "last-event-id",
    ]);
  });
});
