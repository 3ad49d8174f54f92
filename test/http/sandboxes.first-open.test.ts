/**
 * A sandbox is opened by its first request (docs/parallel-suites.md#storage, docs/performance.md
 * "Sandboxes at once"): a create or a fork makes its database (a memory one keeps its image until
 * then) and opens nothing, so a storm of them costs the event loop no database and no services. What
 * must hold anyway: a fork opened later is its source as it was at the fork; a file-backed copy made
 * and never opened is there after a restart, and settled (its source's deliveries skipped) at its
 * first open then; a copy whose copied work falls due is opened by it, without a request.
 */
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { tempDbPath } from "../helpers/server.js";
import { closedPortUrl } from "../unit/webhooks.support.js";
import { cardPaymentBody, threeDsBody } from "./payments.body.js";
import { pay, statusOf } from "./sandbox.calls.js";

let s: TestServer | undefined;
let t: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await t?.close();
  s = undefined;
  t = undefined;
});

type Entry = { status: string; transactionId: string; attempts: Array<{ error: string | null }> };

describe("a sandbox opens on its first request", () => {
  it("a create and a fork open nothing; the fork, opened later, is its source as it was at the fork", async () => {
    for (const storage of ["file", "memory"] as const) {
      s = makeServer({ config: { db: tempDbPath(), storage }, groupCommit: true });
      const world = await s.create({ name: "world" });
      const before = await pay(s, world.base);
      expect(s.server.sandboxes.openCount).toBe(1);
      const made = await s.create();
      const fork = await s.create({ from: world.id });
      expect(fork).toMatchObject({ storage });
      expect(s.server.sandboxes.openCount).toBe(1);
      const after = await pay(s, world.base);
      // its first request opens it: what the world had at the fork, nothing it did after
      expect(await statusOf(s, fork.base, before)).toEqual({ status: 200, tx: "SUCCEED" });
      expect((await statusOf(s, fork.base, after)).status).toBe(404);
      expect(s.server.sandboxes.openCount).toBe(2);
      const own = await pay(s, fork.base);
      expect((await statusOf(s, world.base, own)).status).toBe(404);
      expect((await s.http.get(`${made.base}/_sandbox/clock`)).status).toBe(200);
      expect(s.server.sandboxes.openCount).toBe(3);
      await s.close();
      s = undefined;
    }
  });

  it("a file-backed copy never opened is there after a restart, its source's deliveries skipped at its first open", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db } });
    const a = await s.create({ startTime: "2027-01-01T00:00:00Z" });
    const dead = await closedPortUrl();
    const tx = await pay(s, a.base, cardPaymentBody({ callbackUrl: `${dead}/cb` }));
    const journal = async (server: TestServer, base: string) =>
      (await server.http.get(`${base}/_sandbox/webhooks`)).body as Entry[];
    // the first attempt fails at once (nothing listens): pending, its retry due later
    for (let i = 0; i < 50 && (await journal(s, a.base))[0]?.attempts.length !== 1; i++) await s.server.sandboxes.tick();
    expect((await journal(s, a.base))[0]).toMatchObject({ status: "pending" });
    const fork = await s.create({ from: a.id });
    const token = await s.token(a.base);
    await s.close();
    s = undefined;

    t = makeServer({ config: { db } });
    const mark = `${db}-sandboxes/${fork.id}.db-copy`;
    expect(existsSync(mark)).toBe(true);
    const copied = await journal(t, fork.base);
    expect(copied).toHaveLength(1);
    expect(copied[0]).toMatchObject({ transactionId: tx, status: "skipped" });
    expect(copied[0]?.attempts.at(-1)?.error).toMatch(/^skipped \(copied\)/);
    expect(existsSync(mark)).toBe(false);
    // the source's token issued before the fork works in the copy
    const status = await t.http.get(`${fork.base}/api/v1/payments/card/status/${tx}`).set("authorization", token);
    expect(status.status).toBe(200);
  });

  it("a copy whose copied work falls due is opened by it, with no request", async () => {
    for (const storage of ["file", "memory"] as const) {
      s = makeServer({ config: { db: tempDbPath(), storage }, idleMs: 86_400_000 });
      const world = await s.create({ startTime: "2027-01-01T00:00:00Z" });
      const dead = await closedPortUrl();
      // waits for the shopper: its 30-minute deadline is the world's work due
      const tx = await pay(s, world.base, threeDsBody(`${dead}/cb`));
      expect((await statusOf(s, world.base, tx)).tx).toBe("CUSTOMER_VERIFICATION");
      const fork = await s.create({ from: world.id });
      s.wall.advance(29 * 60_000);
      await s.server.tick();
      expect(s.server.sandboxes.openCount).toBe(1);
      s.wall.advance(2 * 60_000);
      await s.server.tick();
      expect(s.server.sandboxes.openCount).toBe(2);
      await s.server.tick();
      const copied = await statusOf(s, fork.base, tx);
      expect(copied.status).toBe(200);
      expect(copied.tx).not.toBe("CUSTOMER_VERIFICATION");
      await s.close();
      s = undefined;
    }
  });
});
