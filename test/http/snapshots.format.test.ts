/**
 * docs/snapshots.md: the file's format across versions. A snapshot whose database lacks this build's
 * newest migrations (an older paysandbox's) loads, migrated. A file of the current format is kept in
 * test/fixtures/ (snapshot-v1.paysandbox, a sandbox with a card payment and a token in it) so that the
 * next format version's tests load it: it loads here, with its payment, token and clock.
 * `SNAPSHOT_FIXTURE_WRITE=1 npx vitest run test/http/snapshots.format.test.ts` writes it again.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { migrationHashes, openDb } from "../../src/db/client.js";
import { MerchantService } from "../../src/modules/merchants/merchants.service.js";
import { writeSnapshot } from "../../src/snapshots/snapshot-file.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";
import { binary, SNAPSHOT } from "./snapshots.support.js";
import { chargeBody, tokenizeBody } from "./subscriptions.support.js";

const FIXTURE = new URL("../fixtures/snapshot-v1.paysandbox", import.meta.url).pathname;
const MIGRATIONS = new URL("../../src/db/migrations", import.meta.url).pathname;
/** What the fixture holds (written with it). */
const HELD = { now: "2027-06-01T00:03:00.000Z", orderId: "fixture-order-1" };

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

/** A migrations folder with only the first `n` of this build's. */
function olderMigrations(n: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), "paysandbox-migrations-")), "migrations");
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journal = JSON.parse(readFileSync(join(dir, "meta/_journal.json"), "utf8"));
  journal.entries = journal.entries.slice(0, n);
  writeFileSync(join(dir, "meta/_journal.json"), JSON.stringify(journal));
  return dir;
}

describe("a snapshot of an older paysandbox", () => {
  it("loads, its database migrated (the migrations it lacks run on it)", async () => {
    const ours = migrationHashes().length;
    const db = openDb(":memory:", { migrationsFolder: olderMigrations(ours - 1) });
    new MerchantService(db).seedBuiltin();
    // the older image's events still count their ids in sqlite_sequence (the newest migration drops AUTOINCREMENT)
    const hasNewest = () =>
      !/AUTOINCREMENT/.test(db.$client.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").pluck().get() as string);
    expect(hasNewest()).toBe(false);
    const file = writeSnapshot({
      migrations: ours - 1,
      nowMs: Date.UTC(2027, 0, 1),
      meta: { now: "2027-01-01T00:00:00.000Z", startMs: Date.UTC(2027, 0, 1), scenario: null, source: "sbx_older" },
      image: db.$client.serialize(),
    });
    db.$client.close();
    s = makeServer();
    const res = await s.http.post("/_sandbox/sandboxes").set("content-type", SNAPSHOT).send(file);
    expect(res.status).toBe(201);
    expect(res.body.now).toBe("2027-01-01T00:00:00.000Z");
    const base = new URL(res.body.baseUrl).pathname;
    // migrated: a payment is written with its event, counted by the coverage
    const token = await s.token(base);
    await s.http.post(`${base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody()).expect(200);
    const coverage = await s.http.get(`${base}/_sandbox/coverage`);
    expect(coverage.status).toBe(200);
    expect(coverage.body.behaviours.find((b: { id: string }) => b.id === "card.payment.succeed").count).toBe(1);
    // and a snapshot of it is of this build
    const again = await s.http.get(`${base}/_sandbox/snapshot`).buffer(true).parse(binary);
    expect((again.body as Buffer).readUInt16BE(10)).toBe(ours);
  });
});

describe("the fixture of format version 1 (test/fixtures/snapshot-v1.paysandbox)", () => {
  it.runIf(process.env.SNAPSHOT_FIXTURE_WRITE === "1")("is written from a sandbox with a payment and a token", async () => {
    s = makeServer();
    const sb = await s.create({ startTime: "2027-06-01T00:00:00Z" });
    const token = await s.token(sb.base);
    await s.http
      .post(`${sb.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ order: { orderId: HELD.orderId, title: "fixture" } }))
      .expect(200);
    await s.http.post(`${sb.base}/api/v1/payments/card/tokenize`).set("authorization", token).send(tokenizeBody()).expect(200);
    await s.http.post(`${sb.base}/_sandbox/clock/advance`).send({ by: "PT3M" }).expect(200);
    const res = await s.http.get(`${sb.base}/_sandbox/snapshot`).buffer(true).parse(binary);
    writeFileSync(FIXTURE, res.body as Buffer);
  });

  it("loads: its payment, its token and its clock are there", async () => {
    s = makeServer();
    const file = readFileSync(FIXTURE);
    expect(file.readUInt16BE(8)).toBe(1);
    const res = await s.http.post("/_sandbox/sandboxes?name=fixture").set("content-type", SNAPSHOT).send(file);
    expect(res.status).toBe(201);
    expect(res.body.now).toBe(HELD.now);
    const base = new URL(res.body.baseUrl).pathname;
    const token = await s.token(base);
    const report = await s.http.get(`${base}/_sandbox/webhooks`);
    expect(report.status).toBe(200);
    const recording = await s.http.get(`${base}/_sandbox/recording`).set("accept", "application/json");
    const text = JSON.stringify(recording.body);
    expect(text).toContain(HELD.orderId);
    expect(text).toContain("/api/v1/payments/card/tokenize");
    // its token works in a one-click payment
    // the token's id, as the test that built the world would have kept it (it is in the file's database)
    const tokens = /(tok_[0-9A-Za-z]{20})/.exec(file.toString("latin1"));
    expect(tokens).not.toBeNull();
    const pay = await s.http
      .post(`${base}/api/v1/payments/card/charge`)
      .set("authorization", token)
      .send(chargeBody(tokens![1]!, "http://127.0.0.1:9/cb"));
    expect(pay.status, JSON.stringify(pay.body)).toBe(200);
  });
});
