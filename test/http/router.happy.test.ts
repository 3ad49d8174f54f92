/**
 * The app's route table stays one hono's RegExpRouter accepts: SmartRouter otherwise falls back to
 * TrieRouter for every request, whose search, path split and handler sort cost each request ~2% of
 * its CPU and ~3.7 KB of allocations (docs/performance.md "The cost account").
 */
import { RegExpRouter } from "hono/router/reg-exp-router";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe("the router", () => {
  it("is RegExpRouter: every route of the app is one it accepts", async () => {
    s = makeSandbox();
    const routes = (s.app as unknown as { routes: Array<{ method: string; path: string }> }).routes;
    const router = new RegExpRouter<number>();
    expect(() => {
      for (const r of routes) router.add(r.method, r.path, 0);
      router.match("GET", "/");
    }).not.toThrow();
    expect((await s.http.get("/_sandbox/health")).status).toBe(200);
    const smart = (s.app as unknown as { router: { activeRouter: { name: string } } }).router;
    expect(smart.activeRouter.name).toBe("RegExpRouter");
  });

  it("answers the guide's other depths with the app's own 404, as when they matched no route", async () => {
    s = makeSandbox();
    const generic = await s.http.get("/no-such-page-anywhere");
    for (const path of ["/guide/images/", "/guide/a/b", "/guide/images/a/b", "/guide/lifecycles/x"]) {
      const res = await s.http.get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.stringify(res.body).replace(path, "P"), path).toBe(
        JSON.stringify(generic.body).replace("/no-such-page-anywhere", "P"),
      );
    }
  });
});
