import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN, makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
afterEach(() => s?.close());

describe("control plane", () => {
  it("reports health", async () => {
    s = makeSandbox();
    const res = await s.http.get("/_sandbox/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("reads the clock without changing it", async () => {
    s = makeSandbox();
    const a = await s.http.get("/_sandbox/clock");
    const b = await s.http.get("/_sandbox/clock");
    expect(a.body).toEqual({ now: new Date(T0).toISOString(), scale: 0 });
    expect(b.body).toEqual(a.body);
  });

  it("advances by a duration and to an instant", async () => {
    s = makeSandbox();
    const by = await s.http.post("/_sandbox/clock/advance").send({ by: "P1DT2H" });
    expect(by.status).toBe(200);
    expect(by.body).toMatchObject({
      now: new Date(T0 + 26 * 3600_000).toISOString(),
      ran: { ticks: (26 * 60) / 5, charges: 0, deliveries: 0, completions: 0 },
    });
    const to = await s.http.post("/_sandbox/clock/advance").send({ to: "2027-01-01T00:00:00Z" });
    expect(to.body.now).toBe("2027-01-01T00:00:00.000Z");
    const month = await s.http.post("/_sandbox/clock/advance").send({ by: "P1M" });
    expect(month.body.now).toBe("2027-02-01T00:00:00.000Z");
  });

  it("refuses to go backwards or take a bad duration, and changes nothing", async () => {
    s = makeSandbox();
    const cases: Array<[object, string | RegExp]> = [
      [{ to: "2020-01-01T00:00:00Z" }, /Invalid field: to/],
      [{ to: "soon" }, "Invalid field: to"],
      [{ by: "1 day" }, "Invalid field: by"],
      [{ by: "-P1D" }, "Invalid field: by"],
      [{}, /Missing required field: by/],
      [{ by: "P1D", to: "2030-01-01" }, "Invalid field: to"],
      [{ by: "P101Y" }, /Invalid field: by \(at most 100 years/],
      [{ to: "9999-12-31T00:00:00Z" }, /Invalid field: to \(the clock cannot pass 9999-01-01/],
    ];
    for (const [body, message] of cases) {
      const res = await s.http.post("/_sandbox/clock/advance").send(body);
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toMatch(message);
      expect(res.body.errors[0].message).not.toBe("invalid value");
    }
    expect(s.clock.nowMs()).toBe(T0);
  });

  it("reset drops scenario merchants, keeps the built-in one, and puts the clock back to the start time", async () => {
    s = makeSandbox({ config: { startTime: Date.UTC(2026, 5, 1) } });
    await s.http.post("/_sandbox/scenarios").send({
      name: "qa",
      merchants: [{ merchantKey: "qa_key", merchantSecret: "qa_secret", mid: "qa-mid", merchantId: 5001, accountId: 6001 }],
    });
    await s.http.post("/_sandbox/clock/advance").send({ by: "P10D" });
    const res = await s.http.post("/_sandbox/reset");
    expect(res.status).toBe(200);
    expect(res.body.now).toBe("2026-06-01T00:00:00.000Z");
    expect((await s.http.post("/api/v1/auth").send({ merchantKey: "qa_key", merchantSecret: "qa_secret" })).status).toBe(401);
    expect(await s.token()).toMatch(/^Bearer /);
    expect(s.ctx.merchants.byKey(BUILTIN.merchantKey)?.mid).toBe(BUILTIN.mid);
  });

  it("serves an OpenAPI 3.1 document with the gateway and the control plane, and a docs page", async () => {
    s = makeSandbox();
    const doc = await s.http.get("/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/auth",
        "/_sandbox/health",
        "/_sandbox/reset",
        "/_sandbox/clock",
        "/_sandbox/clock/advance",
        "/_sandbox/scenarios",
      ]),
    );
    expect(Object.keys(doc.body.paths).some((p) => p.startsWith("/v1/"))).toBe(false);
    const docs = await s.http.get("/docs");
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/openapi\.json/);
  });
});
