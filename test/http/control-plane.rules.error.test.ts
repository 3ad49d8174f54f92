/**
 * The control plane's 400s say the rule and give an example (docs/control-plane.md): durations,
 * instants, `by` and `to` together, and unknown keys, which are refused naming the nearest known
 * key. The schemas behind them are the ones /openapi.json shows. Nothing changes on a refusal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const DURATION = /expected an ISO 8601 duration such as "PT3M" \(3 minutes\) or "P1M" \(1 month\)/;
const INSTANT = 'expected an ISO 8601 instant such as "2026-01-15T12:00:00Z"';

const clockNow = async () => (await s.http.get("/_sandbox/clock")).body.now as string;

describe("POST /_sandbox/clock/advance", () => {
  it.each([
    [{ by: "3 minutes" }, "by", DURATION],
    [{ by: "-PT3M" }, "by", /^must not be negative: expected an ISO 8601 duration such as "PT3M"/],
    [{ by: "" }, "by", /^must not be empty: expected an ISO 8601 duration such as "PT3M"/],
    [{ to: "tomorrow" }, "to", new RegExp(`^${INSTANT.replace(/[()]/g, "\\$&")}`)],
  ])("%j → 400 Invalid field: %s with the rule and an example", async (body, field, reason) => {
    s = makeServer();
    const before = await clockNow();
    const res = await s.http.post("/_sandbox/clock/advance").send(body);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe(`Invalid field: ${field}`);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].field).toBe(field);
    expect(res.body.errors[0].message).toMatch(reason);
    expect(await clockNow()).toBe(before);
  });

  it("by and to together → 400 saying to give one of them; nothing moves", async () => {
    s = makeServer();
    const before = await clockNow();
    const res = await s.http.post("/_sandbox/clock/advance").send({ by: "PT3M", to: "2099-01-01T00:00:00Z" });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Invalid field: to");
    expect(res.body.errors).toEqual([
      { field: "to", message: expect.stringMatching(/^not allowed together with by: give by .* or to .*, not both$/) },
    ]);
    expect(await clockNow()).toBe(before);
  });

  it("neither → 400 Missing required field: by, saying to may replace it", async () => {
    s = makeServer();
    const res = await s.http.post("/_sandbox/clock/advance").send({});
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Missing required field: by");
    expect(res.body.errors).toEqual([
      { field: "by", message: expect.stringMatching(/^required: give by .*"PT3M".* or to .*"2026-01-15T12:00:00Z"/) },
    ]);
  });

  it("the document shows the rule as two closed objects, by or to (a generator types {by} | {to}), a duration and an instant format", async () => {
    s = makeServer();
    const doc = (await s.http.get("/openapi.json")).body;
    const { ClockAdvanceRequest, ClockAdvanceBy, ClockAdvanceTo } = doc.components.schemas;
    expect(ClockAdvanceRequest.anyOf).toEqual([
      { $ref: "#/components/schemas/ClockAdvanceBy" },
      { $ref: "#/components/schemas/ClockAdvanceTo" },
    ]);
    for (const [schema, key] of [
      [ClockAdvanceBy, "by"],
      [ClockAdvanceTo, "to"],
    ]) {
      expect(schema.additionalProperties).toBe(false);
      expect(schema.required).toEqual([key]);
      expect(Object.keys(schema.properties)).toEqual([key]);
    }
    expect(ClockAdvanceBy.properties.by.format).toBe("duration");
    expect(ClockAdvanceTo.properties.to.format).toBe("date-time");
    expect(ClockAdvanceTo.properties.to.description).toMatch(/never goes backwards.*run time/);
    expect(doc.components.schemas.ResetRequest.properties.startTime.format).toBe("date-time");
  });
});

describe("POST /_sandbox/reset", () => {
  it('startTime "tomorrow" → 400 with the instant rule; nothing reset', async () => {
    s = makeServer();
    const res = await s.http.post("/_sandbox/reset").send({ startTime: "tomorrow" });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Invalid field: startTime");
    expect(res.body.errors).toEqual([{ field: "startTime", message: expect.stringContaining(INSTANT) }]);
  });
});

describe("unknown keys on the control plane → 400 naming the key and the nearest known one", () => {
  it.each([
    ["post", "/_sandbox/sandboxes", { nmae: "x" }, "Unknown field: nmae (did you mean name?)"],
    [
      "post",
      "/_sandbox/sandboxes",
      { name: "x", startime: "2026-01-15T12:00:00Z" },
      "Unknown field: startime (did you mean startTime?)",
    ],
    ["post", "/_sandbox/clock/advance", { by: "PT1M", bye: 1 }, "Unknown field: bye (did you mean by?)"],
    ["post", "/_sandbox/clock/advance", { by: "PT1M", zzzzzz: 1 }, "Unknown field: zzzzzz"],
    ["post", "/_sandbox/reset", { startTimes: "2026-01-15T12:00:00Z" }, "Unknown field: startTimes (did you mean startTime?)"],
    [
      "post",
      "/_sandbox/transactions/tx_x/complete",
      { status: "FAILED", declinecode: 5 },
      "Unknown field: declinecode (did you mean declineCode?)",
    ],
    ["post", "/_sandbox/webhooks/wh_x/replay", { chaso: "duplicate" }, "Unknown field: chaso (did you mean chaos?)"],
  ])("%s %s %j → %s", async (method, path, body, message) => {
    s = makeServer();
    const res = await (method === "post" ? s.http.post(path) : s.http.put(path)).send(body);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe(message);
    const key = message.split(" ")[2] as string;
    expect(res.body.errors[0]).toEqual({ field: key, message: expect.stringMatching(/^unknown field/) });
    expect((await s.http.get("/_sandbox/sandboxes")).body).toEqual([]);
  });

  it("a scenario document's unknown key names the nearest known key too", async () => {
    s = makeServer();
    const res = await s.http.post("/_sandbox/scenarios").send({ nmae: "x" });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/nmae: unknown key \(did you mean name\?\)/);
  });
});

describe("POST /_sandbox/scenarios declares its body", () => {
  // the body stays optional in the document: a YAML body (application/yaml) skips the JSON schema
  it("the document's JSON body is the scenario schema, name required, unknown keys refused", async () => {
    s = makeServer();
    const doc = (await s.http.get("/openapi.json")).body;
    const body = doc.paths["/_sandbox/scenarios"].post.requestBody;
    let schema = body.content["application/json"].schema;
    if (schema.$ref) schema = doc.components.schemas[schema.$ref.split("/").pop()];
    expect(schema.required).toContain("name");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["name", "merchants", "cards", "rules", "fxRates"]));
  });
});
