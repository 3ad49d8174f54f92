/**
 * `snapshot: FILE` at the top of a steps file (docs/snapshots.md, docs/run.md): each run of the file
 * starts its sandbox from that snapshot (its path relative to the steps file), in-process and with
 * `--target`; the file's own merchants load on top; a missing file or a `startTime` beside it is
 * exit 2 naming the key, a damaged snapshot fails the file with the server's reason.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";
import { payment, runCli } from "./runner.support.js";

const QA = { merchantKey: "qa_key", merchantSecret: "qa_secret", mid: "qa-mid", merchantId: 5001, accountId: 6001 };

let world: TestServer;
let orderId: string;
const dir = mkdtempSync(join(tmpdir(), "paysandbox-run-snapshot-"));

beforeAll(async () => {
  // the world: a sandbox with one paid order, saved beside the steps files
  world = makeServer();
  const made = await world.create({ name: "world" });
  const token = await world.token(made.base);
  const paid = await world.http.post(`${made.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
  orderId = paid.body.transactionId;
  const res = await world.server.fetch(new Request(`http://sandbox.test${made.base}/_sandbox/snapshot`));
  expect(res.status).toBe(200);
  writeFileSync(join(dir, "world.snapshot"), Buffer.from(await res.arrayBuffer()));
});
afterAll(() => world?.close());

/** A steps file in the folder of the snapshot. */
function stepsFile(name: string, doc: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, ...doc }, null, 2));
  return file;
}

const refundTheOrder = () => [
  {
    name: "the world's order, as saved",
    request: `GET /api/v1/payments/card/status/${orderId}`,
    expect: { status: 200, body: { transactionStatus: "SUCCEED" } },
  },
  {
    name: "refund it whole",
    request: "POST /v1/refunds/card",
    body: { requestId: "${uuid}", mid: "sandbox-mid-001", transactionId: orderId, amount: "20.50", reason: "run" },
    expect: { status: 200, body: { transactionStatus: "PENDING" } },
  },
];

describe("paysandbox run with snapshot:", () => {
  it("in-process: every run starts from the snapshot (the refund of one run is not in the next)", async () => {
    const file = stepsFile("refund", { snapshot: "world.snapshot", steps: refundTheOrder() });
    for (let i = 0; i < 2; i++) {
      const r = await runCli([file]);
      expect(r.code, r.out + r.err).toBe(0);
      expect(r.out).toContain("2 passed, 0 failed");
      expect(r.out).toContain(`${file} (refund, in-process sandbox from world.snapshot)`);
    }
  });

  it("the file's merchants load on top of the snapshot, and its steps act as them", async () => {
    const file = stepsFile("on-top", {
      snapshot: "./world.snapshot",
      merchants: [QA],
      // a step without `as` acts as the file's first merchant, as always: the world's order is the built-in one's
      steps: [
        ...refundTheOrder().map((step) => ({ as: "sandbox_merchant_key", ...step })),
        { as: "qa_key", request: "POST /api/v1/payments/card", body: payment({ mid: "qa-mid" }), expect: { status: 200 } },
      ],
    });
    const r = await runCli([file]);
    expect(r.code, r.out + r.err).toBe(0);
  });

  it("--target: the file's sandbox on the server starts from the snapshot and is deleted after", async () => {
    const server = makeServer();
    const http = createServer(getRequestListener(server.server.fetch));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const file = stepsFile("refund-target", { snapshot: "world.snapshot", steps: refundTheOrder() });
      const r = await runCli([file, file], { target: url });
      expect(r.code, r.out + r.err).toBe(0);
      expect(r.out).toContain("4 passed, 0 failed");
      expect(r.out).toContain(`${file} (refund-target, ${url}, from world.snapshot)`);
      expect((await server.http.get("/_sandbox/sandboxes")).body).toEqual([]);
    } finally {
      await new Promise((resolve) => http.close(resolve));
      await server.close();
    }
  });

  it("a missing snapshot, or startTime beside it → exit 2 naming the key; nothing runs", async () => {
    const missing = stepsFile("missing", { snapshot: "nowhere.snapshot", steps: refundTheOrder() });
    const r = await runCli([missing]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`snapshot: no such file: ${join(dir, "nowhere.snapshot")}`);
    const timed = stepsFile("timed", { snapshot: "world.snapshot", startTime: "2026-01-01T00:00:00Z", steps: refundTheOrder() });
    const t = await runCli([timed]);
    expect(t.code).toBe(2);
    expect(t.err).toContain("startTime: not with snapshot");
  });

  it("a damaged snapshot → the file fails with the server's reason", async () => {
    writeFileSync(join(dir, "damaged.snapshot"), "PAYSBXSN but nothing after");
    const file = stepsFile("damaged", { snapshot: "damaged.snapshot", steps: refundTheOrder() });
    const r = await runCli([file]);
    expect(r.code).toBe(1);
    expect(r.out + r.err).toMatch(/Invalid snapshot: truncated/);
  });
  it("a webhook step expects the source's pending delivery as skipped in the copy", async () => {
    // a source whose payment's webhook is still pending (its receiver refuses, so it waits for a retry)
    const source = await world.create({ name: "pending" });
    const token = await world.token(source.base);
    const paid = await world.http
      .post(`${source.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ callbackUrl: "http://127.0.0.1:9/hook" }));
    expect(paid.status).toBe(200);
    const res = await world.server.fetch(new Request(`http://sandbox.test${source.base}/_sandbox/snapshot`));
    writeFileSync(join(dir, "pending.snapshot"), Buffer.from(await res.arrayBuffer()));
    const file = stepsFile("skipped", {
      snapshot: "pending.snapshot",
      steps: [{ webhook: { transactionId: paid.body.transactionId, delivery: "skipped" } }],
    });
    const r = await runCli([file]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain("1 passed, 0 failed");
  });
});
