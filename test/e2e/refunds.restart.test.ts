/**
 * A refund is durable across a crash of the real server (docs/refunds-payouts.md): killed (SIGKILL) between
 * its PENDING answer and its SUCCEED a virtual minute later, the restarted server settles it, makes
 * the original REFUNDED, and sends every callback once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { call, type RunningServer, startServer, tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";
import { refundBody, verifyStatusSignature } from "../http/refunds.support.js";

let server: RunningServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await server?.stop();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

describe("a refund across a kill -9 of the real server", () => {
  it("PENDING before the crash, SUCCEED after the restart, the original REFUNDED, each callback once", async () => {
    const dbPath = tempDbPath();
    receiver = await startReceiver();
    server = await startServer({ dbPath, args: ["--start-time", "2027-05-01T00:00:00Z"] });
    const auth = async () =>
      (
        await call("POST", `${server!.url}/api/v1/auth`, {
          merchantKey: "sandbox_merchant_key",
          merchantSecret: "sandbox_merchant_secret",
        })
      ).body.token as string;
    let token = await auth();
    const pay = await call(
      "POST",
      `${server.url}/api/v1/payments/card`,
      cardPaymentBody({ amount: "30.00", callbackUrl: `${receiver.url}/pay` }),
      token,
    );
    const tx = pay.body.transactionId as string;
    const refund = await call(
      "POST",
      `${server.url}/v1/refunds/card`,
      refundBody(tx, "30.00", { callbackUrl: `${receiver.url}/rf` }),
      token,
    );
    expect(refund.body.transactionStatus).toBe("PENDING");
    const refundId = refund.body.refundId as string;
    await receiver.waitFor(2); // the payment's SUCCEED and the refund's PENDING
    // ... and recorded as delivered (an attempt killed before it is recorded is retried: at least once)
    for (let i = 0; i < 200; i++) {
      const delivered = await call("GET", `${server.url}/_sandbox/webhooks?status=delivered`);
      if (delivered.body.length === 2) break;
      await new Promise((resolve) => setImmediate(resolve));
    }

    await server.stop("SIGKILL");
    server = await startServer({ dbPath });
    token = await auth();
    expect((await call("GET", `${server.url}/v1/refunds/card/status/${refundId}`, undefined, token)).body.transactionStatus).toBe(
      "PENDING",
    );
    // PT2M: after a kill -9 the persisted clock may restart up to a second behind (the persisted clock is saved again at start to fix that)
    const adv = await call("POST", `${server.url}/_sandbox/clock/advance`, { by: "PT2M" });
    expect(adv.status).toBe(200);
    expect((await call("GET", `${server.url}/v1/refunds/card/info/${refundId}`, undefined, token)).body).toMatchObject({
      transactionStatus: "SUCCEED",
      totalAmount: 30,
      transactionId: tx,
    });
    expect((await call("GET", `${server.url}/api/v1/payments/card/info/${tx}`, undefined, token)).body).toMatchObject({
      transactionStatus: "REFUNDED",
      refundedAmount: 30,
    });
    await receiver.waitFor(4).catch((e) => {
      throw new Error(
        `${e.message}: ${JSON.stringify(receiver!.received.map((h) => [h.path, (h.body as { transactionStatus: string }).transactionStatus]))}`,
      );
    });
    const seen = receiver.received.map((h) => `${h.path}:${(h.body as { transactionStatus: string }).transactionStatus}`);
    expect(seen.sort()).toEqual(["/pay:REFUNDED", "/pay:SUCCEED", "/rf:PENDING", "/rf:SUCCEED"]);
    for (const h of receiver.received.filter((x) => x.path === "/rf")) expect(verifyStatusSignature(h)).toBe(true);
    expect((await call("POST", `${server.url}/_sandbox/clock/advance`, { by: "P1D" })).body.ran.deliveries).toBe(0);
    expect(receiver.received).toHaveLength(4);
  });
});
