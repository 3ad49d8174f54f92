/**
 * docs/parallel-suites.md bad input: a clear 4xx naming the field, and nothing created or changed. The no-5xx
 * property over the new routes and over any path under an unknown, deleted or malformed sandbox id.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const count = async () => ((await s.http.get("/_sandbox/sandboxes")).body as unknown[]).length;

describe("POST /_sandbox/sandboxes with bad input", () => {
  it.each([
    [{ ttl: "PT0S" }, /^Invalid field: ttl/],
    [{ ttl: "P8D" }, /^Invalid field: ttl/],
    [{ ttl: "an hour" }, /^Invalid field: ttl/],
    [{ ttl: 3600 }, /ttl/],
    [{ startTime: "tomorrow" }, /^Invalid field: startTime/],
    [{ startTime: "10000-01-01T00:00:00Z" }, /^Invalid field: startTime/],
    [{ name: "x".repeat(201) }, /name/],
    [{ scenario: 42 }, /scenario/],
    [{ scenario: { name: "bad", merchants: [{ merchantKey: "k" }] } }, /^Invalid scenario .*merchants\.0\./],
    [{ scenario: { name: "bad", unknownKey: 1 } }, /^Invalid scenario .*unknownKey/],
    [{ scenario: "name: [unclosed" }, /^Invalid scenario .*cannot parse/],
  ])("%j → 400 naming it, nothing created", async (body, message) => {
    s = makeServer();
    const res = await s.http.post("/_sandbox/sandboxes").send(body);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(message);
    expect(await count()).toBe(0);
    expect(s.server.sandboxes.openCount).toBe(0);
  });

  it("malformed JSON → 400, no sandbox", async () => {
    s = makeServer();
    const res = await s.http.post("/_sandbox/sandboxes").set("content-type", "application/json").send("{nope");
    expect(res.status).toBe(400);
    expect(await count()).toBe(0);
  });

  it("accepts the edges of the TTL: PT1S and P7D", async () => {
    s = makeServer();
    expect((await s.http.post("/_sandbox/sandboxes").send({ ttl: "PT1S" })).status).toBe(201);
    expect((await s.http.post("/_sandbox/sandboxes").send({ ttl: "P7D" })).status).toBe(201);
  });
});

describe("SANDBOX_MAX_SANDBOXES", () => {
  it("one more than the limit → 429 with nothing created; deleting one makes room", async () => {
    s = makeServer({ config: { maxSandboxes: 2 } });
    const a = await s.create();
    await s.create();
    const res = await s.http.post("/_sandbox/sandboxes").send({ name: "third" });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ errorMessage: "Too many sandboxes (limit 2)" });
    expect(await count()).toBe(2);
    expect((await s.http.delete(`/_sandbox/sandboxes/${a.id}`)).status).toBe(204);
    expect((await s.http.post("/_sandbox/sandboxes").send({ name: "third" })).status).toBe(201);
  });

  it("a limit of 0 turns sandboxes off", async () => {
    s = makeServer({ config: { maxSandboxes: 0 } });
    expect((await s.http.post("/_sandbox/sandboxes").send({})).status).toBe(429);
  });
});

describe("unknown, deleted and malformed sandbox ids", () => {
  it("answer 404 Sandbox not found on every path, and on GET/DELETE of the control plane", async () => {
    s = makeServer();
    const sb = await s.create();
    await s.http.delete(`/_sandbox/sandboxes/${sb.id}`);
    for (const id of [sb.id, "sbx_00000000000000000000", "nope", "sbx_%ZZ", "sbx_%00", "sbx_%2e"]) {
      for (const path of ["/_sandbox/clock", "/api/v1/auth", "/", "", "/sandbox/3ds/tx_1"]) {
        const res = await s.http.get(`/sandboxes/${id}${path}`);
        expect(res.status, `${id}${path}`).toBe(404);
        expect(res.body.errorMessage, `${id}${path}`).toMatch(/^Sandbox not found: /);
      }
    }
    expect((await s.http.get(`/_sandbox/sandboxes/${sb.id}`)).status).toBe(404);
    expect((await s.http.delete(`/_sandbox/sandboxes/${sb.id}`)).status).toBe(404);
    expect((await s.http.delete("/_sandbox/sandboxes/x")).body).toEqual({ errorMessage: "Sandbox not found: x" });
  });

  it("never answer a 5xx, whatever the path, method or body (property)", async () => {
    s = makeServer();
    const sb = await s.create();
    const segment = fc.oneof(
      fc.constant(sb.id),
      fc.constant("sbx_00000000000000000000"),
      fc.string({ maxLength: 40 }).map(encodeURIComponent),
      fc.constantFrom("", "%", "%00", "..", "sbx_", `${sb.id}x`, "a".repeat(500)),
    );
    const rest = fc.oneof(
      fc.constantFrom(
        "",
        "/",
        "/_sandbox/clock",
        "/_sandbox/clock/advance",
        "/_sandbox/reset",
        "/api/v1/auth",
        "/dashboard/x",
        "/sandbox/hpp/x",
      ),
      fc.string({ maxLength: 30 }).map((x) => `/${encodeURIComponent(x)}`),
    );
    await fc.assert(
      fc.asyncProperty(
        segment,
        rest,
        fc.constantFrom("get", "post", "delete", "put"),
        fc.jsonValue({ maxDepth: 3 }),
        async (id, path, method, body) => {
          const res = await s.http[method as "get"](`/sandboxes/${id}${path}`)
            .set("content-type", "application/json")
            .send(JSON.stringify(body));
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400 && res.type === "application/json") expect(typeof res.body.errorMessage).toBe("string");
        },
      ),
      { numRuns: 150 },
    );
    // the control plane of sandboxes itself
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
            startTime: fc.oneof(
              fc.string(),
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.integer(),
            ),
            ttl: fc.oneof(fc.string(), fc.constantFrom("PT1H", "P7D", "P1Y", "PT0.5S", "P99999999999D"), fc.integer()),
            scenario: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 3 })),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const before = await count();
          const res = await s.http.post("/_sandbox/sandboxes").send(body);
          expect(res.status).toBeLessThan(500);
          if (res.status === 201) await s.http.delete(`/_sandbox/sandboxes/${res.body.id}`);
          else {
            expect(typeof res.body.errorMessage).toBe("string");
            expect(await count()).toBe(before);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
