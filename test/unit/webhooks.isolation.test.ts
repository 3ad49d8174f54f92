/**
 * A silent receiver delays only its own deliveries. Nothing here sleeps: the
 * silent server never answers (the timeout is a minute), so a normal delivery that arrives at all
 * while the silent ones are still on the wire proves it did not wait for them.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { inTransaction } from "../../src/db/client.js";
import { INTERRUPTED_ERROR } from "../../src/webhooks/retries.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { enqueueCard, makeCtx, startSilentServer, type TestCtx } from "./webhooks.support.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Yields to the event loop (no timer) until `cond` holds: results are recorded in the turn after they arrive. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !cond(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(cond()).toBe(true);
}

async function setup(concurrency = 4, logger?: pino.Logger) {
  const t: TestCtx = makeCtx({ webhooks: { timeoutMs: 60_000, concurrency, ...(logger ? { logger } : {}) } });
  cleanup.push(() => t.close());
  const receiver: Receiver = await startReceiver();
  cleanup.push(() => receiver.close());
  const silent = await startSilentServer();
  cleanup.push(() => silent.close()); // closed first: drops the hung requests
  return { t, receiver, silent };
}

describe("webhook dispatcher: one receiver cannot hold up another", () => {
  it("a webhook due while another receiver's requests hang leaves at once, and so does the one ordered behind it", async () => {
    const { t, receiver, silent } = await setup();
    for (let i = 0; i < 3; i++) enqueueCard(t.ctx, `${silent.url}/hang`, `tx_silent_${i}`);
    t.ctx.work.poke();
    await silent.waitForHits(3);

    // due later, while the first three are still on the wire
    const id = enqueueCard(t.ctx, receiver.url, "tx_normal", "PROCESSING");
    const id2 = enqueueCard(t.ctx, receiver.url, "tx_normal", "SUCCEED"); // ordered behind it
    t.ctx.work.poke();
    await receiver.waitFor(2);
    await until(() => t.ctx.journal.get(id2).status === "delivered");

    expect(receiver.received.map((h) => (h.body as { transactionStatus: string }).transactionStatus)).toEqual([
      "PROCESSING",
      "SUCCEED",
    ]);
    expect(t.ctx.webhooks.inFlight).toBe(3);
    expect(t.ctx.journal.get(id)).toMatchObject({ status: "delivered" });
    // the hung ones have no recorded attempt yet: nothing waited for them
    const hung = t.ctx.journal.list({ limit: 10 }).filter((e) => e.url.startsWith(silent.url));
    expect(hung.map((e) => e.attempts.length)).toEqual([0, 0, 0]);
  });

  it("a destination gets at most `concurrency` requests at once; the rest wait their turn without blocking others", async () => {
    const { t, receiver, silent } = await setup(4);
    for (let i = 0; i < 10; i++) enqueueCard(t.ctx, silent.url, `tx_s${i}`);
    enqueueCard(t.ctx, receiver.url, "tx_n");
    t.ctx.work.poke();
    await receiver.waitFor(1);
    await silent.waitForHits(4);
    // the normal one's answer comes back from the sender thread, then only the 4 hung ones are on the wire
    await until(() => t.ctx.webhooks.inFlight === 4);
    // let any extra request show up if the limit were not kept
    await new Promise((resolve) => setImmediate(resolve));
    expect(silent.hits()).toBe(4);
    expect(t.ctx.webhooks.inFlight).toBe(4);
    const waiting = t.ctx.journal.list({ status: "pending", limit: 20 });
    expect(waiting).toHaveLength(10);
    expect(waiting.filter((e) => e.attempts.length === 0 && e.nextAttemptAt === null)).toHaveLength(10);
  });

  it("the parked ones go out as the hung ones end, each attempt numbered once", async () => {
    const { t, silent } = await setup(2);
    for (let i = 0; i < 5; i++) enqueueCard(t.ctx, silent.url, `tx_p${i}`);
    const run = t.ctx.work.runUntil();
    await silent.waitForHits(2);
    await silent.close(); // the two hung requests fail; the next ones are refused: all five get attempt 1
    const ran = await run;
    expect(ran.deliveries).toBe(5);
    const entries = t.ctx.journal.list({ limit: 10 });
    expect(entries.map((e) => e.attempts.length)).toEqual([1, 1, 1, 1, 1]);
    expect(entries.every((e) => e.status === "pending" && e.nextAttemptAt !== null)).toBe(true);
  });

  it("a callback whose destination is full waits parked and goes out in its turn, each attempt once (docs/performance.md)", async () => {
    const { t, silent } = await setup(2);
    for (let i = 0; i < 2; i++) enqueueCard(t.ctx, silent.url, `tx_f${i}`);
    t.ctx.work.poke();
    await silent.waitForHits(2);
    await until(() => t.ctx.webhooks.inFlight === 2);
    // the destination is full: these are written waiting (no due time) and parked when placed
    const later = [0, 1, 2].map((i) => enqueueCard(t.ctx, silent.url, `tx_l${i}`));
    const behind = enqueueCard(t.ctx, silent.url, "tx_l0", "REFUNDED"); // ordered behind tx_l0's: blocked, as always
    // one whose write is rolled back leaves nothing to send
    expect(() =>
      inTransaction(t.ctx.db, () => {
        enqueueCard(t.ctx, silent.url, "tx_gone");
        throw new Error("rolled back");
      }),
    ).toThrow("rolled back");
    for (const id of [...later, behind]) {
      expect(t.ctx.journal.get(id)).toMatchObject({ status: "pending", nextAttemptAt: null, attempts: [] });
    }
    await t.ctx.work.runUntil(undefined, { settle: false }); // places them: parked behind the two on the wire
    expect(t.ctx.webhooks.inFlight).toBe(2);
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined(); // nothing is due until a request ends
    const run = t.ctx.work.runUntil();
    await silent.close(); // the two hung requests fail; the next ones are refused
    await run;
    const entries = t.ctx.journal.list({ limit: 10 });
    expect(JSON.stringify(entries)).not.toContain("tx_gone");
    expect(entries).toHaveLength(6);
    // every one attempted once (tx_l0's second only after its first settled: it failed, so it waits)
    const attempts = Object.fromEntries(entries.map((e) => [e.id, e.attempts.length]));
    expect([...later].map((id) => attempts[id])).toEqual([1, 1, 1]);
    expect(attempts[behind]).toBe(0);
    expect(entries.filter((e) => e.attempts.length > 1)).toEqual([]);
  });

  it("shutdown: a request that answers within the grace is recorded as usual, a hung one as interrupted", async () => {
    const { t, receiver, silent } = await setup();
    const hung = enqueueCard(t.ctx, silent.url, "tx_hung");
    const quick = enqueueCard(t.ctx, receiver.url, "tx_quick");
    t.ctx.work.poke();
    await silent.waitForHits(1);
    await receiver.waitFor(1);
    expect(await t.ctx.webhooks.drain(300)).toBe(1); // the quick one answered within the grace
    expect(t.ctx.journal.get(quick)).toMatchObject({ status: "delivered", attempts: [{ httpStatus: 200 }] });
    expect(t.ctx.journal.get(hung)).toMatchObject({
      status: "pending",
      attempts: [{ httpStatus: null, error: INTERRUPTED_ERROR }],
    });
    expect(t.ctx.webhooks.inFlight).toBe(0);
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined(); // stopped: sends nothing more
  });

  it("logs every failed attempt at warn with the URL (userinfo masked), the error and the next attempt time", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const { t, receiver } = await setup(4, pino({ level: "warn" }, sink));
    receiver.respondWith(503);
    const url = receiver.url.replace("http://", "http://alice:s3cret@");
    enqueueCard(t.ctx, `${url}/hooks`, "tx_log");
    await t.ctx.work.runUntil();
    const warn = lines.find((l) => l.msg && String(l.msg).includes("webhook attempt 1 failed"));
    expect(warn).toMatchObject({ level: 40, httpStatus: 503, attempt: 1, nextAttemptAt: expect.stringMatching(/Z$/) });
    expect(String(warn!.url)).toContain("***@");
    expect(JSON.stringify(lines)).not.toContain("s3cret");
    expect(t.ctx.journal.list({ limit: 1 })[0]!.url).not.toContain("s3cret");
    expect(receiver.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from("alice:s3cret").toString("base64")}`);
  });
});
