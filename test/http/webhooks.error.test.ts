import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
beforeEach(() => {
  s = makeSandbox();
});
afterEach(async () => {
  await s.close();
});

describe("webhook journal errors", () => {
  it.each([
    ["status=delivering", "Invalid field: status"],
    ["status=", "Invalid field: status"],
    ["status=DELIVERED", "Invalid field: status"],
    ["limit=0", "Invalid field: limit"],
    ["limit=1001", "Invalid field: limit"],
    ["limit=-1", "Invalid field: limit"],
    ["limit=1.5", "Invalid field: limit"],
    ["limit=ten", "Invalid field: limit"],
    ["limit=", "Invalid field: limit"],
  ])("GET /_sandbox/webhooks?%s → 400 %s", async (query, message) => {
    const res = await s.http.get(`/_sandbox/webhooks?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorMessage: message });
  });

  it("accepts the bounds of limit", async () => {
    await s.http.get("/_sandbox/webhooks?limit=1").expect(200);
    await s.http.get("/_sandbox/webhooks?limit=1000").expect(200);
  });

  it("replaying an unknown delivery is a 404 and creates nothing", async () => {
    const res = await s.http.post("/_sandbox/webhooks/wh_nope/replay");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ errorMessage: "Webhook delivery not found: wh_nope" });
    expect((await s.http.get("/_sandbox/webhooks")).body).toEqual([]);
  });

  it("GET on replay and POST on the journal are methods those paths do not serve: 405 with Allow", async () => {
    const replay = await s.http.get("/_sandbox/webhooks/wh_1/replay");
    expect([replay.status, replay.headers.allow]).toEqual([405, "POST"]);
    const journal = await s.http.post("/_sandbox/webhooks").send({});
    expect([journal.status, journal.headers.allow]).toEqual([405, "GET, HEAD"]);
  });
});
