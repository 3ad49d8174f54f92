/**
 * docs/recording.md: only calls that passed authentication are recorded. A refused call (no or a
 * wrong merchant token, no admin token, wrong report credentials) leaves nothing in the recording,
 * so anonymous traffic can neither add steps to a session nor push it out of the newest `keep`.
 */
import { afterEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestSandbox | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const ADMIN = { authorization: "Bearer s3cret" };
const rows = (sandbox: TestSandbox) =>
  sandbox.ctx.db.$client.prepare("SELECT kind, method, path, status FROM recorded_calls ORDER BY id").all() as Array<{
    kind: string;
    method: string;
    path: string;
    status: number;
  }>;

describe("the recording holds only authenticated calls", () => {
  it("an advance refused for want of the admin token is not recorded; the same with it is", async () => {
    s = makeSandbox({ config: { adminToken: "s3cret" } });
    const refused = await s.app.request("/_sandbox/clock/advance", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ by: "P1D" }),
    });
    expect(refused.status).toBe(401);
    expect(rows(s)).toEqual([]);
    const recording = await s.app.request("/_sandbox/recording", { headers: ADMIN });
    expect(YAML.parse(await recording.text()).steps ?? []).toEqual([]);

    const ok = await s.app.request("/_sandbox/clock/advance", {
      method: "POST",
      headers: { ...ADMIN, "content-type": "application/json" },
      body: JSON.stringify({ by: "PT1H" }),
    });
    expect(ok.status).toBe(200);
    expect(rows(s)).toEqual([{ kind: "advance", method: "POST", path: "/_sandbox/clock/advance", status: 200 }]);
  });

  it("20,000 refused calls leave a recorded session whole (keep = 10,000)", async () => {
    s = makeSandbox({ config: { adminToken: "s3cret" } });
    const sandbox = s;
    expect(sandbox.ctx.recorder.keep).toBe(10_000);
    const token = await sandbox.token();
    const pay = await sandbox.http.post("/api/v1/payments/card").set("authorization", token).send(cardPaymentBody());
    expect(pay.status).toBe(200);
    const status = await sandbox.app.request(`/api/v1/payments/card/status/${pay.body.transactionId}`, {
      headers: { authorization: token },
    });
    expect(status.status).toBe(200);
    const session = rows(sandbox);
    expect(session.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/v1/payments/card",
      `GET /api/v1/payments/card/status/${pay.body.transactionId}`,
    ]);

    const json = { "content-type": "application/json" };
    const refusals: Array<[string, RequestInit]> = [
      ["/api/v1/payments/card", { method: "POST", headers: json, body: JSON.stringify(cardPaymentBody()) }],
      ["/v1/payments/card/status/tx_1", { headers: { authorization: "Bearer not.a.token" } }],
      ["/api/v1/payments/card", { method: "POST", headers: { ...json, authorization: `${token}x` }, body: "{}" }],
      ["/_sandbox/clock/advance", { method: "POST", headers: json, body: JSON.stringify({ by: "P1D" }) }],
      ["/_sandbox/webhooks", { headers: { authorization: "Bearer wrong" } }],
      [
        "/api/v1/report-generator/s2s",
        { method: "POST", headers: { ...json, "x-merchant-key": "nobody", "x-merchant-secret": "nothing" }, body: "{}" },
      ],
    ];
    for (let i = 0; i < 20_000; i++) {
      const [path, init] = refusals[i % refusals.length] as [string, RequestInit];
      const res = await sandbox.app.request(path, init);
      if (res.status !== 401) throw new Error(`${path} answered ${res.status}, not 401`);
    }
    expect(rows(sandbox)).toEqual(session);
    const recording = await sandbox.app.request("/_sandbox/recording", { headers: ADMIN });
    const doc = YAML.parse(await recording.text());
    expect(doc.steps.map((step: { request?: string }) => step.request)).toEqual([
      "POST /api/v1/payments/card",
      "GET /api/v1/payments/card/status/${payment1.transactionId}",
    ]);
  }, 60_000);
});
