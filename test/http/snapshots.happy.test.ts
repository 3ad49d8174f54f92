/**
 * docs/snapshots.md: a sandbox's whole state as one file, forks of a running sandbox (or the root),
 * sandboxes started from a file, and a copy's reset back to its snapshot.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";
import { binary, SNAPSHOT } from "./snapshots.support.js";

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

async function snapshotOf(base: string): Promise<Buffer> {
  const res = await s.http.get(`${base}/_sandbox/snapshot`).buffer(true).parse(binary);
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toBe(SNAPSHOT);
  return res.body as Buffer;
}

async function pay(base: string, token: string) {
  const res = await s.http.post(`${base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

describe("GET /_sandbox/snapshot", () => {
  it("answers the sandbox's state as one file with a versioned header", async () => {
    s = makeServer();
    const sb = await s.create({ startTime: "2027-03-01T00:00:00Z" });
    const file = await snapshotOf(sb.base);
    expect(file.subarray(0, 8).toString("latin1")).toBe("PAYSBXSN");
    expect(file.readUInt16BE(8)).toBe(1);
    expect(file.readDoubleBE(24)).toBe(Date.UTC(2027, 2, 1));
    const root = await snapshotOf("");
    expect(root.subarray(0, 8).toString("latin1")).toBe("PAYSBXSN");
  });
});

describe("POST /_sandbox/sandboxes {from}", () => {
  it("copies a sandbox's state at this instant, its clock at the source's now; both go on independently", async () => {
    s = makeServer();
    const src = await s.create({ startTime: "2027-03-01T00:00:00Z" });
    const token = await s.token(src.base);
    const tx = await pay(src.base, token);
    await s.http.post(`${src.base}/_sandbox/clock/advance`).send({ by: "P3D" }).expect(200);
    const fork = await s.http.post("/_sandbox/sandboxes").send({ from: src.id, name: "fork" });
    expect(fork.status).toBe(201);
    expect(fork.body).toMatchObject({
      name: "fork",
      now: "2027-03-04T00:00:00.000Z",
      merchant: { merchantKey: "sandbox_merchant_key" },
    });
    const base = new URL(fork.body.baseUrl).pathname;
    // the source's token and transaction work in the copy
    const got = await s.http.get(`${base}/api/v1/payments/card/status/${tx}`).set("authorization", token);
    expect(got.status).toBe(200);
    expect(got.body.transactionId).toBe(tx);
    // both go on independently
    const inCopy = await pay(base, token);
    expect((await s.http.get(`${src.base}/api/v1/payments/card/status/${inCopy}`).set("authorization", token)).status).toBe(404);
    const inSource = await pay(src.base, token);
    expect((await s.http.get(`${base}/api/v1/payments/card/status/${inSource}`).set("authorization", token)).status).toBe(404);
  });

  it("forks a sandbox the server has closed (idle): it is opened to be copied", async () => {
    s = makeServer({ idleMs: 1_000 });
    const src = await s.create({ startTime: "2027-03-01T00:00:00Z" });
    const token = await s.token(src.base);
    const tx = await pay(src.base, token);
    s.wall.advance(5_000);
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBe(0);
    const fork = await s.http.post("/_sandbox/sandboxes").send({ from: src.id });
    expect(fork.status).toBe(201);
    expect(fork.body.now).toBe("2027-03-01T00:00:05.000Z");
    const base = new URL(fork.body.baseUrl).pathname;
    expect((await s.http.get(`${base}/api/v1/payments/card/status/${tx}`).set("authorization", token)).status).toBe(200);
  });

  it("forks the root", async () => {
    s = makeServer();
    const token = await s.token("");
    const tx = await pay("", token);
    const fork = await s.http.post("/_sandbox/sandboxes").send({ from: "root" });
    expect(fork.status).toBe(201);
    expect(fork.body.now).toBe(s.server.root.clock.now().toISOString());
    const base = new URL(fork.body.baseUrl).pathname;
    expect((await s.http.get(`${base}/api/v1/payments/card/status/${tx}`).set("authorization", token)).status).toBe(200);
    // the root's registry rows are not the copy's
    expect((await s.http.get("/_sandbox/sandboxes")).body).toHaveLength(1);
  });
});

describe("POST /_sandbox/sandboxes with a snapshot body", () => {
  it("starts a new sandbox from the file, with the same answer as a create", async () => {
    s = makeServer();
    const src = await s.create({ startTime: "2027-03-01T00:00:00Z" });
    const token = await s.token(src.base);
    const tx = await pay(src.base, token);
    const file = await snapshotOf(src.base);
    const res = await s.http.post("/_sandbox/sandboxes?name=loaded&ttl=PT5M").set("content-type", SNAPSHOT).send(file);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "loaded", now: "2027-03-01T00:00:00.000Z" });
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(300_000);
    const base = new URL(res.body.baseUrl).pathname;
    expect((await s.http.get(`${base}/api/v1/payments/card/status/${tx}`).set("authorization", token)).status).toBe(200);
  });
});

describe("POST {base}/_sandbox/reset {snapshot: true}", () => {
  it("puts a copy back to the state it was made from; a sandbox that is no copy resets as before", async () => {
    s = makeServer();
    const src = await s.create({ startTime: "2027-03-01T00:00:00Z" });
    const token = await s.token(src.base);
    const tx = await pay(src.base, token);
    const fork = await s.http.post("/_sandbox/sandboxes").send({ from: src.id });
    const base = new URL(fork.body.baseUrl).pathname;
    const later = await pay(base, token);
    await s.http.post(`${base}/_sandbox/clock/advance`).send({ by: "P1D" }).expect(200);
    const reset = await s.http.post(`${base}/_sandbox/reset`).send({ snapshot: true });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ status: "reset", now: "2027-03-01T00:00:00.000Z" });
    expect((await s.http.get(`${base}/api/v1/payments/card/status/${tx}`).set("authorization", token)).status).toBe(200);
    expect((await s.http.get(`${base}/api/v1/payments/card/status/${later}`).set("authorization", token)).status).toBe(404);
    // the source is no copy: as before
    const plain = await s.http.post(`${src.base}/_sandbox/reset`).send({ snapshot: true });
    expect(plain.status).toBe(200);
    const token2 = await s.token(src.base);
    expect((await s.http.get(`${src.base}/api/v1/payments/card/status/${tx}`).set("authorization", token2)).status).toBe(404);
  });
});
