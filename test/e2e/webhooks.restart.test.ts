/**
 * docs/webhooks.md, durability, against the real server: deliveries made by a card payment to a
 * failing receiver and to one that never answers, a SIGTERM with an attempt in flight, a restart on
 * the same database — and every delivery arrives exactly once per attempt number.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { JournalEntry } from "../../src/webhooks/journal.js";
import { INTERRUPTED_ERROR } from "../../src/webhooks/retries.js";
import { call, type RunningServer, startServer, tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";
import { type SwitchServer, startSwitchServer } from "../unit/webhooks.support.js";

let server: RunningServer | undefined;
let receiver: SwitchServer | undefined;
afterEach(async () => {
  await server?.stop();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

async function pay(base: string, token: string, callbackUrl: string): Promise<string> {
  const res = await call("POST", `${base}/api/v1/payments/card`, cardPaymentBody({ callbackUrl }), token);
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

const attemptsBy = (r: SwitchServer) => {
  const out: Record<string, string[]> = {};
  for (const h of r.received) out[h.deliveryId] = [...(out[h.deliveryId] ?? []), h.attempt];
  return out;
};

describe("webhook deliveries across a restart of the real server", () => {
  it("resume after SIGTERM: the failed one retries as attempt 2, the interrupted one is recorded and retried as attempt 2", async () => {
    const dbPath = tempDbPath();
    receiver = await startSwitchServer();
    server = await startServer({ dbPath, args: ["--start-time", "2027-05-01T00:00:00Z"] });
    const token = (
      await call("POST", `${server.url}/api/v1/auth`, {
        merchantKey: "sandbox_merchant_key",
        merchantSecret: "sandbox_merchant_secret",
      })
    ).body.token as string;

    receiver.mode = 500;
    const txA = await pay(server.url, token, `${receiver.url}/a?shop=1`);
    await receiver.waitFor(1);
    receiver.mode = "hang";
    const txB = await pay(server.url, token, `${receiver.url}/b`);
    await receiver.waitFor(2); // B's first attempt is on the wire and never answered

    const before = (await call("GET", `${server.url}/_sandbox/webhooks`)).body as Array<{ id: string; transactionId: string }>;
    expect(before).toHaveLength(2);
    const idA = before.find((e) => e.transactionId === txA)!.id;
    const idB = before.find((e) => e.transactionId === txB)!.id;
    expect(attemptsBy(receiver)).toEqual({ [idA]: ["1"], [idB]: ["1"] });

    expect(await server.stop("SIGTERM")).toBe(0);
    receiver.dropHanging();
    receiver.mode = 200;

    server = await startServer({ dbPath });
    const journal = (await call("GET", `${server.url}/_sandbox/webhooks`)).body as JournalEntry[];
    const b = journal.find((e) => e.id === idB)!;
    expect(b.status).toBe("pending");
    expect(b.attempts).toEqual([{ at: expect.any(String), httpStatus: null, error: INTERRUPTED_ERROR }]);
    expect(journal.find((e) => e.id === idA)!.attempts).toEqual([{ at: expect.any(String), httpStatus: 500, error: null }]);
    expect(receiver.received).toHaveLength(2); // nothing re-sent at start: both wait for their retry

    const adv = await call("POST", `${server.url}/_sandbox/clock/advance`, { by: "PT3M" });
    expect(adv.status).toBe(200);
    expect(adv.body.ran.deliveries).toBe(2);
    expect(attemptsBy(receiver)).toEqual({ [idA]: ["1", "2"], [idB]: ["1", "2"] });
    const hookA = receiver.received.filter((h) => h.deliveryId === idA);
    expect(hookA).toHaveLength(2);

    const after = (await call("GET", `${server.url}/_sandbox/webhooks?status=delivered`)).body as JournalEntry[];
    expect(after.map((e) => e.id).sort()).toEqual([idA, idB].sort());

    // nothing more, ever
    expect((await call("POST", `${server.url}/_sandbox/clock/advance`, { by: "P1D" })).body.ran.deliveries).toBe(0);
    expect(receiver.received).toHaveLength(4);
  });
});
