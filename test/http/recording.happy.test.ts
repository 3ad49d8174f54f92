/**
 * docs/recording.md: `GET /_sandbox/recording` on createApp (a ManualClock, `:memory:`): what a call
 * leaves in the recording (a card as its mask, never the number or CVV), the steps file it makes
 * (YAML with its comments, JSON on request, valid as a scenario document), `from`/`to`, a reset
 * starting it over, the retention, SANDBOX_RECORDING_KEEP=0, the admin token, and each sandbox's own.
 */

import { afterEach, describe, expect, it } from "vitest";
import { scenarioSchema } from "../../src/scenarios/scenario.schema.js";
import { makeSandbox, makeServer, type TestSandbox, type TestServer } from "../helpers/harness.js";
import { readStrict } from "../helpers/strict-yaml.js";
import { CARDS, cardPaymentBody } from "./payments.body.js";

let s: TestSandbox | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await server?.close();
  s = undefined;
  server = undefined;
});

const recorded = (sandbox: TestSandbox) =>
  sandbox.ctx.db.$client.prepare("SELECT kind, method, path, body, status FROM recorded_calls ORDER BY id").all() as Array<{
    kind: string;
    method: string;
    path: string;
    body: string | null;
    status: number;
  }>;

async function pay(sandbox: TestSandbox, token: string, over: Record<string, unknown> = {}) {
  return sandbox.http.post("/api/v1/payments/card").set("authorization", token).send(cardPaymentBody(over));
}

describe("GET /_sandbox/recording (docs/recording.md)", () => {
  it("records a call with its card masked and its CVV dropped, and answers a steps file that validates", async () => {
    s = makeSandbox();
    const token = await s.token();
    const paid = await pay(s, token, { card: { number: CARDS.declined } });
    expect(paid.body.transactionStatus).toBe("FAILED");
    await s.http.get(`/api/v1/payments/card/status/${paid.body.transactionId}`).set("authorization", token);
    await s.http.post("/_sandbox/clock/advance").send({ by: "P1D" }).expect(200);

    const rows = recorded(s);
    expect(rows.map((r) => `${r.kind} ${r.method} ${r.path.split("/").slice(0, 5).join("/")}`)).toEqual([
      "request POST /api/v1/payments/card",
      "request GET /api/v1/payments/card",
      "advance POST /_sandbox/clock/advance",
    ]);
    const stored = rows.map((r) => r.body ?? "").join("\n");
    expect(stored).toContain("400000******0002");
    expect(stored).not.toContain(CARDS.declined);
    expect(stored).not.toContain("cvv");

    const res = await s.http.get("/_sandbox/recording");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/yaml/);
    expect(res.text).toMatch(/^# Recorded by paysandbox in http:\/\/sandbox\.test: 3 calls/);
    const doc = readStrict(res.text);
    expect(scenarioSchema.safeParse(doc).success).toBe(true);
    expect(doc.startTime).toBe("2026-01-15T12:00:00.000Z");
    expect(doc.steps).toEqual([
      expect.objectContaining({
        name: "card payment → FAILED",
        request: "POST /api/v1/payments/card",
        body: expect.objectContaining({
          requestId: "${uuid}",
          card: expect.objectContaining({ number: CARDS.declined, cvv: "123" }),
        }),
        expect: { status: 200, body: { transactionStatus: "FAILED", declineCode: 2 } },
        save: "payment1",
      }),
      expect.objectContaining({
        name: "card payment status → FAILED",
        request: "GET /api/v1/payments/card/status/${payment1.transactionId}",
      }),
      { name: "advance P1D", advance: "P1D" },
    ]);

    const json = await s.http.get("/_sandbox/recording").set("accept", "application/json");
    expect(json.headers["content-type"]).toMatch(/^application\/json/);
    expect(json.body.steps).toEqual(doc.steps);
    expect(scenarioSchema.safeParse(json.body).success).toBe(true);
  });

  it("a card that is no test card stays a mask, with a comment saying the step cannot replay as is", async () => {
    s = makeSandbox();
    const token = await s.token();
    await pay(s, token, { card: { number: "6011000990139424" } });
    const res = await s.http.get("/_sandbox/recording");
    expect(res.text).toContain("# card 601100******9424 is no test card of this sandbox: this step cannot replay as is");
    expect(res.text).toContain("number: 601100******9424");
    expect(res.text).not.toContain("6011000990139424");
  });

  it("from and to pick the calls of a span of virtual time; a bad one is a 400 naming it", async () => {
    s = makeSandbox();
    const token = await s.token();
    await pay(s, token);
    s.clock.advance(3_600_000);
    await pay(s, token, { amount: "30.00" });
    const later = readStrict((await s.http.get("/_sandbox/recording?from=2026-01-15T12:30:00Z")).text);
    expect(later.steps.map((x: { body?: { amount: string } }) => x.body?.amount)).toEqual(["30.00"]);
    const earlier = readStrict((await s.http.get("/_sandbox/recording?to=2026-01-15T12:30:00Z")).text);
    expect(earlier.steps.map((x: { body?: { amount: string } }) => x.body?.amount)).toEqual(["20.50"]);
    const bad = await s.http.get("/_sandbox/recording?from=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toContain("from");
  });

  it("a reset starts the recording over; auth, health, pages read and the recording itself are not recorded", async () => {
    s = makeSandbox();
    const token = await s.token();
    await pay(s, token);
    await s.http.post("/_sandbox/reset").send({}).expect(200);
    expect(recorded(s)).toEqual([]);
    await s.token();
    await s.http.get("/_sandbox/health");
    await s.http.get("/_sandbox/recording");
    await s.http.get("/_sandbox/clock");
    expect(recorded(s)).toEqual([]);
  });

  it("SANDBOX_RECORDING_KEEP: the newest calls are kept; 0 records nothing", async () => {
    s = makeSandbox({ config: { recordingKeep: 0 } });
    const token = await s.token();
    await pay(s, token);
    expect(recorded(s)).toEqual([]);
    await s.close();
    s = makeSandbox({ config: { recordingKeep: 10 } });
    const t2 = await s.token();
    for (let i = 0; i < 260; i++) await s.http.get("/api/v1/payments/card/status/tx_none").set("authorization", t2);
    const n = recorded(s).length;
    expect(n).toBeGreaterThanOrEqual(10);
    expect(n).toBeLessThan(260);
  });

  it("with SANDBOX_ADMIN_TOKEN the recording needs it", async () => {
    s = makeSandbox({ config: { adminToken: "adm" } });
    expect((await s.http.get("/_sandbox/recording")).status).toBe(401);
    expect((await s.http.get("/_sandbox/recording").set("authorization", "Bearer adm")).status).toBe(200);
  });

  it("each sandbox records only its own calls", async () => {
    server = makeServer();
    const a = await server.create();
    const b = await server.create();
    const token = await server.token(a.base);
    await server.http.post(`${a.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
    const inA = readStrict((await server.http.get(`${a.base}/_sandbox/recording`)).text);
    const inB = readStrict((await server.http.get(`${b.base}/_sandbox/recording`)).text);
    const inRoot = readStrict((await server.http.get("/_sandbox/recording")).text);
    expect(inA.steps).toHaveLength(1);
    expect(inB.steps).toEqual([]);
    expect(inRoot.steps).toEqual([]);
  });
});

describe("the dashboard and the recording (docs/dashboard.md, docs/recording.md)", () => {
  it("records its buttons as the control-plane calls they stand for, and offers the file to download", async () => {
    s = makeSandbox({ config: { adminToken: undefined } });
    const token = await s.token();
    const held = await pay(s, token, { amount: "13.37" });
    expect(held.status).toBe(200);
    // a PROCESSING outcome by rule, completed with the dashboard's button
    await s.http.post("/_sandbox/scenarios").send({ name: "hold", rules: [{ amount: "9.99", status: "PROCESSING" }] });
    const waiting = await pay(s, token, { amount: "9.99", callbackUrl: "http://127.0.0.1:9/hooks" });
    expect(waiting.body.transactionStatus).toBe("PROCESSING");
    const id = waiting.body.transactionId as string;
    const origin = "http://sandbox.test";
    await s.http
      .post(`/dashboard/transactions/${id}/complete`)
      .set("origin", origin)
      .type("form")
      .send({ status: "FAILED", declineCode: "5" })
      .expect(303);
    await s.http.post("/dashboard/clock/advance").set("origin", origin).type("form").send({ by: "PT1H", back: "/" }).expect(303);
    const journal = await s.http.get(`/_sandbox/webhooks?transactionId=${id}`);
    const first = journal.body.at(-1).id as string;
    await s.http.post(`/dashboard/webhooks/${first}/replay`).set("origin", origin).type("form").send({ back: "/" }).expect(303);

    const download = await s.http.get("/dashboard/recording");
    expect(download.status).toBe(200);
    expect(download.headers["content-disposition"]).toBe('attachment; filename="recording.yaml"');
    const doc = readStrict(download.text);
    expect(recorded(s).map((r) => `${r.kind} ${r.method} ${r.path.replace(/_0+\d/g, "_…")}`)).toEqual([
      "request POST /api/v1/payments/card",
      "request POST /api/v1/payments/card",
      "request POST /_sandbox/transactions/tx_…/complete",
      "advance POST /_sandbox/clock/advance",
      "request GET /_sandbox/webhooks?transactionId=tx_…",
      "request POST /_sandbox/webhooks/wh_…/replay",
    ]);
    const actions = doc.steps
      .map((x: Record<string, unknown>) => x.request ?? (x.advance ? `advance ${x.advance}` : undefined))
      .filter(Boolean);
    expect(actions).toContain("POST /_sandbox/transactions/${payment1.transactionId}/complete");
    expect(actions).toContain("advance PT1H");
    expect(actions.some((a: string) => /^POST \/_sandbox\/webhooks\/\$\{journal1\.\d+\.id\}\/replay$/.test(a))).toBe(true);
    expect(download.text).not.toMatch(/wh_\w+\/replay|tx_\w+\/complete/);
    const page = await s.http.get("/").set("accept", "text/html");
    expect(page.text).toContain('href="/dashboard/recording"');
  });
});
