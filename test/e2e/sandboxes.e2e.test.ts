/**
 * docs/parallel-suites.md against the real server on a file database: sandboxes (their data and their clocks)
 * survive a restart, and a kill -9 while several sandboxes take payments loses nothing acknowledged
 * in any of them, webhooks included.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, type RunningServer, runCli, startServer, tempDbPath } from "../helpers/server.js";
import { slowReceiver } from "../helpers/slow-receiver.js";
import { fetchToken } from "../helpers/token.js";
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
const token = (base: string) => fetchToken(base, CREDS);

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

describe("the end of a sandbox keeps its webhooks (docs/parallel-suites.md#deleting-a-sandbox)", () => {
  it("10 of 10: DELETE right after a payment to a receiver that takes 2 s; run --target whose last step pays", async () => {
    server = await startServer();
    const url = server.url;
    const slow = await slowReceiver(2_000);
    try {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const made = await call("POST", `${url}/_sandbox/sandboxes`, { name: `delete-${i}` });
          const base = `${url}/sandboxes/${made.body.id}`;
          const pay = await call(
            "POST",
            `${base}/api/v1/payments/card`,
            cardPaymentBody({ callbackUrl: `${slow.url}/d${i}` }),
            await token(base),
          );
          expect(pay.status).toBe(200);
          expect((await call("DELETE", `${url}/_sandbox/sandboxes/${made.body.id}`)).status).toBe(204);
        }),
      );
      expect(slow.cut).toEqual([]);
      expect(slow.answered.length).toBe(10);

      const dir = mkdtempSync(join(tmpdir(), "paysandbox-teardown-"));
      const file = join(dir, "pay-last.json");
      const step = {
        request: "POST /api/v1/payments/card",
        body: cardPaymentBody({ requestId: "${uuid}", callbackUrl: `${slow.url}/run` }),
      };
      writeFileSync(
        file,
        JSON.stringify({ name: "pay-last", steps: [{ ...step, expect: { body: { transactionStatus: "SUCCEED" } } }] }),
      );
      const files = Array.from({ length: 10 }, (_, i) => {
        const copy = join(dir, `pay-last-${i}.json`);
        writeFileSync(copy, readFileSync(file, "utf8").replace(`${slow.url}/run`, `${slow.url}/run${i}`));
        return copy;
      });
      const run = await runCli(["run", ...files, "--target", url, "--parallel", "10"], {}, 30_000);
      expect(run.code, run.output).toBe(0);
      expect(slow.answered.filter((p) => p.startsWith("/run")).length).toBe(10);
      expect(slow.cut).toEqual([]);
    } finally {
      await slow.close();
    }
  }, 60_000);
});
