/**
 * A path of /openapi.json asked with a method it does not serve answers 405 with `Allow` naming
 * the methods it does, in its operations' error body; a path it does not hold answers 404. Over
 * every path of the document (the root's, with the sandboxes' control plane) and every method.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";

let s: TestServer;
let token: string;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by known paths
let doc: any;
beforeAll(async () => {
  s = makeServer();
  token = await s.token("");
  doc = (await s.http.get("/openapi.json")).body;
});
afterAll(async () => {
  await s.close();
});

const METHODS = ["get", "post", "put", "delete", "patch"] as const;

describe("a method a documented path does not serve", () => {
  it("answers 405 with Allow listing the served methods, for every path of the document", async () => {
    let pairs = 0;
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const path = template.replace(/\{[^}]+\}/g, "x_1");
      const served = METHODS.filter((m) => ops[m]).map((m) => m.toUpperCase());
      for (const method of METHODS.filter((m) => !ops[m])) {
        const res = await s.http[method](path).set("authorization", token);
        const where = `${method.toUpperCase()} ${template}`;
        expect(res.status, where).toBe(405);
        const allow = String(res.headers.allow).split(", ");
        expect(allow, where).toEqual(expect.arrayContaining(served));
        expect(allow.filter((m) => m !== "HEAD").sort(), where).toEqual([...served].sort());
        expect(res.headers["content-type"], where).toMatch(/^application\/json/);
        expect(res.body.errorMessage ?? res.body.error, where).toBe(
          `Method not allowed: ${method.toUpperCase()} ${path} (allowed: ${res.headers.allow})`,
        );
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThan(100);
  });

  it("is the same under the /v1 alias and inside a sandbox", async () => {
    const alias = await s.http.delete("/v1/payments/card").set("authorization", token);
    expect([alias.status, alias.headers.allow]).toEqual([405, "POST"]);
    const { base } = await s.create();
    const inside = await s.http.put(`${base}/_sandbox/clock`);
    expect([inside.status, inside.headers.allow]).toEqual([405, "GET, HEAD"]);
  });

  it("leaves an unknown path a 404", async () => {
    const res = await s.http.get("/_sandbox/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.allow).toBeUndefined();
  });
});
