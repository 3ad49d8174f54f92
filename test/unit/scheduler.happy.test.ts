import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { subscriptions, transactions, webhookDeliveries } from "../../src/db/schema/index.js";
import { SubscriptionsRepo } from "../../src/modules/subscriptions/subscriptions.repo.js";
import { BUILTIN_MERCHANT } from "../../src/platform/fixtures.js";
import { SubscriptionScheduler, tickAtOrAfter } from "../../src/scheduler/subscriptions.js";
import { makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";
import { BILLING, DEVICE } from "../http/subscriptions.support.js";

let s: TestSandbox;
beforeEach(() => {
  s = makeSandbox(); // 2026-01-15T12:00Z, a tick boundary
});
afterEach(async () => {
  await s.close();
});

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);

function token(number = "4111111111111111"): string {
  return s.ctx.tokens.tokenize(BUILTIN_MERCHANT, {
    requestId: `t-${Math.random()}`,
    merchantId: 1001,
    card: { number, expMonth: "12", expYear: "2030", cvv: "123" },
    billingDetails: BILLING,
  }).body.token;
}

function subscribe(
  cardToken: string,
  plan: Partial<{ startDate: string; frequency: "MONTHLY" | "DAILY"; interval: number }> = {},
) {
  return s.ctx.subscriptions.create(BUILTIN_MERCHANT, {
    requestId: `s-${Math.random()}`,
    mid: BUILTIN_MERCHANT.mid,
    cardToken,
    plan: { amount: "5.00", currency: "EUR", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15", ...plan },
    order: {},
    device: DEVICE,
    callbackUrl: "http://127.0.0.1:9/cb",
    successRedirectUrl: "http://127.0.0.1:9/ok",
    failureRedirectUrl: "http://127.0.0.1:9/ko",
  }).body;
}

const chargesOf = (id: string) =>
  s.ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.subscriptionId, id))
    .all()
    .map((d) => JSON.parse(d.body).chargeDate as string);

describe("the subscription scheduler (docs/subscriptions.md)", () => {
  it("ticks are 5-minute boundaries", () => {
    expect(tickAtOrAfter(at("2026-02-01T00:00:00Z"))).toBe(at("2026-02-01T00:00:00Z"));
    expect(tickAtOrAfter(at("2026-02-01T00:00:00.001Z"))).toBe(at("2026-02-01T00:05:00Z"));
    expect(tickAtOrAfter(at("2026-02-01T00:04:59Z"))).toBe(at("2026-02-01T00:05:00Z"));
  });

  it("nextDueAt: nothing → undefined; a future date → its 00:00; an overdue one → the next tick after now", () => {
    const sched = new SubscriptionScheduler({ subscriptions: s.ctx.billing, clock: s.clock });
    expect(sched.nextDueAt()).toBeUndefined();
    subscribe(token()); // next 2026-02-15
    expect(sched.nextDueAt()).toBe(at("2026-02-15T00:00:00Z"));
    s.clock.advance(2 * MIN);
    subscribe(token(), { startDate: "2026-01-15" }); // ACTIVE, next 2026-02-15 too
    const trial = s.ctx.subscriptions.create(BUILTIN_MERCHANT, {
      requestId: "trial",
      mid: BUILTIN_MERCHANT.mid,
      cardToken: token(),
      plan: { amount: "5.00", currency: "EUR", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15" },
      order: {},
      device: DEVICE,
      skipFirstCharge: true,
      callbackUrl: "http://127.0.0.1:9/cb",
      successRedirectUrl: "http://127.0.0.1:9/ok",
      failureRedirectUrl: "http://127.0.0.1:9/ko",
    }).body;
    expect(trial.status).toBe("TRIALING");
    expect(sched.nextDueAt()).toBe(T0 + 5 * MIN);
  });

  /** What the runner does: run() (one batch) again while the scheduler reports work due by now. */
  const drain = (sched: SubscriptionScheduler) => {
    let charges = 0;
    for (let i = 0; i < 1000 && (sched.nextDueAt() ?? Number.POSITIVE_INFINITY) <= s.clock.nowMs(); i++) {
      charges += sched.run(s.clock.nowMs()).charges;
    }
    return { charges };
  };

  it("charges in batches, one database transaction each, until nothing is due", () => {
    const sched = new SubscriptionScheduler({ subscriptions: s.ctx.billing, clock: s.clock, batch: 3 });
    const spy = vi.spyOn(s.ctx.billing, "runDue");
    const t = token();
    for (let i = 0; i < 10; i++) subscribe(t);
    s.clock.advanceTo(at("2026-02-15T00:00:00Z"));
    expect(sched.run(s.clock.nowMs())).toEqual({ charges: 3 }); // one batch per run: the runner yields between
    expect(drain(sched)).toEqual({ charges: 7 });
    expect(spy.mock.calls.map((c) => c[1])).toEqual([3, 3, 3, 3]);
    expect(spy.mock.results.map((r) => (r.value as { rows: number }).rows)).toEqual([3, 3, 3, 1]);
    expect(s.ctx.db.select().from(transactions).all()).toHaveLength(20);
    expect(sched.nextDueAt()).toBe(at("2026-03-15T00:00:00Z"));
  });

  it("a batch ends at the runner's deadline (after at least one charge) and the next one goes on in the same order", () => {
    const sched = new SubscriptionScheduler({ subscriptions: s.ctx.billing, clock: s.clock, batch: 5 });
    const t = token();
    const ids = Array.from({ length: 4 }, () => subscribe(t).subscriptionId as string);
    s.clock.advanceTo(at("2026-02-15T00:00:00Z"));
    const order: string[] = [];
    const enqueue = s.ctx.outbox.enqueue.bind(s.ctx.outbox);
    vi.spyOn(s.ctx.outbox, "enqueue").mockImplementation((input) => {
      order.push(input.subscriptionId as string);
      return enqueue(input);
    });
    const spy = vi.spyOn(s.ctx.billing, "runDue");
    const past = performance.now() - 1; // a slice already used up: one charge per run
    expect(sched.run(s.clock.nowMs(), past)).toEqual({ charges: 1 });
    expect(sched.nextDueAt()).toBe(s.clock.nowMs()); // more is due at the same tick
    expect(sched.run(s.clock.nowMs(), past)).toEqual({ charges: 1 });
    expect(sched.run(s.clock.nowMs())).toEqual({ charges: 2 }); // no deadline: the limit only
    expect(sched.run(s.clock.nowMs())).toEqual({ charges: 0 }); // nothing left
    expect(order).toEqual(ids);
    expect(sched.nextDueAt()).toBe(at("2026-03-15T00:00:00Z"));
    // every batch may take the full limit: it reads a page at a time, so one stopped by the
    // deadline has read little it did not reach (docs/performance.md)
    expect(spy.mock.calls.map((c) => c[1])).toEqual([5, 5, 5, 5]);
  });

  it("a batch after one stopped at its deadline reads about as many due rows as that one charged, not a full page", () => {
    const sched = new SubscriptionScheduler({ subscriptions: s.ctx.billing, clock: s.clock, batch: 50 });
    const t = token();
    for (let i = 0; i < 40; i++) subscribe(t);
    s.clock.advanceTo(at("2026-02-15T00:00:00Z"));
    const reads = vi.spyOn(SubscriptionsRepo.prototype, "dueRows");
    const asked = () => reads.mock.calls.map((c) => c[2]);
    const past = performance.now() - 1; // a slice already used up: one charge per run
    expect(sched.run(s.clock.nowMs(), past)).toEqual({ charges: 1 });
    expect(asked()).toEqual([32]); // nothing known yet: a full page
    reads.mockClear();
    expect(sched.run(s.clock.nowMs(), past)).toEqual({ charges: 1 });
    expect(asked()).toEqual([1]); // the last batch charged one before its deadline
    reads.mockClear();
    // a slice with room: a first read of that size, then reads growing with what it charged
    expect(sched.run(s.clock.nowMs(), performance.now() + 60_000)).toEqual({ charges: 38 });
    expect(asked().slice(0, 6)).toEqual([1, 1, 2, 4, 8, 16]);
    expect(asked().length).toBeLessThan(12); // not 38 reads of one row
    expect(sched.nextDueAt()).toBe(at("2026-03-15T00:00:00Z"));
    reads.mockClear();
    // that batch ended with nothing left due, not at its deadline: the next starts from a whole page
    s.clock.advanceTo(at("2026-03-15T00:00:00Z"));
    expect(sched.run(s.clock.nowMs(), performance.now() + 60_000)).toEqual({ charges: 40 });
    expect(asked()[0]).toBe(32);
    reads.mockRestore();
  });

  it("a late run (the server was down) charges every missed date, in order, with its own chargeDate", () => {
    const sched = new SubscriptionScheduler({ subscriptions: s.ctx.billing, clock: s.clock });
    const sub = subscribe(token());
    s.clock.advanceTo(at("2026-05-20T10:00:00Z")); // no runner: nothing ran on the way
    // one charge per subscription and batch: the next missed date comes back in the next batch
    expect(sched.run(s.clock.nowMs())).toEqual({ charges: 1 });
    expect(drain(sched)).toEqual({ charges: 3 });
    expect(chargesOf(sub.subscriptionId as string)).toEqual(["2026-02-15", "2026-03-15", "2026-04-15", "2026-05-15"]);
    expect(drain(sched)).toEqual({ charges: 0 });
    // their callbacks share the subscription's orderKey: written waiting, none due or in flight; the
    // first waits for the dispatcher to place it (its next run), the others behind it for it to settle
    const rows = s.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, sub.subscriptionId as string))
      .all()
      .map((d) => [d.nextAttemptAt, d.inFlightSince]);
    expect(rows).toEqual([
      [null, null],
      [null, null],
      [null, null],
      [null, null],
    ]);
    expect(s.ctx.webhooks.nextDueAt()).toBeLessThanOrEqual(s.clock.nowMs()); // what waits to be placed goes at the next run
  });

  it("each subscription's charge, schedule move and callback commit together: a failure in one leaves no trace of it", () => {
    const sched = new SubscriptionScheduler({ subscriptions: s.ctx.billing, clock: s.clock });
    const t = token();
    const ids = [subscribe(t), subscribe(t), subscribe(t)].map((b) => b.subscriptionId as string);
    s.clock.advanceTo(at("2026-02-15T00:00:00Z"));
    const failed = ids[1]!;
    const enqueue = s.ctx.outbox.enqueue.bind(s.ctx.outbox);
    const spy = vi.spyOn(s.ctx.outbox, "enqueue").mockImplementation((input) => {
      if (input.subscriptionId === failed) throw new Error("disk full");
      return enqueue(input);
    });
    expect(sched.run(s.clock.nowMs())).toEqual({ charges: 2 });
    // the batch rolled back at the bad row and ran again row by row
    expect(spy.mock.calls.map((c) => c[0].subscriptionId)).toEqual([ids[0], failed, ids[0], failed, ids[2]]);
    const rows = s.ctx.db.select().from(subscriptions).all();
    const byId = new Map(rows.map((r) => [r.id, r]));
    // no charge row and no callback for the failed one; it is looked at again a day later
    expect(s.ctx.db.select().from(transactions).where(eq(transactions.subscriptionId, failed)).all()).toHaveLength(1);
    expect(chargesOf(failed)).toEqual([]);
    expect(byId.get(failed)).toMatchObject({ nextChargeDate: "2026-02-15", nextChargeAt: at("2026-02-16T00:00:00Z") });
    for (const ok of [ids[0]!, ids[2]!]) {
      expect(chargesOf(ok)).toEqual(["2026-02-15"]);
      expect(byId.get(ok)).toMatchObject({ nextChargeDate: "2026-03-15" });
    }
  });

  it("DAILY: a failed charge's retry on the next day is that day's charge; never two charges in a day", async () => {
    await s.http.post("/_sandbox/scenarios").send({ name: "d", rules: [{ amount: "5.00", status: "FAILED", declineCode: 5 }] });
    const sub = s.ctx.subscriptions.create(BUILTIN_MERCHANT, {
      requestId: "daily",
      mid: BUILTIN_MERCHANT.mid,
      cardToken: token(),
      plan: { amount: "6.00", currency: "EUR", frequency: "DAILY", interval: 1, startDate: "2026-01-15" },
      order: {},
      device: DEVICE,
      callbackUrl: "http://127.0.0.1:9/cb",
      successRedirectUrl: "http://127.0.0.1:9/ok",
      failureRedirectUrl: "http://127.0.0.1:9/ko",
    }).body;
    const id = sub.subscriptionId as string;
    s.ctx.subscriptions.update(BUILTIN_MERCHANT, id, { plan: { amount: "5.00" } });
    await s.ctx.control.advance({ to: "2026-01-16T12:00:00Z" }); // Jan 16 fails
    s.ctx.subscriptions.update(BUILTIN_MERCHANT, id, { plan: { amount: "6.00" } });
    await s.ctx.control.advance({ to: "2026-01-19T12:00:00Z" });
    expect(chargesOf(id)).toEqual(["2026-01-16", "2026-01-17", "2026-01-18", "2026-01-19"]);
  });
});
