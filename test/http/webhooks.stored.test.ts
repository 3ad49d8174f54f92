/**
 * What a card payment's webhook leaves in the database, on both ways a delivery goes out: placed at
 * the COMMIT of a group-commit batch (the server) and sent after it, or placed by the next run after
 * a plain transaction. The stored headers are the JSON text of the headers the receiver got (the
 * journal reads them back), the callback body is the wire shape field for field, and the attempt's
 * event (written by the storage layer with the attempt, migration 0009) names the delivery's
 * transaction and merchant (docs/performance.md).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type Db, journalImage } from "../../src/db/client.js";
import { commitNow } from "../../src/db/commit.js";
import { CardCallbackSchema } from "../../src/modules/payments/payments.wire.js";
import { presentCallback } from "../../src/modules/payments/present.js";
import { presentPayout } from "../../src/modules/payouts/payouts.present.js";
import { PayoutInfoSchema } from "../../src/modules/payouts/payouts.wire.js";
import { newTransactionRow } from "../../src/modules/transactions/new-row.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { cardPaymentBody, threeDsBody } from "./payments.body.js";

/** An open database's image now, what it acknowledged committed first (as a fork's: docs/snapshots.md#consistency). */
function imageNow(db: Db | undefined): Buffer {
  if (!db) throw new Error("the sandbox is not open");
  commitNow(db.$client);
  return journalImage(db.$client.serialize());
}

let s: TestServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await s?.close();
  await receiver?.close();
  s = undefined;
  receiver = undefined;
});

describe("a card payment's webhook, as stored", () => {
  for (const groupCommit of [true, false]) {
    it(`keeps the headers sent, and its attempt's event names the transaction and merchant (${groupCommit ? "written in flight" : "claimed"})`, async () => {
      // a created sandbox runs with group commit, as the server does (its delivery is written in
      // flight and sent after the COMMIT); the test server's root sandbox commits each transaction
      s = makeServer({ groupCommit: true });
      receiver = await startReceiver();
      const base = groupCommit ? (await s.create()).base : "";
      const token = await s.token(base);
      const res = await s.http
        .post(`${base}/api/v1/payments/card`)
        .set("Authorization", token)
        .send(cardPaymentBody({ callbackUrl: `${receiver.url}/hook` }));
      expect(res.status).toBe(200);
      const tx = res.body.transactionId as string;
      const [hook] = await receiver.waitFor(1);
      const list = await s.http.get(`${base}/_sandbox/webhooks?transactionId=${tx}`).expect(200);
      expect(list.body).toHaveLength(1);
      const entry = list.body[0];
      expect(entry).toMatchObject({ status: "delivered", attempts: [{ httpStatus: 200 }] });
      // a created sandbox's database as it stands (its image: docs/snapshots.md), from the registry's open table
      const table = (s.server.sandboxes as unknown as { t: { opened: Map<string, { opened: { db: Db } }> } }).t;
      const sqlite = groupCommit
        ? new Database(imageNow(table.opened.get(base.split("/").at(-1) ?? "")?.opened.db))
        : s.server.root.db.$client;
      try {
        const row = sqlite.prepare("SELECT id, headers, attempt_count AS n FROM webhook_deliveries").get() as {
          id: string;
          headers: string;
          n: number;
        };
        expect(row).toMatchObject({ id: entry.id, n: 1 });
        expect(row.headers).toBe(
          JSON.stringify({
            "Content-Type": "application/json",
            "X-Checksum": hook?.headers["x-checksum"],
            "X-Sandbox-Delivery-Id": row.id,
          }),
        );
        expect(entry.headers).toEqual(JSON.parse(row.headers));
        expect(Object.keys(hook?.body as object)).toEqual(Object.keys(CardCallbackSchema.shape));

        const events = sqlite
          .prepare("SELECT transaction_id AS tx, merchant, data FROM events WHERE type = 'webhook'")
          .all() as Array<{
          tx: string;
          merchant: string;
          data: string;
        }>;
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ tx, merchant: "sandbox-mid-001" });
        const data = JSON.parse(events[0]?.data ?? "{}");
        expect(data).toMatchObject({ deliveryId: row.id, transactionId: tx, attempt: 1, httpStatus: 200 });
        expect(data).not.toHaveProperty("chaos");
      } finally {
        if (groupCommit) sqlite.close();
      }
    });
  }

  it("a delivery written behind one on the wire goes once that one is answered (written in flight)", async () => {
    s = makeServer({ groupCommit: true });
    // a receiver that holds its first request until told to answer
    const got: string[] = [];
    let answerFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => {
      answerFirst = resolve;
    });
    let arrived: () => void = () => undefined;
    const firstArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const hold = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        got.push(JSON.parse(Buffer.concat(chunks).toString("utf8")).transactionStatus);
        if (got.length === 1) {
          arrived();
          void firstHeld.then(() => res.end("ok"));
        } else res.end("ok");
      });
    });
    await new Promise<void>((resolve) => hold.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(hold.address() as AddressInfo).port}/hook`;
      const { base } = await s.create();
      const token = await s.token(base);
      const res = await s.http.post(`${base}/api/v1/payments/card`).set("Authorization", token).send(threeDsBody(url));
      expect(res.body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
      await firstArrived; // on the wire, unanswered
      // the challenge answered: its SUCCEED callback waits behind the first
      const answer = await s.http.post(`${base}/sandbox/3ds/${res.body.transactionId}`).type("form").send({ outcome: "success" });
      expect(answer.status).toBeLessThan(400);
      expect(got).toEqual(["CUSTOMER_VERIFICATION"]);
      answerFirst();
      const journal = async () => (await s!.http.get(`${base}/_sandbox/webhooks?transactionId=${res.body.transactionId}`)).body;
      // each journal read waits for the answers the sender has read (its read barrier); the second
      // delivery is claimed and sent when the first one's answer is recorded
      for (let i = 0; i < 500 && got.length < 2; i++) await journal();
      expect(got).toEqual(["CUSTOMER_VERIFICATION", "SUCCEED"]);
      const entries = await journal();
      expect(entries.map((e: { status: string }) => e.status)).toEqual(["delivered", "delivered"]);
    } finally {
      hold.closeAllConnections();
      await new Promise((resolve) => hold.close(resolve));
    }
  });

  it("card callbacks keep their fields in the order of their wire schemas", () => {
    const row = newTransactionRow(Date.UTC(2026, 0, 15), {
      id: "tx_1",
      merchantKey: "mk",
      kind: "card_payment",
      status: "SUCCEED",
      requestId: "r-1",
      cardBin: "411111",
      cardLast4: "1111",
      cardLength: 16,
      orderCurrency: "EUR",
      orderAmount: 2050,
      processedCurrency: "EUR",
      processedAmount: 2050,
    });
    const payment = presentCallback(row, { mid: "mid-1" });
    expect(Object.keys(payment)).toEqual(Object.keys(CardCallbackSchema.shape));
    expect(payment).toMatchObject({
      mid: "mid-1",
      cardMask: "411111******1111",
      orderAmount: 20.5,
      createdAt: "2026-01-15T00:00:00.000Z",
    });
    expect(Object.keys(presentPayout(row, { mid: "mid-1" }))).toEqual(Object.keys(PayoutInfoSchema.shape));
  });
});
