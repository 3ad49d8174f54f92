/**
 * docs/snapshots.md: what a copy does with what it got from its source. Deliveries pending in the
 * source are `skipped` in the copy (`skipped (copied)`), never sent by it; its own new work sends.
 * Tokens: the source's tokens issued up to the copy work in it; the copy's own are refused by its
 * source, and a token the source issues later is refused by the copy (a copy is a lineage, isolated
 * from everything else as any sandbox is).
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { closedPortUrl } from "../unit/webhooks.support.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

type Entry = { id: string; status: string; transactionId: string; attempts: Array<{ error: string | null }> };

describe("a copy's webhook journal", () => {
  it("shows the source's pending deliveries as skipped (copied) and never sends them; its own new work sends", async () => {
    s = makeServer();
    const a = await s.create({ startTime: "2027-01-01T00:00:00Z" });
    const token = await s.token(a.base);
    const dead = await closedPortUrl();
    const pay = await s.http
      .post(`${a.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ callbackUrl: `${dead}/cb` }));
    const journal = async (base: string) => (await s.http.get(`${base}/_sandbox/webhooks`)).body as Entry[];
    // the first attempt fails at once (nothing listens): pending, its retry due 2 virtual minutes later
    for (let i = 0; i < 50 && (await journal(a.base))[0]?.attempts.length !== 1; i++) await s.server.sandboxes.tick();
    expect((await journal(a.base))[0]).toMatchObject({ status: "pending" });

    const fork = await s.http.post("/_sandbox/sandboxes").send({ from: a.id });
    const b = new URL(fork.body.baseUrl).pathname;
    const copied = await journal(b);
    expect(copied).toHaveLength(1);
    expect(copied[0]).toMatchObject({ transactionId: pay.body.transactionId, status: "skipped", nextAttemptAt: null });
    expect(copied[0]!.attempts.at(-1)!.error).toMatch(/^skipped \(copied\)/);
    expect((await s.http.get(`${b}/_sandbox/webhooks?status=skipped`)).body).toHaveLength(1);

    // a day later the source has retried; the copy has not
    for (const base of [a.base, b]) await s.http.post(`${base}/_sandbox/clock/advance`).send({ by: "P1D" }).expect(200);
    expect((await journal(a.base))[0]!.attempts.length).toBeGreaterThan(2);
    expect((await journal(b))[0]!.attempts).toHaveLength(2);

    // the copy's own new work sends
    const token2 = await s.token(b);
    const own = await s.http
      .post(`${b}/api/v1/payments/card`)
      .set("authorization", token2)
      .send(cardPaymentBody({ callbackUrl: `${dead}/own` }));
    for (let i = 0; i < 50; i++) {
      const e = (await journal(b)).find((x) => x.transactionId === own.body.transactionId);
      if (e && e.attempts.length > 0) break;
      await s.server.sandboxes.tick();
    }
    const mine = (await journal(b)).find((x) => x.transactionId === own.body.transactionId);
    expect(mine).toMatchObject({ status: "pending" });
    expect(mine!.attempts).toHaveLength(1);
    expect(mine!.attempts[0]!.error).not.toMatch(/copied/);
  });
});

describe("tokens in a copy", () => {
  it("accepts the source's tokens issued up to the copy; its own are refused by the source; the source's later ones by it", async () => {
    s = makeServer();
    const a = await s.create({ startTime: "2027-01-01T00:00:00Z" });
    const before = await s.token(a.base);
    const fork = await s.http.post("/_sandbox/sandboxes").send({ from: a.id });
    const b = new URL(fork.body.baseUrl).pathname;
    const status = (base: string, token: string) =>
      s.http.get(`${base}/api/v1/payments/card/status/tx_none`).set("authorization", token);
    // a 404 for the unknown id means the token was accepted
    expect((await status(b, before)).status).toBe(404);
    const own = await s.token(b);
    expect((await status(b, own)).status).toBe(404);
    expect((await status(a.base, own)).status).toBe(401);
    await s.http.post(`${a.base}/_sandbox/clock/advance`).send({ by: "PT5S" }).expect(200);
    const after = await s.token(a.base);
    expect(after).not.toBe(before);
    expect((await status(b, after)).status).toBe(401);
    // an unrelated sandbox accepts none of them
    const c = await s.create();
    for (const t of [before, own, after]) expect((await status(c.base, t)).status).toBe(401);
    // a copy of the copy inherits both secrets
    const fork2 = await s.http.post("/_sandbox/sandboxes").send({ from: fork.body.id });
    const d = new URL(fork2.body.baseUrl).pathname;
    expect((await status(d, before)).status).toBe(404);
    expect((await status(d, own)).status).toBe(404);
  });
});
