import { afterEach, describe, expect, it } from "vitest";
import { loggedSandbox, makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
afterEach(() => s?.close());

const YAML_SCENARIO = `name: yaml-shop
description: posted as YAML
merchants:
  - { merchantKey: y_key, merchantSecret: y_secret, mid: y-mid, merchantId: 9101, accountId: 9201 }
cards:
  - { number: "4242424242424242", payment: { status: FAILED, declineCode: 5 } }
rules:
  - { card: "4242424242424242", operation: payout, status: FAILED, declineCode: 2 }
`;

describe("control plane for people", () => {
  it("resets the clock to a given startTime, or to the start; refuses a bad one and changes nothing", async () => {
    s = makeSandbox();
    const to = await s.http.post("/_sandbox/reset").send({ startTime: "2027-02-03T04:05:06Z" });
    expect(to.body).toEqual({ status: "reset", now: "2027-02-03T04:05:06.000Z" });
    const bad = await s.http.post("/_sandbox/reset").send({ startTime: "yesterday" });
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toBe("Invalid field: startTime");
    expect((await s.http.get("/_sandbox/clock")).body.now).toBe("2027-02-03T04:05:06.000Z");
    const plain = await s.http.post("/_sandbox/reset");
    expect(plain.status).toBe(200);
    expect(typeof plain.body.now).toBe("string");
  });

  it("loads a YAML scenario by Content-Type and lists it with card numbers masked and no secrets", async () => {
    s = makeSandbox();
    const loaded = await s.http.post("/_sandbox/scenarios").set("content-type", "application/yaml").send(YAML_SCENARIO);
    expect(loaded.status).toBe(200);
    expect(loaded.body).toEqual({ name: "yaml-shop", merchants: ["y_key"], cards: 1, rules: 1 });
    const list = await s.http.get("/_sandbox/scenarios");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        name: "yaml-shop",
        description: "posted as YAML",
        merchants: [{ merchantKey: "y_key", mid: "y-mid", merchantId: 9101, accountId: 9201, walletDomains: [] }],
        cards: [{ number: "424242******4242", payment: { status: "FAILED", declineCode: 5 } }],
        rules: [{ card: "424242******4242", operation: "payout", status: "FAILED", declineCode: 2 }],
        loadedAt: new Date(T0).toISOString(),
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain("4242424242424242");
    expect(JSON.stringify(list.body)).not.toContain("y_secret");
  });

  it("refuses broken YAML with a 400 naming the problem, loading nothing", async () => {
    s = makeSandbox();
    const res = await s.http.post("/_sandbox/scenarios").set("content-type", "text/yaml").send("name: [unclosed");
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/cannot parse/);
    expect((await s.http.get("/_sandbox/scenarios")).body).toEqual([]);
  });

  it("writes a 4xx's errorMessage on its log line, and never the body", async () => {
    const { http, lines, close } = loggedSandbox("info");
    try {
      await http.post("/api/v1/auth").send({ merchantKey: "sandbox_merchant_key", merchantSecret: 4111111111111111 });
      const line = JSON.parse(lines.find((l) => l.includes('"status":400')) ?? "{}");
      expect(line.errorMessage).toBe("Invalid field: merchantSecret: expected a string, got a number");
      expect(line.msg).toBe(`POST /api/v1/auth 400 ${line.ms}ms: Invalid field: merchantSecret: expected a string, got a number`);
      expect(lines.join("")).not.toContain("4111111111111111");
    } finally {
      await close();
    }
  });
});
