/**
 * The edges of a sandbox's life (docs/parallel-suites.md#deleting-a-sandbox): a DELETE lets the
 * webhook attempts on the wire have their answers and gives every delivery already due its first
 * attempt before the sandbox goes; `?force=true` drops them at once.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { type SlowReceiver, slowReceiver } from "../helpers/slow-receiver.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestServer | undefined;
let slow: SlowReceiver | undefined;
afterEach(async () => {
  await s?.close();
  await slow?.close();
  s = undefined;
  slow = undefined;
});

function logLines(): { lines: string[]; logger: pino.Logger } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: pino({ level: "warn" }, stream) };
}

describe("DELETE /_sandbox/sandboxes/{id} keeps its webhooks", () => {
  it("10 of 10: a payment to a receiver that takes 2 s, then DELETE at once: delivered and answered, then 204", async () => {
    const log = logLines();
    s = makeServer({ logger: log.logger });
    slow = await slowReceiver(2_000);
    const server = s;
    const receiver = slow;
    const runs = Array.from({ length: 10 }, async (_, i) => {
      const sb = await server.create();
      const token = await server.token(sb.base);
      const pay = await server.http
        .post(`${sb.base}/api/v1/payments/card`)
        .set("authorization", token)
        .send(cardPaymentBody({ callbackUrl: `${receiver.url}/hook-${i}` }));
      expect(pay.status).toBe(200);
      const del = await server.http.delete(`/_sandbox/sandboxes/${sb.id}`);
      expect(del.status).toBe(204);
      // gone once the DELETE answered
      expect((await server.http.get(`${sb.base}/_sandbox/clock`)).status).toBe(404);
    });
    await Promise.all(runs);
    const hooks = Array.from({ length: 10 }, (_, i) => `/hook-${i}?paymentMethod=card`).sort();
    expect([...receiver.arrived].sort()).toEqual(hooks);
    expect(receiver.cut).toEqual([]);
    expect([...receiver.answered].sort()).toEqual(hooks);
    expect(log.lines.filter((l) => l.includes("webhook attempt"))).toEqual([]);
  });

  it("gives a delivery already due but not yet sent its first attempt before the sandbox goes", async () => {
    s = makeServer({ webhooks: { concurrency: 1 } });
    slow = await slowReceiver(300);
    const sb = await s.create();
    const token = await s.token(sb.base);
    // parked behind a destination with no room: a concurrency of 1 and a first request on the wire
    const pays = [];
    for (let i = 0; i < 3; i++) {
      pays.push(
        s.http
          .post(`${sb.base}/api/v1/payments/card`)
          .set("authorization", token)
          .send(cardPaymentBody({ callbackUrl: `${slow.url}/due-${i}` })),
      );
    }
    for (const pay of await Promise.all(pays)) expect(pay.status).toBe(200);
    expect(slow.answered.length).toBeLessThan(3);
    expect((await s.http.delete(`/_sandbox/sandboxes/${sb.id}`)).status).toBe(204);
    expect(slow.answered.length).toBe(3);
    expect(slow.cut).toEqual([]);
  });

  it("?force=true drops what is in flight at once, and any other force is a 400 that deletes nothing", async () => {
    s = makeServer();
    slow = await slowReceiver(60_000);
    const sb = await s.create();
    const token = await s.token(sb.base);
    await s.http
      .post(`${sb.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ callbackUrl: `${slow.url}/forced` }));
    await slow.waitFor(1);
    const bad = await s.http.delete(`/_sandbox/sandboxes/${sb.id}?force=yes`);
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toContain("force");
    expect((await s.http.get(`${sb.base}/_sandbox/clock`)).status).toBe(200);
    const del = await s.http.delete(`/_sandbox/sandboxes/${sb.id}?force=true`);
    expect(del.status).toBe(204);
    expect(slow.answered).toEqual([]);
    expect((await s.http.get(`${sb.base}/_sandbox/clock`)).status).toBe(404);
  });

  it("a receiver that never answers: the DELETE waits at most the attempt timeout, and holds up neither a tick nor a request", async () => {
    const log = logLines();
    s = makeServer({ webhooks: { timeoutMs: 1_000 }, logger: log.logger });
    slow = await slowReceiver(60_000);
    const sb = await s.create();
    const token = await s.token(sb.base);
    await s.http
      .post(`${sb.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ callbackUrl: `${slow.url}/hung` }));
    await slow.waitFor(1);
    let deleted = false;
    const del = s.http.delete(`/_sandbox/sandboxes/${sb.id}`).then((r) => {
      deleted = true;
      return r;
    });
    // the sandbox is gone for new requests at once, and the once-a-second tick does not wait for it
    while ((await s.http.get(`/_sandbox/sandboxes/${sb.id}`)).status !== 404);
    await s.server.tick();
    expect((await s.http.get(`${sb.base}/_sandbox/clock`)).status).toBe(404);
    expect(slow.cut).toEqual([]);
    expect(deleted).toBe(false);
    expect((await del).status).toBe(204);
    // the DELETE closed the hung connection (the receiver hears of it a moment after the 204)
    await slow.waitForCut(1);
    expect(slow.cut).toEqual(["/hung?paymentMethod=card"]);
    // a retry that nothing would make is not announced
    const lines = log.lines.filter((l) => l.includes("webhook attempt 1 failed"));
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain("no more attempts: its sandbox is deleted");
  });
});
