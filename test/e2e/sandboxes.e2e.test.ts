/**
 * CONTRACT §8 against the real server on a file database: sandboxes (their data and their clocks)
 * survive a restart, and a kill -9 while several sandboxes take payments loses nothing acknowledged
 * in any of them, webhooks included.
 */
import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { call, type RunningServer, startServer, tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";
import { type SwitchServer, startSwitchServer } from "../unit/webhooks.support.js";

let server: RunningServer | undefined;
let receiver: SwitchServer | undefined;
afterEach(async () => {
  await server?.stop("SIGKILL");
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

const CREDS = { merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" };
const token = async (base: string) => (await call("POST", `${base}/api/v1/auth`, CREDS)).body.token as string;

describe("sandboxes on a file database", () => {
  it("survive a restart with their data and their clocks; deleting one removes its files", async () => {
    const dbPath = tempDbPath();
    server = await startServer({ dbPath });
    const made = await call("POST", `${server.url}/_sandbox/sandboxes`, { name: "kept", startTime: "2030-06-01T00:00:00Z" });
    expect(made.status).toBe(201);
    const { id } = made.body;
    const base = `${server.url}/sandboxes/${id}`;
    const pay = await call("POST", `${base}/api/v1/payments/card`, cardPaymentBody(), await token(base));
    expect(pay.body.transactionStatus).toBe("SUCCEED");
    const moved = await call("POST", `${base}/_sandbox/clock/advance`, { by: "P40D" });
    expect(moved.body.now).toMatch(/^2030-07-11T/);
    expect(await server.stop("SIGTERM")).toBe(0);

    server = await startServer({ dbPath });
    const base2 = `${server.url}/sandboxes/${id}`;
    const listed = await call("GET", `${server.url}/_sandbox/sandboxes`);
    expect(listed.body.map((x: { id: string; name: string }) => [x.id, x.name])).toEqual([[id, "kept"]]);
    expect((await call("GET", `${base2}/_sandbox/clock`)).body.now).toMatch(/^2030-07-11T/);
    const status = await call(
      "GET",
      `${base2}/api/v1/payments/card/status/${pay.body.transactionId}`,
      undefined,
      await token(base2),
    );
    expect(status.body.transactionStatus).toBe("SUCCEED");
    // the root never saw it
    const rootStatus = await call(
      "GET",
      `${server.url}/api/v1/payments/card/status/${pay.body.transactionId}`,
      undefined,
      await token(server.url),
    );
    expect(rootStatus.status).toBeGreaterThanOrEqual(400);

    expect((await call("DELETE", `${server.url}/_sandbox/sandboxes/${id}`)).status).toBe(204);
    expect(readdirSync(`${dbPath}-sandboxes`).filter((f) => f.startsWith(id))).toEqual([]);
  }, 30_000);

  it("kill -9 while three sandboxes take payments: every acknowledged payment and its webhook is there after the restart", async () => {
    const dbPath = tempDbPath();
    receiver = await startSwitchServer();
    server = await startServer({ dbPath });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call("POST", `${server.url}/_sandbox/sandboxes`, { name: `s${i}` })).body.id);
    const acknowledged = new Map<string, string[]>(ids.map((id) => [id, []]));
    let stop = false;
    const worker = async (id: string) => {
      const base = `${server?.url}/sandboxes/${id}`;
      const auth = await token(base);
      while (!stop) {
        const res = await call(
          "POST",
          `${base}/api/v1/payments/card`,
          cardPaymentBody({ callbackUrl: `${receiver?.url}/${id}` }),
          auth,
        ).catch(() => undefined);
        if (res?.status === 200) acknowledged.get(id)?.push(res.body.transactionId as string);
        else if (res) throw new Error(`payment answered ${res.status}: ${JSON.stringify(res.body)}`);
        else return; // the server is gone
      }
    };
    const workers = ids.flatMap((id) => [worker(id), worker(id)]);
    const total = () => [...acknowledged.values()].reduce((n, l) => n + l.length, 0);
    while (total() < 90) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.stop("SIGKILL");
    stop = true;
    await Promise.all(workers);

    server = await startServer({ dbPath });
    for (const id of ids) {
      const base = `${server.url}/sandboxes/${id}`;
      const auth = await token(base);
      // interrupted attempts retry 2 virtual minutes later: move this sandbox's time until nothing is pending
      for (let i = 0; i < 20; i++) {
        const pending = await call("GET", `${base}/_sandbox/webhooks?status=pending&limit=1`);
        if (pending.body.length === 0) break;
        await call("POST", `${base}/_sandbox/clock/advance`, { by: "PT3M" });
      }
      const mine = acknowledged.get(id) ?? [];
      expect(mine.length).toBeGreaterThan(0);
      for (const tx of mine) {
        const status = await call("GET", `${base}/api/v1/payments/card/status/${tx}`, undefined, auth);
        expect(status.status, `${id} ${tx}`).toBe(200);
        const hooks = await call("GET", `${base}/_sandbox/webhooks?transactionId=${tx}`);
        expect(hooks.body.length, tx).toBeGreaterThan(0);
        for (const h of hooks.body) expect(h.status, `${tx} ${h.id}`).toBe("delivered");
      }
      // its journal holds only its own deliveries
      const journal = await call("GET", `${base}/_sandbox/webhooks?limit=1000`);
      expect(new Set(journal.body.map((d: { url: string }) => new URL(d.url).pathname))).toEqual(new Set([`/${id}`]));
    }
    // no attempt number reached the receiver twice
    const seen = receiver.received.map((r) => `${r.deliveryId}#${r.attempt}`);
    expect(new Set(seen).size).toBe(seen.length);
  }, 60_000);
});
