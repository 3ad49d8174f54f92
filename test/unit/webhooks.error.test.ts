import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SandboxError } from "../../src/platform/errors.js";
import { INTERRUPTED_ERROR } from "../../src/webhooks/retries.js";
import { T0 } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { closedPortUrl, enqueueCard, MINUTE, makeCtx, startSilentServer, type TestCtx } from "./webhooks.support.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(timeoutMs?: number): Promise<{ t: TestCtx; receiver: Receiver }> {
  const t = makeCtx(timeoutMs ? { webhooks: { timeoutMs } } : {});
  const receiver = await startReceiver();
  cleanup.push(
    () => receiver.close(),
    () => t.close(),
  );
  return { t, receiver };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe("webhook dispatcher: failures and retries", () => {
  it("a receiver that never answers 2xx gets exactly 6 attempts at +2/+4/+8/+16/+32 min, then the delivery is failed", async () => {
    const { t, receiver } = await setup();
    receiver.defaultStatus = 503;
    const id = enqueueCard(t.ctx, receiver.url, "tx_never");

    const times = [0, 2, 6, 14, 30, 62].map((m) => T0 + m * MINUTE);
    for (const [i, at] of times.entries()) {
      // one ms early: nothing; on time: exactly the next attempt
      if (at > T0) await t.ctx.work.runUntil(at - 1);
      expect(receiver.received).toHaveLength(i);
      await t.ctx.work.runUntil(at);
      expect(receiver.received).toHaveLength(i + 1);
      expect(receiver.received[i]!.headers["x-sandbox-attempt"]).toBe(String(i + 1));
    }
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined();
    const ran = await t.ctx.control.advance({ by: "P7D" });
    expect(ran.ran.deliveries).toBe(0);
    expect(receiver.received).toHaveLength(6);

    const [entry] = t.ctx.journal.list({ limit: 1 });
    expect(entry).toMatchObject({ id, status: "failed", nextAttemptAt: null });
    expect(entry!.attempts).toEqual(times.map((at) => ({ at: iso(at), httpStatus: 503, error: null })));
  });

  it("one clock jump over the whole schedule runs all six attempts in time order", async () => {
    const { t, receiver } = await setup();
    receiver.defaultStatus = 500;
    enqueueCard(t.ctx, receiver.url, "tx_jump");
    const ran = await t.ctx.control.advance({ by: "P1D" });
    expect(ran.ran.deliveries).toBe(6);
    const [entry] = t.ctx.journal.list({ limit: 1 });
    expect(entry!.attempts.map((a) => a.at)).toEqual([0, 2, 6, 14, 30, 62].map((m) => iso(T0 + m * MINUTE)));
  });

  it("a redirect is not followed: it is a failed attempt", async () => {
    const { t, receiver } = await setup();
    receiver.respondWith(302);
    enqueueCard(t.ctx, receiver.url, "tx_302");
    await t.ctx.work.runUntil();
    const [entry] = t.ctx.journal.list({ limit: 1 });
    expect(entry).toMatchObject({ status: "pending", nextAttemptAt: iso(T0 + 2 * MINUTE) });
    expect(entry!.attempts).toEqual([{ at: iso(T0), httpStatus: 302, error: null }]);
  });

  it("a receiver that does not answer within the timeout is a failed attempt with an error, retried later", async () => {
    const { t } = await setup(150);
    const silent = await startSilentServer();
    cleanup.push(() => silent.close());
    enqueueCard(t.ctx, silent.url, "tx_slow");
    await t.ctx.work.runUntil();
    const [entry] = t.ctx.journal.list({ limit: 1 });
    expect(entry!.status).toBe("pending");
    expect(entry!.attempts).toHaveLength(1);
    expect(entry!.attempts[0]!.httpStatus).toBeNull();
    expect(entry!.attempts[0]!.error).toMatch(/timeout/i);
    expect(entry!.nextAttemptAt).toBe(iso(T0 + 2 * MINUTE));
  });

  it("different keys are in flight at the same time, one key never is twice", async () => {
    const { t } = await setup(60_000);
    const silent = await startSilentServer();
    for (let i = 0; i < 5; i++) enqueueCard(t.ctx, silent.url, `tx_${i}`);
    enqueueCard(t.ctx, silent.url, "tx_0", "REFUNDED");
    const run = t.ctx.work.runUntil();
    // nobody answers and the timeout is a minute: 5 arrivals mean 5 requests in flight together
    await silent.waitForHits(5);
    await silent.close(); // drops them all: 5 failed attempts, the blocked one never left
    const ran = await run;
    expect(ran.deliveries).toBe(5);
    expect(silent.hits()).toBe(5);
    const entries = t.ctx.journal.list({ limit: 10 });
    expect(entries.filter((e) => e.attempts.length === 1 && e.attempts[0]!.httpStatus === null)).toHaveLength(5);
    expect(entries.filter((e) => e.nextAttemptAt === null && e.attempts.length === 0)).toHaveLength(1);
  });

  it("a refused connection is a failed attempt naming the error", async () => {
    const { t } = await setup();
    enqueueCard(t.ctx, await closedPortUrl(), "tx_refused");
    await t.ctx.work.runUntil();
    const [entry] = t.ctx.journal.list({ limit: 1 });
    expect(entry!.attempts[0]).toMatchObject({ httpStatus: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it("a callbackUrl that is not an http(s) URL is a 400 naming callbackUrl, not a crash", async () => {
    const { t } = await setup();
    for (const bad of ["not a url", "ftp://example.com/x", "javascript:alert(1)"]) {
      let err: unknown;
      try {
        enqueueCard(t.ctx, bad, "tx_bad");
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as SandboxError).message).toBe("Invalid field: callbackUrl");
    }
    expect(t.ctx.journal.list({ limit: 10 })).toEqual([]);
  });

  it("no callbackUrl: nothing is enqueued and nothing is due", async () => {
    const { t } = await setup();
    const merchant = t.ctx.merchants.byKey("sandbox_merchant_key")!;
    const id = t.ctx.outbox.enqueue({
      merchant,
      kind: "card_payment",
      callbackUrl: undefined,
      paymentMethod: "card",
      transactionId: "tx_none",
      eventStatus: "SUCCEED",
      body: {},
    });
    expect(id).toBeUndefined();
    expect(t.ctx.webhooks.nextDueAt()).toBeUndefined();
  });
});

describe("webhook dispatcher: results that come back too late", () => {
  it("a result that arrives after the database closed is dropped, as after a crash: the next start recovers the row", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "paysandbox-late-")), "sandbox.db");
    const silent = await startSilentServer();
    const t = makeCtx({ dbPath, webhooks: { timeoutMs: 60_000 } });
    cleanup.push(() => t.ctx.webhooks.close());
    const id = enqueueCard(t.ctx, silent.url, "tx_late");
    t.ctx.work.poke();
    await silent.waitForHits(1);
    const settled = t.ctx.webhooks.pending();
    expect(settled).toBeDefined();
    t.ctx.db.$client.close();
    await silent.close(); // the hung request fails now; its result finds no database to write to
    await expect(settled).resolves.toBeUndefined();
    const again = makeCtx({ dbPath });
    cleanup.push(() => again.close());
    expect(again.ctx.journal.get(id)).toMatchObject({
      status: "pending",
      attempts: [{ httpStatus: null, error: INTERRUPTED_ERROR }],
    });
  });
});
