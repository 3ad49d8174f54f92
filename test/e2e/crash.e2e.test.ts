/**
 * The kill -9 drill against the real server. Payments under load, a few
 * SIGKILLs, a restart on the same database each time; then every acknowledged payment is there,
 * every webhook is delivered, no attempt number reached the receiver twice, and the clock never
 * restarted behind what was written.
 */
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

describe("kill -9 under load", () => {
  it("loses no acknowledged payment and no webhook, and never sends an attempt number twice", async () => {
    const dbPath = tempDbPath();
    receiver = await startSwitchServer();
    const acknowledged: string[] = [];
    const ROUNDS = 3;
    for (let round = 0; round < ROUNDS; round++) {
      server = await startServer({ dbPath, args: ["--start-time", "2027-05-01T00:00:00Z"] });
      const base = server.url;
      const clockAtStart = Date.parse((await call("GET", `${base}/_sandbox/clock`)).body.now);
      if (round > 0) {
        // crash honesty: the clock resumes at or after the newest payment written before the kill
        const last = acknowledged.at(-1) as string;
        const info = await call("GET", `${base}/_sandbox/webhooks?transactionId=${last}&limit=1`);
        expect(clockAtStart).toBeGreaterThanOrEqual(Date.parse(info.body[0].createdAt));
      }
      const token = (await call("POST", `${base}/api/v1/auth`, CREDS)).body.token as string;
      let stop = false;
      const worker = async () => {
        while (!stop) {
          const res = await call(
            "POST",
            `${base}/api/v1/payments/card`,
            cardPaymentBody({ callbackUrl: `${receiver!.url}/hooks` }),
            token,
          ).catch(() => undefined);
          if (res?.status === 200) acknowledged.push(res.body.transactionId as string);
          else if (res) throw new Error(`payment answered ${res.status}: ${JSON.stringify(res.body)}`);
          else return; // the server is gone
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      const before = acknowledged.length;
      while (acknowledged.length < before + 40) await new Promise((resolve) => setTimeout(resolve, 5));
      await server.stop("SIGKILL");
      stop = true;
      await Promise.all(workers);
    }

    server = await startServer({ dbPath });
    const base = server.url;
    const token = (await call("POST", `${base}/api/v1/auth`, CREDS)).body.token as string;
    // interrupted attempts retry 2 virtual minutes later: move time until nothing is pending
    for (let i = 0; i < 20; i++) {
      const pending = await call("GET", `${base}/_sandbox/webhooks?status=pending&limit=1`);
      if (pending.body.length === 0) break;
      await call("POST", `${base}/_sandbox/clock/advance`, { by: "PT3M" });
    }

    expect(acknowledged.length).toBeGreaterThanOrEqual(ROUNDS * 40);
    for (const id of acknowledged) {
      const status = await call("GET", `${base}/api/v1/payments/card/status/${id}`, undefined, token);
      expect(status.status, id).toBe(200);
      const hooks = await call("GET", `${base}/_sandbox/webhooks?transactionId=${id}`);
      expect(hooks.body.length, id).toBeGreaterThan(0);
      for (const h of hooks.body) expect(h.status, `${id} ${h.id}`).toBe("delivered");
    }
    const seen = receiver.received.map((r) => `${r.deliveryId}#${r.attempt}`);
    expect(new Set(seen).size).toBe(seen.length);
  }, 60_000);
});
