/**
 * `/guide` refuses what is not a guide page or image: 404 with `{errorMessage}`
 * naming it, never a file outside docs/ (no path traversal), never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
beforeAll(() => {
  s = makeSandbox();
});
afterAll(() => s.close());

describe("unknown pages and images → 404 JSON", () => {
  it.each([
    ["/guide/no-such-page", "Guide page not found: no-such-page"],
    ["/guide/Lifecycles", "Guide page not found: Lifecycles"],
    ["/guide/lifecycles.md", "Guide page not found: lifecycles.md"],
    ["/guide/images/nope.png", "Guide image not found: nope.png"],
    ["/guide/images/lifecycles.md", "Guide image not found: lifecycles.md"],
  ])("%s", async (path, message) => {
    const res = await s.http.get(path);
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toEqual({ errorMessage: message });
  });
});

describe("no path traversal", () => {
  it.each([
    "/guide/..%2Fpackage.json",
    "/guide/..%2F..%2Fpackage.json",
    "/guide/%2E%2E%2FREADME",
    "/guide/..%5C..%5Cpackage.json",
    "/guide/images/..%2F..%2Fpackage.json",
    "/guide/images/..%2Flifecycles.md",
    "/guide/%2Fetc%2Fpasswd",
    "/guide/images/%2Fetc%2Fpasswd",
    "/guide/lifecycles%00",
    "/guide/../package.json",
    "/guide/images/../../package.json",
  ])("%s", async (path) => {
    const res = await s.http.get(path);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toContain('"name": "paysandbox"');
    expect(res.text).not.toContain("root:");
    expect(res.text).not.toContain("stateDiagram-v2");
  });
});
