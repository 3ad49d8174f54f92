/**
 * Sandboxes on database files (docs/performance.md "A storm of creates"): the checkpointer thread
 * writes each file from the image, holds it around the main connection's life and closes it last,
 * so creates and reopens do their file I/O off the event loop. What must still hold: concurrent
 * creates each get a working, isolated sandbox; a closed sandbox reopens with its data; concurrent
 * first requests share one open; a sandbox deleted while it opens leaves no file behind.
 */
import { existsSync, readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const folderOf = (db: string) => `${db}-sandboxes`;

describe("sandboxes on files", () => {
  it("40 creates at once each get a working sandbox that sees only its own payments", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db }, maxOpen: 8 });
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => s.create({ name: `suite-${i}` })));
    expect(new Set(made.map((m) => m.id)).size).toBe(40);
    const paid = await Promise.all(
      made.map(async (m) => {
        const token = await s.token(m.base);
        const pay = await s.http.post(`${m.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
        expect(pay.status).toBe(200);
        return { ...m, token, tx: pay.body.transactionId as string };
      }),
    );
    // closes the 32 least recently used beyond the 8 it keeps open, then every one answers again
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBeLessThanOrEqual(8);
    for (const [i, p] of paid.entries()) {
      const own = await s.http.get(`${p.base}/api/v1/payments/card/status/${p.tx}`).set("authorization", p.token);
      expect(own.status).toBe(200);
      expect(own.body.transactionStatus).toBe("SUCCEED");
      const other = paid[(i + 1) % paid.length] as (typeof paid)[number];
      const foreign = await s.http.get(`${p.base}/api/v1/payments/card/status/${other.tx}`).set("authorization", p.token);
      expect(foreign.status).toBe(404);
    }
    expect(readdirSync(folderOf(db)).filter((f) => f.endsWith(".db"))).toHaveLength(40);
  });

  it("a closed sandbox reopens with its data and its clock; two first requests at once share one open", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db }, maxOpen: 1 });
    const a = await s.create({ startTime: "2027-01-01T00:00:00Z" });
    const token = await s.token(a.base);
    const pay = await s.http.post(`${a.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
    // another one opened by its first request: `a` is the least recently used beyond the one kept open
    const b = await s.create();
    expect(s.server.sandboxes.openCount).toBe(1);
    expect((await s.http.get(`${b.base}/_sandbox/clock`)).status).toBe(200);
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBe(1);
    const [status, clock] = await Promise.all([
      s.http.get(`${a.base}/api/v1/payments/card/status/${pay.body.transactionId}`).set("authorization", token),
      s.http.get(`${a.base}/_sandbox/clock`),
    ]);
    expect(status.status).toBe(200);
    expect(status.body.transactionStatus).toBe("SUCCEED");
    expect(clock.body.now).toBe("2027-01-01T00:00:00.000Z");
    expect(s.server.sandboxes.openCount).toBe(2);
  });

  it("a sandbox deleted while its first request opens it leaves no file behind", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db }, maxOpen: 1 });
    const a = await s.create();
    await s.create();
    await s.server.tick();
    const [first, del] = await Promise.all([
      s.http.get(`${a.base}/_sandbox/clock`),
      s.http.delete(`/_sandbox/sandboxes/${a.id}`),
    ]);
    expect(del.status).toBe(204);
    expect([200, 404]).toContain(first.status);
    expect((await s.http.get(`${a.base}/_sandbox/clock`)).status).toBe(404);
    // the thread lets the file go, then it is removed
    for (let i = 0; i < 200 && existsSync(`${folderOf(db)}/${a.id}.db`); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(folderOf(db)).filter((f) => f.startsWith(a.id))).toEqual([]);
  });

  it("a create refused for its scenario leaves no file behind", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db } });
    await s.create();
    const bad = await s.http.post("/_sandbox/sandboxes").send({ scenario: { merchants: "nope" } });
    expect(bad.status).toBe(400);
    for (let i = 0; i < 200 && readdirSync(folderOf(db)).length > 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(folderOf(db)).filter((f) => f.endsWith(".db"))).toHaveLength(1);
  });
});
