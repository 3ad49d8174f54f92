/**
 * The dashboard's defences (docs/dashboard.md): hostile strings are shown as text, secrets and card
 * numbers never in full, the admin-token login and its session cookie, and the same-origin check
 * that refuses a form posted from another site (CSRF), with or without the token.
 */
import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN, makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";
import { cookiesOf, flashOf, ORIGIN, pay, seedTransaction } from "./dashboard.support.js";

let s: TestSandbox;
afterEach(() => s?.close());

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;

describe("hostile strings are escaped everywhere they are shown", () => {
  it("requestId, metadata, merchant name, card holder and flash text never become markup", async () => {
    s = makeSandbox();
    await s.http.post("/_sandbox/scenarios").send({
      name: "hostile",
      merchants: [
        {
          merchantKey: "evil_key",
          merchantSecret: "evil-secret-value",
          mid: HOSTILE,
          merchantId: 9001,
          accountId: 9002,
          name: HOSTILE,
        },
      ],
    });
    const id = await pay(s, {
      requestId: HOSTILE,
      metadata: { [HOSTILE]: HOSTILE },
      card: { cardHolderName: "Eve <script>x</script>" },
      callbackUrl: `http://127.0.0.1:9/${encodeURIComponent(HOSTILE)}`,
    });
    seedTransaction(s, { id: "rf_hostile", kind: HOSTILE, parentId: id, paymentMethod: HOSTILE, declineSubReason: HOSTILE });
    const complete = await s.http
      .post(`/dashboard/transactions/${encodeURIComponent(HOSTILE)}/complete`)
      .set("origin", ORIGIN)
      .type("form")
      .send({ status: "SUCCEED", back: "/dashboard/merchants" });
    const pages = [
      await s.http.get("/"),
      await s.http.get(`/dashboard/transactions/${id}`),
      await s.http.get("/dashboard/transactions/rf_hostile"),
      await s.http.get("/dashboard/merchants").set("cookie", cookiesOf(complete)),
      await s.http.get(`/?subscription=${encodeURIComponent(HOSTILE)}`),
    ];
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.text).not.toMatch(/<script>(?!\(function)|<img|onerror=alert\(2\)>/i);
      // the one script is the dashboard's own (its live updates), allowed by its hash
      expect(page.text.match(/<script/gi)).toHaveLength(1);
    }
    expect(pages[0]?.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(flashOf(pages[3]?.text ?? "")?.text).toBe(`Transaction not found: ${HOSTILE}`);
  });

  it("every page carries a Content-Security-Policy that allows only its own style and script, and refuses framing", async () => {
    s = makeSandbox();
    for (const path of ["/", "/dashboard/subscriptions", "/dashboard/merchants", "/dashboard/transactions/tx_nope"]) {
      const res = await s.http.get(path);
      expect(res.headers["content-security-policy"]).toMatch(
        /default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'; connect-src 'self'; .*form-action 'self'; frame-ancestors 'none'/,
      );
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.headers["cache-control"]).toBe("no-store");
    }
  });

  it("back and next never redirect to another site", async () => {
    s = makeSandbox();
    for (const back of ["//evil.example/x", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", ""]) {
      const res = await s.http.post("/dashboard/clock/advance").set("origin", ORIGIN).type("form").send({ by: "PT1M", back });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe("/");
    }
  });
});

describe("CSRF: a dashboard form is accepted only from the dashboard's own origin", () => {
  it.each([
    ["another site's Origin", { origin: "http://evil.example" }],
    ["Origin: null", { origin: "null" }],
    ["no Origin and no Referer", {}],
    ["another site's Referer", { referer: "http://evil.example/page" }],
  ])("%s → 403, nothing changes", async (_name, headers) => {
    s = makeSandbox();
    const id = await pay(s, { callbackUrl: "http://127.0.0.1:9/cb" });
    const posts = [
      ["/dashboard/clock/advance", { by: "P1D" }],
      ["/dashboard/webhooks/wh_000001/replay", {}],
      [`/dashboard/transactions/${id}/complete`, { status: "SUCCEED" }],
      ["/dashboard/login", { token: "x" }],
      ["/dashboard/logout", {}],
    ] as const;
    for (const [path, fields] of posts) {
      const res = await s.http.post(path).set(headers).type("form").send(fields);
      expect(res.status).toBe(403);
      expect(res.text).toContain("Refused: this form was not posted from the dashboard");
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    expect(s.clock.nowMs()).toBe(T0);
    expect((await s.http.get("/_sandbox/webhooks")).body).toHaveLength(1);
  });

  it("the same Host, or a same-origin Referer without Origin, is accepted", async () => {
    s = makeSandbox();
    const byHost = await s.http
      .post("/dashboard/clock/advance")
      .set({ host: "localhost:8080", origin: "http://localhost:8080" })
      .type("form")
      .send({ by: "PT1M" });
    expect(byHost.status).toBe(303);
    const byReferer = await s.http
      .post("/dashboard/clock/advance")
      .set("referer", `${ORIGIN}/dashboard/merchants`)
      .type("form")
      .send({ by: "PT1M" });
    expect(byReferer.status).toBe(303);
    expect(s.clock.nowMs()).toBe(T0 + 120_000);
  });
});

describe("SANDBOX_ADMIN_TOKEN: the dashboard asks for it once and keeps a session", () => {
  const TOKEN = "admin-t0ken-for-tests";
  const login = (token: string, next = "/dashboard/merchants") =>
    s.http.post("/dashboard/login").set("origin", ORIGIN).type("form").send({ token, next });

  it("pages redirect to the login form; JSON at / and the health check stay open", async () => {
    s = makeSandbox({ config: { adminToken: TOKEN } });
    for (const path of ["/", "/dashboard/merchants?x=1", "/dashboard/transactions/tx_1", "/dashboard/subscriptions"]) {
      const res = await s.http.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`/dashboard/login?next=${encodeURIComponent(path)}`);
    }
    const form = await s.http.get("/dashboard/login?next=%2Fdashboard%2Fmerchants");
    expect(form.status).toBe(200);
    expect(form.text).toContain('<input type="password" id="token" name="token"');
    expect(form.text).toContain('<label for="token">Admin token</label>');
    expect((await s.http.get("/").set("accept", "application/json")).body).toMatchObject({ name: "paysandbox" });
    expect((await s.http.get("/_sandbox/health")).status).toBe(200);
  });

  it("a wrong token → 401 and no session; the right one → an HttpOnly SameSite=Strict cookie that opens pages and forms", async () => {
    s = makeSandbox({ config: { adminToken: TOKEN } });
    const wrong = await login("guess");
    expect(wrong.status).toBe(401);
    expect(flashOf(wrong.text)?.text).toBe("Wrong admin token.");
    expect(wrong.headers["set-cookie"]).toBeUndefined();

    const right = await login(TOKEN);
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe("/dashboard/merchants");
    const setCookie = String(right.headers["set-cookie"]);
    expect(setCookie).toMatch(/^paysandbox_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toContain(TOKEN);
    const cookie = cookiesOf(right);

    expect((await s.http.get("/dashboard/merchants").set("cookie", cookie)).status).toBe(200);
    expect((await s.http.get("/").set("cookie", cookie)).text).toContain("Log out");
    const advance = await s.http
      .post("/dashboard/clock/advance")
      .set({ origin: ORIGIN, cookie })
      .type("form")
      .send({ by: "P1D" });
    expect(advance.status).toBe(303);
    expect(s.clock.nowMs()).toBe(T0 + 86_400_000);
    // already logged in: the login form sends you on
    expect((await s.http.get("/dashboard/login?next=%2Fdashboard%2Fsubscriptions").set("cookie", cookie)).headers.location).toBe(
      "/dashboard/subscriptions",
    );

    const logout = await s.http.post("/dashboard/logout").set({ origin: ORIGIN, cookie });
    expect(logout.headers.location).toBe("/dashboard/login");
    expect(String(logout.headers["set-cookie"])).toMatch(/paysandbox_session=;.*Max-Age=0/);
  });

  it("forms without a session → 401 and nothing changes; a forged cookie is no session", async () => {
    s = makeSandbox({ config: { adminToken: TOKEN } });
    const id = await pay(s, { callbackUrl: "http://127.0.0.1:9/cb" });
    for (const cookie of ["", "paysandbox_session=forged", `paysandbox_session=${TOKEN}`]) {
      for (const [path, fields] of [
        ["/dashboard/clock/advance", { by: "P1D" }],
        ["/dashboard/webhooks/wh_000001/replay", {}],
        [`/dashboard/transactions/${id}/complete`, { status: "FAILED" }],
      ] as const) {
        const res = await s.http.post(path).set({ origin: ORIGIN, cookie }).type("form").send(fields);
        expect(res.status).toBe(401);
        expect(res.text).toContain("Log in first");
      }
      expect((await s.http.get("/").set("cookie", cookie)).status).toBe(303);
    }
    expect(s.clock.nowMs()).toBe(T0);
  });

  it("a session of another sandbox (another salt) is refused; the bearer header works for scripts", async () => {
    const other = makeSandbox({ config: { adminToken: TOKEN } });
    s = other;
    const cookie = cookiesOf(await login(TOKEN));
    await other.close();
    s = makeSandbox({ config: { adminToken: TOKEN } });
    expect((await s.http.get("/").set("cookie", cookie)).status).toBe(303);
    const bearer = await s.http.get("/dashboard/merchants").set("authorization", `Bearer ${TOKEN}`);
    expect(bearer.status).toBe(200);
    expect(bearer.text).not.toContain(BUILTIN.merchantSecret);
  });

  it("the /_sandbox bearer check is unchanged: a dashboard session does not open it", async () => {
    s = makeSandbox({ config: { adminToken: TOKEN } });
    const cookie = cookiesOf(await login(TOKEN));
    expect((await s.http.get("/_sandbox/clock").set("cookie", cookie)).status).toBe(401);
    expect((await s.http.get("/_sandbox/clock").set("authorization", `Bearer ${TOKEN}`)).status).toBe(200);
  });
});
