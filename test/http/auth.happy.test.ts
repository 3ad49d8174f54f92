import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN, makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
afterEach(() => s?.close());

describe("POST /api/v1/auth", () => {
  it("exchanges the built-in merchant's credentials for a Bearer JWT, under /api/v1 and /v1", async () => {
    s = makeSandbox();
    for (const path of ["/api/v1/auth", "/v1/auth"]) {
      const res = await s.http.post(path).send({ merchantKey: BUILTIN.merchantKey, merchantSecret: BUILTIN.merchantSecret });
      expect(res.status).toBe(200);
      expect(res.body.merchantKey).toBe(BUILTIN.merchantKey);
      expect(res.body.token).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    }
  });

  it("issues a token valid 30 virtual days from issue", async () => {
    s = makeSandbox();
    const token = await s.token();
    const [, payload] = token.slice("Bearer ".length).split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    expect(claims.sub).toBe(BUILTIN.merchantKey);
    expect(claims.iat).toBe(Math.floor(s.clock.nowMs() / 1000));
    expect(claims.exp - claims.iat).toBe(30 * 24 * 3600);
  });

  it("lets a scenario merchant authenticate once its scenario is loaded", async () => {
    s = makeSandbox();
    const load = await s.http.post("/_sandbox/scenarios").send({
      name: "qa",
      merchants: [{ merchantKey: "qa_key", merchantSecret: "qa_secret", mid: "qa-mid", merchantId: 5001, accountId: 6001 }],
    });
    expect(load.status).toBe(200);
    expect(load.body).toEqual({ name: "qa", merchants: ["qa_key"], cards: 0, rules: 0 });
    expect(await s.token("qa_key", "qa_secret")).toMatch(/^Bearer /);
  });
});
