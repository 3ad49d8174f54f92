/**
 * One app serves every sandbox of a server (docs/architecture.md "One route tree"): what a sandbox's
 * routes hold of their own stays its own. A dashboard session opened in one sandbox is no session in
 * another (nor in the root); each sandbox counts its merchants' requests against the rate limit on its
 * own; its OpenAPI document names its own URL.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cookiesOf, ORIGIN } from "./dashboard.support.js";

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const TOKEN = "admin-t0ken-for-tests";
const ADMIN = { authorization: `Bearer ${TOKEN}` };

describe("the one route tree keeps each sandbox's own", () => {
  it("a dashboard session of one sandbox opens its pages only: not another sandbox's, not the root's", async () => {
    s = makeServer({ config: { adminToken: TOKEN } });
    const a = (await s.http.post("/_sandbox/sandboxes").set(ADMIN).send({})).body;
    const b = (await s.http.post("/_sandbox/sandboxes").set(ADMIN).send({})).body;
    const baseA = new URL(a.baseUrl).pathname;
    const baseB = new URL(b.baseUrl).pathname;
    const login = await s.http
      .post(`${baseA}/dashboard/login`)
      .set("origin", ORIGIN)
      .type("form")
      .send({ token: TOKEN, next: "/dashboard/merchants" });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe(`${baseA}/dashboard/merchants`);
    const cookie = cookiesOf(login);
    expect((await s.http.get(`${baseA}/dashboard/merchants`).set("cookie", cookie)).status).toBe(200);
    for (const base of [baseB, ""]) {
      const res = await s.http.get(`${base}/dashboard/merchants`).set("cookie", cookie);
      expect(res.status, `A's session in ${base || "the root"}`).toBe(303);
      expect(res.headers.location).toBe(`${base}/dashboard/login?next=%2Fdashboard%2Fmerchants`);
    }
  });

  it("logging into a second sandbox's dashboard keeps the first's session: each cookie has its sandbox's Path", async () => {
    s = makeServer({ config: { adminToken: TOKEN } });
    const bases = [""];
    for (let i = 0; i < 2; i++)
      bases.push(new URL((await s.http.post("/_sandbox/sandboxes").set(ADMIN).send({})).body.baseUrl).pathname);
    const sessions = new Map<string, string>();
    for (const base of bases) {
      const login = await s.http.post(`${base}/dashboard/login`).set("origin", ORIGIN).type("form").send({ token: TOKEN });
      const set = String(login.headers["set-cookie"]);
      // the Path a browser keys the cookie by: another sandbox's login sets another cookie
      expect(set).toMatch(new RegExp(`^paysandbox_session=[^;]+; Path=${base || "/"}; HttpOnly; SameSite=Strict$`));
      sessions.set(base, cookiesOf(login));
    }
    // what a browser holding all three sends to a sandbox's page: the cookies whose Path matches it, longest first
    for (const base of bases.slice(1)) {
      for (const held of [
        [base, ""],
        ["", base],
      ]) {
        const cookie = held.map((b) => sessions.get(b)).join("; ");
        expect((await s.http.get(`${base}/dashboard/merchants`).set("cookie", cookie)).status, `${base} with ${held}`).toBe(200);
      }
    }
    expect((await s.http.get("/dashboard/merchants").set("cookie", String(sessions.get("")))).status).toBe(200);
  });

  it("the rate limit counts each sandbox's merchants on their own", async () => {
    s = makeServer({ config: { rateLimit: { limit: 2, windowMs: 3_600_000 } } });
    const a = await s.create();
    const b = await s.create();
    const status = async (base: string, token: string) =>
      (await s.http.get(`${base}/api/v1/payments/card/status/tx_unknown`).set("authorization", token)).status;
    const tokenA = await s.token(a.base);
    const tokenB = await s.token(b.base);
    // the same built-in merchant key in both: A's two requests use up A's window only
    expect(await status(a.base, tokenA)).toBe(404);
    expect(await status(a.base, tokenA)).toBe(404);
    expect(await status(a.base, tokenA)).toBe(429);
    expect(await status(b.base, tokenB)).toBe(404);
    expect(await status(b.base, tokenB)).toBe(404);
    expect(await status(b.base, tokenB)).toBe(429);
  });

  it("each sandbox's OpenAPI document names its own URL, the root's its own and the sandboxes'", async () => {
    s = makeServer();
    const a = await s.create();
    const b = await s.create();
    const servers = async (base: string) => (await s.http.get(`${base}/openapi.json`)).body.servers as Array<{ url: string }>;
    expect((await servers(a.base)).map((x) => x.url)).toEqual([a.baseUrl]);
    expect((await servers(b.base)).map((x) => x.url)).toEqual([b.baseUrl]);
    expect((await servers(a.base)).map((x) => x.url)).toEqual([a.baseUrl]);
    expect((await servers("")).map((x) => x.url)).toEqual(["http://sandbox.test", "http://sandbox.test/sandboxes/{sandboxId}"]);
    const paths = async (base: string) => Object.keys((await s.http.get(`${base}/openapi.json`)).body.paths);
    expect(await paths("")).toContain("/_sandbox/sandboxes");
    expect(await paths(a.base)).not.toContain("/_sandbox/sandboxes");
  });
});
