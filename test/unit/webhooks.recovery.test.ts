/**
 * Durability (docs/webhooks.md: "a restart resumes the pending ones; none is lost or sent twice for the
 * same attempt"): a context that dies with an attempt in flight, and a second context opened on the
 * same database file, as a restarted server would be.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { webhookDeliveries } from "../../src/db/schema/index.js";
import { INTERRUPTED_ERROR } from "../../src/webhooks/retries.js";
import { T0 } from "../helpers/harness.js";
import { enqueueCard, MINUTE, makeCtx, type SwitchServer, startSwitchServer, type TestCtx } from "./webhooks.support.js";

let dir: string;
let server: SwitchServer;
const open: TestCtx[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "paysandbox-webhooks-"));
  server = await startSwitchServer();
});

afterEach(async () => {
  for (const t of open.splice(0)) {
    await t.ctx.webhooks.close().catch(() => undefined);
    if (t.ctx.db.$client.open) t.ctx.db.$client.close();
  }
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function openCtx(start = T0): TestCtx {
  const t = makeCtx({ dbPath: join(dir, "sandbox.db"), start, webhooks: { timeoutMs: 60_000 } });
  open.push(t);
  return t;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe("webhook delivery across a crash", () => {
  it("records the interrupted attempt, retries it as the next attempt number, and resumes the pending ones", async () => {
    const a = openCtx();
    server.mode = "hang";
    const d1 = enqueueCard(a.ctx, server.url, "tx_1", "PROCESSING");
    const d2 = enqueueCard(a.ctx, server.url, "tx_1", "SUCCEED"); // waits behind d1
    const run = a.ctx.work.runUntil().catch((err: unknown) => err);
    await server.waitFor(1); // d1 attempt 1 is on the wire, marked in flight in the db
    const d3 = enqueueCard(a.ctx, server.url, "tx_3"); // committed, never attempted by a

    // the process dies: its database connection goes, then its sockets
    a.ctx.db.$client.close();
    server.dropHanging();
    expect(await run).toBeInstanceOf(Error);

    const b = openCtx(T0 + 30_000); // restarted half a minute later
    server.mode = 200;
    const afterRestart = await b.ctx.work.runUntil();
    expect(afterRestart.deliveries).toBe(1); // d3 resumes at once; d1 waits for its retry
    expect(b.ctx.webhooks.nextDueAt()).toBe(T0 + 30_000 + 2 * MINUTE);

    await b.ctx.work.runUntil(T0 + 30_000 + 2 * MINUTE);
    expect(server.received).toEqual([
      { deliveryId: d1, attempt: "1" },
      { deliveryId: d3, attempt: "1" },
      { deliveryId: d1, attempt: "2" },
      { deliveryId: d2, attempt: "1" },
    ]);

    const byId = new Map(b.ctx.journal.list({ limit: 10 }).map((e) => [e.id, e]));
    expect(byId.get(d1)).toMatchObject({ status: "delivered" });
    expect(byId.get(d1)!.attempts).toEqual([
      { at: iso(T0), httpStatus: null, error: INTERRUPTED_ERROR },
      { at: iso(T0 + 30_000 + 2 * MINUTE), httpStatus: 200, error: null },
    ]);
    expect(byId.get(d2)).toMatchObject({ status: "delivered", attempts: [{ httpStatus: 200 }] });
    expect(byId.get(d3)).toMatchObject({ status: "delivered", attempts: [{ httpStatus: 200 }] });

    // a third start finds nothing to recover and sends nothing again
    b.ctx.db.$client.close();
    const c = openCtx(T0 + 10 * MINUTE);
    expect(c.ctx.webhooks.recover()).toBe(0);
    expect((await c.ctx.control.advance({ by: "P1D" })).ran.deliveries).toBe(0);
    expect(server.received).toHaveLength(4);
  });

  it("an interrupted sixth attempt fails the delivery and lets the next one of its key go", async () => {
    const a = openCtx();
    const d1 = enqueueCard(a.ctx, server.url, "tx_6", "PROCESSING");
    const d2 = enqueueCard(a.ctx, server.url, "tx_6", "SUCCEED");
    // the state a crash during attempt 6 leaves behind
    a.ctx.db
      .update(webhookDeliveries)
      .set({ attemptCount: 6, inFlightSince: T0 + 62 * MINUTE, nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, d1))
      .run();
    a.ctx.db.$client.close();

    const b = openCtx(T0 + 63 * MINUTE);
    await b.ctx.work.runUntil();
    const byId = new Map(b.ctx.journal.list({ limit: 10 }).map((e) => [e.id, e]));
    expect(byId.get(d1)).toMatchObject({ status: "failed", nextAttemptAt: null });
    expect(byId.get(d1)!.attempts).toEqual([{ at: iso(T0 + 62 * MINUTE), httpStatus: null, error: INTERRUPTED_ERROR }]);
    expect(byId.get(d2)).toMatchObject({ status: "delivered" });
    expect(server.received).toEqual([{ deliveryId: d2, attempt: "1" }]);
  });

  it("a pending delivery written but never placed (the process died first) gets a due time at start", async () => {
    const a = openCtx();
    const d1 = enqueueCard(a.ctx, server.url, "tx_o");
    // written waiting for the sender: no due time, not in flight (a run would have placed it)
    expect(a.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d1)).get()).toMatchObject({
      nextAttemptAt: null,
      inFlightSince: null,
      attemptCount: 0,
    });
    a.ctx.db.$client.close();

    const b = openCtx(T0 + MINUTE);
    expect(b.ctx.webhooks.nextDueAt()).toBe(T0 + MINUTE);
    await b.ctx.work.runUntil();
    expect(server.received).toEqual([{ deliveryId: d1, attempt: "1" }]);
  });
});
