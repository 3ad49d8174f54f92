import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN, makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
afterEach(() => s?.close());

/** A gateway route behind the bearer middleware that exists in every build: an unknown card id. */
const PROTECTED = "/api/v1/payments/card/status/tx_unknown";

describe("bearer tokens", () => {
  it("refuses wrong credentials with 401 Invalid merchant credentials", async () => {
    s = makeSandbox();
    for (const body of [
      { merchantKey: BUILTIN.merchantKey, merchantSecret: "wrong" },
      { merchantKey: "nobody", merchantSecret: BUILTIN.merchantSecret },
    ]) {
      const res = await s.http.post("/api/v1/auth").send(body);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ errorMessage: "Invalid merchant credentials" });
    }
  });

  it.each([
    ["no header", undefined],
    ["not bearer", "Basic abc"],
    ["empty bearer", "Bearer "],
    ["garbage", "Bearer not.a.jwt"],
    [
      "wrong signature",
      "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzYW5kYm94X21lcmNoYW50X2tleSIsImV4cCI6OTk5OTk5OTk5OX0.c2lnbmF0dXJl",
    ],
    ["alg none", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJzYW5kYm94X21lcmNoYW50X2tleSIsImV4cCI6OTk5OTk5OTk5OX0."],
  ])("answers 401 for %s", async (_name, header) => {
    s = makeSandbox();
    const req = s.http.get(PROTECTED);
    if (header !== undefined) req.set("Authorization", header);
    const res = await req;
    expect(res.status).toBe(401);
    expect(typeof res.body.errorMessage).toBe("string");
  });

  it("accepts the token as issued and the doubled 'Bearer Bearer' form", async () => {
    s = makeSandbox();
    const token = await s.token();
    for (const header of [token, `Bearer ${token}`, token.replace("Bearer ", "bearer ")]) {
      const res = await s.http.get(PROTECTED).set("Authorization", header);
      expect(res.status).not.toBe(401);
    }
  });

  it("expires the token after 30 virtual days (advancing 31 days → 401)", async () => {
    s = makeSandbox();
    const token = await s.token();
    await s.ctx.control.advance({ by: "P29DT23H" });
    expect((await s.http.get(PROTECTED).set("Authorization", token)).status).not.toBe(401);
    const adv = await s.http.post("/_sandbox/clock/advance").send({ by: "P2D" });
    expect(adv.status).toBe(200);
    const res = await s.http.get(PROTECTED).set("Authorization", token);
    expect(res.status).toBe(401);
    // says what happened and what to do (a newcomer who moved the clock months on meets it first)
    expect(res.body.errorMessage).toBe(
      "Access token expired (a token lasts 30 days of the sandbox's clock): take a new one with POST /api/v1/auth",
    );
  });

  it("refuses a token issued before its merchant's secret changed; a new token with the new secret works", async () => {
    s = makeSandbox();
    const merchant = { merchantKey: "rot_key", mid: "rot-mid", merchantId: 7001, accountId: 8001 };
    const load = (merchantSecret: string) =>
      s.http.post("/_sandbox/scenarios").send({ name: "rotation", merchants: [{ ...merchant, merchantSecret }] });
    expect((await load("first_secret")).status).toBe(200);
    const old = (await s.http.post("/api/v1/auth").send({ merchantKey: "rot_key", merchantSecret: "first_secret" })).body.token;
    expect((await s.http.get(PROTECTED).set("Authorization", old)).status).not.toBe(401);

    expect((await load("second_secret")).status).toBe(200);
    const refused = await s.http.get(PROTECTED).set("Authorization", old);
    expect(refused.status).toBe(401);
    expect(refused.body.errorMessage).toMatch(/secret has changed/);
    expect((await s.http.post("/api/v1/auth").send({ merchantKey: "rot_key", merchantSecret: "first_secret" })).status).toBe(401);
    const fresh = (await s.http.post("/api/v1/auth").send({ merchantKey: "rot_key", merchantSecret: "second_secret" })).body
      .token;
    expect(fresh).not.toBe(old);
    expect((await s.http.get(PROTECTED).set("Authorization", fresh)).status).not.toBe(401);
    // the built-in merchant's token is untouched
    expect((await s.http.get(PROTECTED).set("Authorization", await s.token())).status).not.toBe(401);
  });

  it("does not accept a token of another sandbox instance", async () => {
    s = makeSandbox();
    const other = makeSandbox();
    const foreign = await other.token();
    await other.close();
    expect((await s.http.get(PROTECTED).set("Authorization", foreign)).status).toBe(401);
  });

  it("keeps the auth endpoint itself open and never echoes the secret", async () => {
    s = makeSandbox();
    const res = await s.http
      .post("/api/v1/auth")
      .send({ merchantKey: BUILTIN.merchantKey, merchantSecret: BUILTIN.merchantSecret });
    expect(JSON.stringify(res.body)).not.toContain(BUILTIN.merchantSecret);
  });
});

describe("admin token", () => {
  it("protects /_sandbox/* when SANDBOX_ADMIN_TOKEN is set, except health", async () => {
    s = makeSandbox({ config: { adminToken: "let-me-in" } });
    expect((await s.http.get("/_sandbox/health")).status).toBe(200);
    for (const [method, path] of [
      ["get", "/_sandbox/clock"],
      ["post", "/_sandbox/reset"],
      ["post", "/_sandbox/clock/advance"],
      ["post", "/_sandbox/scenarios"],
    ] as const) {
      const none = await s.http[method](path).send({});
      expect(none.status, `${method} ${path}`).toBe(401);
      const wrong = await s.http[method](path).set("Authorization", "Bearer nope").send({});
      expect(wrong.status).toBe(401);
    }
    const ok = await s.http.get("/_sandbox/clock").set("Authorization", "Bearer let-me-in");
    expect(ok.status).toBe(200);
  });

  it("leaves /_sandbox open when no admin token is set", async () => {
    s = makeSandbox();
    expect((await s.http.get("/_sandbox/clock")).status).toBe(200);
  });
});
