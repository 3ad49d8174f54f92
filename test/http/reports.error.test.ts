import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN, makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";
import { insertTx, REPORT, report } from "./reports.support.js";

let s: TestSandbox;
beforeEach(() => {
  s = makeSandbox();
  insertTx(s, { createdAt: T0 });
});
afterEach(() => s.close());

const VALID = { dateFrom: "2026-01-01", dateTo: "2026-01-31" };
/** Every failure of the route: a 4xx whose JSON body is exactly `{ error }` (docs/report.md, docs/api.md#errors). */
function expectError(
  res: { status: number; body: unknown; headers: Record<string, string> },
  status: number,
  message: string | RegExp,
) {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse((res.body as Buffer).toString("utf8")) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["error"]);
  if (typeof message === "string") expect(body.error).toBe(message);
  else expect(body.error).toMatch(message);
}

describe("report errors: a 4xx with { error }", () => {
  it.each([
    [{ dateTo: "2026-01-31" }, "Missing required field: dateFrom"],
    [{ dateFrom: "2026-01-01" }, "Missing required field: dateTo"],
    [{ dateFrom: null, dateTo: "2026-01-31" }, "Missing required field: dateFrom"],
    [{ ...VALID, dateFrom: "2026-1-01" }, "Invalid field: dateFrom"],
    [{ ...VALID, dateFrom: "2026-02-30" }, "Invalid field: dateFrom"],
    [{ ...VALID, dateFrom: "2026-13-01" }, "Invalid field: dateFrom"],
    [{ ...VALID, dateFrom: "2026-01-01T00:00:00" }, "Invalid field: dateFrom"],
    [{ ...VALID, dateFrom: "2026-01-01 24:00:00" }, "Invalid field: dateFrom"],
    [{ ...VALID, dateFrom: "2026-01-01 10:00" }, "Invalid field: dateFrom"],
    [{ ...VALID, dateFrom: 20260101 }, "Invalid field: dateFrom"],
    [{ ...VALID, dateTo: "31/01/2026" }, "Invalid field: dateTo"],
    [{ ...VALID, dateTo: "2026-01-31 23:59:60" }, "Invalid field: dateTo"],
    [{ ...VALID, dateSource: "updatedDate" }, "Invalid field: dateSource"],
    [{ ...VALID, dateSource: null }, "Missing required field: dateSource"],
    [{ ...VALID, format: "PDF" }, "Invalid field: format"],
    [{ ...VALID, format: "xlsx" }, "Invalid field: format"],
    [{ dateFrom: "2026-01-31", dateTo: "2026-01-30" }, "Invalid field: dateTo (before dateFrom)"],
    [{ dateFrom: "2026-01-31 00:00:01", dateTo: "2026-01-31 00:00:00" }, "Invalid field: dateTo (before dateFrom)"],
    [[], "Invalid field: body"],
  ])("%j → 400 %s", async (body, message) => {
    expectError(await report(s, body), 400, message);
  });

  it("a timed dateFrom later on the bare dateTo's day is a valid range (dateTo is the end of that day)", async () => {
    expect((await report(s, { dateFrom: "2026-01-31 18:00:00", dateTo: "2026-01-31" })).status).toBe(200);
  });

  it("malformed JSON, no body, another content type, a body over 1 MiB", async () => {
    const raw = (build: (t: ReturnType<TestSandbox["http"]["post"]>) => ReturnType<TestSandbox["http"]["post"]>) =>
      build(s.http.post(REPORT).set("x-merchant-key", BUILTIN.merchantKey).set("x-merchant-secret", BUILTIN.merchantSecret))
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => done(null, Buffer.concat(chunks)));
        });
    expectError(await raw((t) => t.set("content-type", "application/json").send('{"dateFrom":')), 400, /Malformed JSON/);
    const none = await raw((t) => t);
    expect(none.status).toBeGreaterThanOrEqual(400);
    expect(none.status).toBeLessThan(500);
    expectError(none, none.status, /./);
    const text = await raw((t) => t.set("content-type", "text/plain").send("dateFrom=2026-01-01"));
    expect(text.status).toBeLessThan(500);
    expectError(text, text.status, /./);
    const big = JSON.stringify({ ...VALID, padding: "x".repeat(1024 * 1024) });
    expectError(await raw((t) => t.set("content-type", "application/json").send(big)), 413, /too large/);
  });

  it("bad or missing credentials → 401 Invalid merchant credentials, checked before the body", async () => {
    const cases: Array<[string, string]> = [
      [BUILTIN.merchantKey, "wrong_secret"],
      ["no_such_key", BUILTIN.merchantSecret],
      ["", ""],
      [BUILTIN.merchantKey, `${BUILTIN.merchantSecret}x`],
    ];
    for (const creds of cases) {
      expectError(await report(s, VALID, creds), 401, "Invalid merchant credentials");
      expectError(await report(s, { dateFrom: "bad" }, creds), 401, "Invalid merchant credentials");
    }
    const missing = await s.http.post(REPORT).send(VALID);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: "Invalid merchant credentials" });
    const onlyKey = await s.http.post(REPORT).set("x-merchant-key", BUILTIN.merchantKey).send(VALID);
    expect(onlyKey.body).toEqual({ error: "Invalid merchant credentials" });
  });

  it("a bearer token is not a credential here; the report's headers are no bearer token elsewhere", async () => {
    const token = await s.token();
    const bearer = await s.http.post(REPORT).set("authorization", token).send(VALID);
    expect(bearer.status).toBe(401);
    expect(bearer.body).toEqual({ error: "Invalid merchant credentials" });
    const elsewhere = await s.http
      .get("/api/v1/payments/card/status/tx_000001")
      .set("x-merchant-key", BUILTIN.merchantKey)
      .set("x-merchant-secret", BUILTIN.merchantSecret);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.errorMessage).toEqual(expect.any(String));
  });

  it("another method on the path is a 405 with Allow and { error }", async () => {
    const res = await s.http.get(REPORT);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expect(res.body).toEqual({ error: `Method not allowed: GET ${REPORT} (allowed: POST)` });
  });
});
