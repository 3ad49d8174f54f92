/**
 * GET /_sandbox/coverage (docs/coverage.md): every behaviour of the catalogue with how often it was seen
 * and where first, counted from the event log and the few notes the code makes; since the last
 * reset; a copy starts with its source's; the fold runs behind the requests and before the
 * retention; turning the recording off changes nothing. Every answer is checked against /openapi.json.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FOLD_AT } from "../../src/coverage/coverage.service.js";
import type { CoverageReport } from "../../src/coverage/coverage.wire.js";
import { inTransaction } from "../../src/db/client.js";
import { makeSandbox, makeServer, T0, type TestSandbox, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody, threeDsBody } from "./payments.body.js";

let s: TestSandbox | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await server?.close();
  s = undefined;
  server = undefined;
});

const count = (r: CoverageReport, id: string) => r.behaviours.find((b) => b.id === id)?.count ?? 0;
const first = (r: CoverageReport, id: string) => r.behaviours.find((b) => b.id === id)?.first;

/** `n` approved card payments' events, written as the lifecycle writes them (docs/events.md), in one transaction. */
function writeApproved(t: TestSandbox, n: number): void {
  inTransaction(t.ctx.db, () => {
    for (let i = 0; i < n; i++) {
      t.ctx.events.transaction(
        { id: `tx_${i}`, kind: "card_payment", status: "SUCCEED", declineCode: null, updatedAt: T0 },
        "sandbox-mid-001",
      );
    }
  });
}

/** A few turns of the event loop: what runs after a commit has run. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function report(t: { http: TestSandbox["http"] }, base = ""): Promise<CoverageReport> {
  const res = await t.http.get(`${base}/_sandbox/coverage`);
  expect(res.status).toBe(200);
  return res.body as CoverageReport;
}

describe("GET /_sandbox/coverage", () => {
  it("a fresh sandbox: every behaviour listed with its hint, none seen, totals by area add up", async () => {
    s = makeSandbox();
    const r = await report(s);
    expect(r.seen).toBe(0);
    expect(r.percent).toBe(0);
    expect(r.total).toBe(r.behaviours.length);
    expect(r.unseen).toHaveLength(r.total);
    expect(r.areas.reduce((n, a) => n + a.total, 0)).toBe(r.total);
    for (const b of r.behaviours) {
      expect(b.id).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      expect(b.hint.length).toBeGreaterThan(10);
      expect(b.first).toBeNull();
    }
  });

  it("counts what happened: kinds and statuses with their decline codes, the 3DS challenge's end, first evidence and when", async () => {
    s = makeSandbox();
    const auth = await s.token();
    const pay = (body: object) => s!.http.post("/api/v1/payments/card").set("authorization", auth).send(body);
    const ok = await pay(cardPaymentBody());
    await pay(cardPaymentBody());
    await pay(cardPaymentBody({ card: { number: "4000000000000002" } }));
    const challenged = await pay(threeDsBody("http://127.0.0.1:9/cb"));
    s.clock.advance(60_000);
    const form = await s.http.post(`/sandbox/3ds/${challenged.body.transactionId}`).type("form").send({ outcome: "success" });
    expect(form.status).toBe(303);
    const r = await report(s);
    expect(count(r, "card.payment.succeed")).toBe(3);
    expect(first(r, "card.payment.succeed")).toEqual({ transactionId: ok.body.transactionId, at: "2026-01-15T12:00:00.000Z" });
    expect(count(r, "card.payment.failed.decline-2")).toBe(1);
    expect(count(r, "card.payment.customer-verification")).toBe(1);
    expect(count(r, "card.3ds.passed")).toBe(1);
    expect(first(r, "card.3ds.passed")).toEqual({ transactionId: challenged.body.transactionId, at: "2026-01-15T12:01:00.000Z" });
    expect(count(r, "card.3ds.failed")).toBe(0);
    expect(r.unseen).not.toContain("card.payment.succeed");
    expect(r.areas.find((a) => a.area === "card")?.seen).toBe(4);
    expect(r.seen).toBe(r.behaviours.filter((b) => b.count > 0).length);
  });

  it("error answers of the gateway are counted by kind, with the call; the control plane's are not", async () => {
    s = makeSandbox();
    const auth = await s.token();
    await s.http.get("/api/v1/payments/card/status/tx_nope").set("authorization", "Bearer nope");
    await s.http.get("/v1/payments/card/status/tx_nope").set("authorization", auth);
    await s.http
      .post("/api/v1/payments/card")
      .set("authorization", auth)
      .send(cardPaymentBody({ amount: "-1" }));
    await s.http.post("/_sandbox/clock/advance").send({ by: "yesterday" });
    await s.http.get("/_sandbox/webhooks/wh_nope");
    const r = await report(s);
    expect(count(r, "api.error.authentication")).toBe(1);
    expect(first(r, "api.error.authentication")?.request).toBe("GET /api/v1/payments/card/status/tx_nope");
    expect(count(r, "api.error.not-found")).toBe(1);
    expect(first(r, "api.error.not-found")?.request).toBe("GET /v1/payments/card/status/tx_nope");
    expect(count(r, "api.error.validation")).toBe(1);
  });

  it("a refusal a module owns is counted as itself: a refund over what is left; a replay and a conflict of a requestId", async () => {
    s = makeSandbox();
    const auth = await s.token();
    const body = cardPaymentBody();
    const paid = await s.http.post("/api/v1/payments/card").set("authorization", auth).send(body);
    const again = await s.http.post("/api/v1/payments/card").set("authorization", auth).send(body);
    expect(again.body.transactionId).toBe(paid.body.transactionId);
    const other = await s.http
      .post("/api/v1/payments/card")
      .set("authorization", auth)
      .send({ ...body, amount: "99.00" });
    expect(other.status).toBe(409);
    const refund = await s.http.post("/api/v1/refunds/card").set("authorization", auth).send({
      requestId: "rf-1",
      mid: "sandbox-mid-001",
      transactionId: paid.body.transactionId,
      amount: "20.51",
      reason: "too much",
    });
    expect(refund.status).toBe(400);
    const r = await report(s);
    expect(count(r, "idempotency.replayed")).toBe(1);
    expect(first(r, "idempotency.replayed")?.transactionId).toBe(paid.body.transactionId);
    expect(count(r, "idempotency.conflict")).toBe(1);
    expect(count(r, "api.error.conflict")).toBe(1);
    expect(count(r, "refund.refused.over-remainder")).toBe(1);
    expect(first(r, "refund.refused.over-remainder")?.request).toBe("POST /api/v1/refunds/card");
    // the refused refund changed nothing: no refund exists
    expect(count(r, "refund.pending")).toBe(0);
  });

  it("counts since the last reset: a reset empties it, and what came before it is never folded again", async () => {
    s = makeSandbox();
    const auth = await s.token();
    await s.http.post("/api/v1/payments/card").set("authorization", auth).send(cardPaymentBody());
    await s.http.get("/v1/payments/card/status/tx_nope").set("authorization", auth);
    expect(count(await report(s), "card.payment.succeed")).toBe(1);
    // a payment after the last read, before the reset: never counted after it
    await s.http.post("/api/v1/payments/card").set("authorization", auth).send(cardPaymentBody());
    expect((await s.http.post("/_sandbox/reset").send({})).status).toBe(200);
    let r = await report(s);
    expect(r.seen).toBe(0);
    const again = await s.token();
    await s.http.post("/api/v1/payments/card").set("authorization", again).send(cardPaymentBody());
    r = await report(s);
    expect(count(r, "card.payment.succeed")).toBe(1);
    expect(r.seen).toBe(1);
  });

  it("a reset moves the fold past it, however many events wait unfolded before it", async () => {
    s = makeSandbox();
    // a read that folds one: the fold has a place of its own to go on from
    writeApproved(s, 1);
    expect((await report(s)).seen).toBe(1);
    // more than one fold step's worth, fewer than the background fold waits for
    writeApproved(s, FOLD_AT - 8);
    await turns(3);
    expect((await s.http.post("/_sandbox/reset").send({})).status).toBe(200);
    const r = await report(s);
    expect(count(r, "card.payment.succeed")).toBe(0);
    expect(r.seen).toBe(0);
  });

  it("turning the recording off changes nothing: coverage reads the event log and its own notes", async () => {
    s = makeSandbox({ config: { recordingKeep: 0 } });
    const auth = await s.token();
    const body = cardPaymentBody();
    await s.http.post("/api/v1/payments/card").set("authorization", auth).send(body);
    await s.http.post("/api/v1/payments/card").set("authorization", auth).send(body);
    await s.http.get("/api/v1/payments/card/status/tx_nope").set("authorization", "Bearer nope");
    const r = await report(s);
    expect(count(r, "card.payment.succeed")).toBe(1);
    expect(count(r, "idempotency.replayed")).toBe(1);
    expect(count(r, "api.error.authentication")).toBe(1);
  });

  it(`folds behind the requests once ${FOLD_AT} events wait, without a read`, async () => {
    s = makeSandbox();
    const folded = () =>
      s!.ctx.db.$client.prepare("SELECT count FROM coverage_seen WHERE behaviour = 'card.payment.succeed'").pluck().get() as
        | number
        | undefined;
    writeApproved(s, FOLD_AT - 1);
    await turns(3);
    expect(folded()).toBeUndefined();
    writeApproved(s, 2);
    await turns(3);
    expect(folded()).toBe(FOLD_AT + 1);
  });

  it("folds the events the retention is about to delete first: none is lost", async () => {
    s = makeSandbox({ config: { eventsKeep: 100 } });
    writeApproved(s, 500);
    // once the log knows them committed (a microtask), and far under the background fold's threshold
    await Promise.resolve();
    s.ctx.events.pruneNow();
    const oldest = s.ctx.db.$client.prepare("SELECT min(id) FROM events").pluck().get() as number;
    expect(oldest).toBeGreaterThan(300);
    expect(count(await report(s), "card.payment.succeed")).toBe(500);
  });

  it("a database from before coverage counts from its last reset", async () => {
    s = makeSandbox();
    const auth = await s.token();
    await s.http.post("/api/v1/payments/card").set("authorization", auth).send(cardPaymentBody());
    await s.http.post("/_sandbox/reset").send({});
    const again = await s.token();
    await s.http
      .post("/api/v1/payments/card")
      .set("authorization", again)
      .send(cardPaymentBody({ card: { number: "4000000000000002" } }));
    // as a database that never had coverage: no rows, no cursor
    s.ctx.db.$client.exec("DELETE FROM coverage_seen; DELETE FROM sandbox_state WHERE key = 'coverage_folded_to'");
    const r = await report(s);
    expect(count(r, "card.payment.succeed")).toBe(0);
    expect(count(r, "card.payment.failed.decline-2")).toBe(1);
  });
});

describe("coverage of copies (docs/coverage.md#forks-and-snapshots)", () => {
  it("a fork starts with its source's coverage, folded or not; its own goes on apart; reset {snapshot} puts it back", async () => {
    server = makeServer({ start: T0 });
    const src = await server.create();
    const auth = await server.token(src.base);
    const pay = (base: string, token: string, body: object) =>
      server!.http.post(`${base}/api/v1/payments/card`).set("authorization", token).send(body);
    await pay(src.base, auth, cardPaymentBody());
    expect(count(await report(server, src.base), "card.payment.succeed")).toBe(1);
    // after the source's last read: in its log, not yet folded when the copy is made
    await pay(src.base, auth, cardPaymentBody({ card: { number: "4000000000000002" } }));
    const copy = await server.create({ from: src.id });
    let r = await report(server, copy.base);
    expect(count(r, "card.payment.succeed")).toBe(1);
    expect(count(r, "card.payment.failed.decline-2")).toBe(1);
    // the copy's own, and the source's own, apart
    await pay(copy.base, auth, cardPaymentBody());
    await pay(src.base, auth, cardPaymentBody({ card: { number: "4000000000003220" }, callbackUrl: "http://127.0.0.1:9/cb" }));
    r = await report(server, copy.base);
    expect(count(r, "card.payment.succeed")).toBe(2);
    expect(count(r, "card.payment.customer-verification")).toBe(0);
    expect(count(await report(server, src.base), "card.payment.succeed")).toBe(1);
    // back to the snapshot: what the source had seen when the copy was made, no more
    expect((await server.http.post(`${copy.base}/_sandbox/reset`).send({ snapshot: true })).status).toBe(200);
    r = await report(server, copy.base);
    expect(count(r, "card.payment.succeed")).toBe(1);
    expect(count(r, "card.payment.failed.decline-2")).toBe(1);
    // a plain reset empties it
    expect((await server.http.post(`${copy.base}/_sandbox/reset`).send({})).status).toBe(200);
    expect((await report(server, copy.base)).seen).toBe(0);
  });
});
