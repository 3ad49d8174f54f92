/**
 * Requests drawn from /openapi.json's own request schemas (fast-check), for a few create
 * operations: a body valid by the document is accepted or refused only with a 4xx the operation
 * documents; a body with one required field taken out, or given the wrong type, gets a 400 whose
 * errorMessage names that field. Every answer is also checked against the document by the
 * conformance check (test/helpers/conformance.ts).
 *
 * The arbitraries read the document's subset of JSON Schema: $ref, type, enum, example, pattern,
 * format, min/max, required, additionalProperties, oneOf. A string with an example mostly takes the
 * example (what the document offers as valid), so that bodies get past the field checks the
 * document can only describe in prose (a Luhn-valid card, a known currency) and reach the service.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

type Schema = Record<string, unknown>;

let s: TestSandbox;
let token: string;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by known paths
let doc: any;
beforeAll(async () => {
  s = makeSandbox();
  token = await s.token();
  doc = (await s.http.get("/openapi.json")).body;
});
afterAll(async () => {
  await s.close();
});

const resolve = (schema: Schema): Schema => {
  let out = schema;
  while (typeof out.$ref === "string") out = doc.components.schemas[(out.$ref as string).split("/").pop() as string];
  return out;
};

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  email: fc.constantFrom("jane@example.com", "a.b+c@shop.example"),
  uri: fc.constantFrom("https://merchant.example/callback", "http://127.0.0.1:9/hook"),
  date: fc.constantFrom("2026-03-01", "2027-12-31"),
  "date-time": fc.constantFrom("2026-03-01T00:00:00Z"),
};

/** An arbitrary of values valid by `schema` (as far as the schema says). */
function arb(raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  if (Array.isArray(schema.oneOf)) return fc.oneof(...(schema.oneOf as Schema[]).map((o) => arb(o, depth)));
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map((o) => arb(o, depth)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string": {
      const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined;
      const drawn: fc.Arbitrary<unknown> = format
        ? format
        : typeof schema.pattern === "string"
          ? fc.stringMatching(new RegExp(schema.pattern)).filter((v) => v.length <= Number(schema.maxLength ?? 1e6))
          : fc.string({ minLength: Number(schema.minLength ?? 0), maxLength: Math.min(Number(schema.maxLength ?? 20), 20) });
      return schema.example === undefined ? drawn : fc.oneof({ arbitrary: fc.constant(schema.example), weight: 4 }, drawn);
    }
    case "integer":
      return fc.integer({ min: Number(schema.minimum ?? -1000), max: Number(schema.maximum ?? 1000) });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(arb((schema.items as Schema) ?? {}, depth + 1), { maxLength: 2 });
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) record[k] = arb(v, depth + 1);
      if (Object.keys(props).length === 0 && schema.additionalProperties) {
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), arb(schema.additionalProperties as Schema, depth + 1), {
          maxKeys: 2,
        });
      }
      return fc.record(record, { requiredKeys: required });
    }
    default:
      return fc.constant("x");
  }
}

/** The required fields of a request schema, as dotted paths, one level into required objects. */
function requiredPaths(raw: Schema, prefix = "", depth = 0): string[] {
  const schema = resolve(raw);
  const out: string[] = [];
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  for (const k of (schema.required ?? []) as string[]) {
    out.push(prefix + k);
    if (depth === 0 && props[k]) out.push(...requiredPaths(props[k], `${prefix}${k}.`, depth + 1));
  }
  return out;
}

const without = (body: Record<string, unknown>, path: string): Record<string, unknown> => {
  const copy = structuredClone(body);
  const keys = path.split(".");
  let o = copy as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
  delete o[keys.at(-1) as string];
  return copy;
};

const OPERATIONS = ["/api/v1/payments/card", "/api/v1/refunds/card", "/api/v1/payouts/card", "/api/v1/payments/apm"];

const requestSchema = (path: string): Schema => doc.paths[path].post.requestBody.content["application/json"].schema;
const documented = (path: string) => Object.keys(doc.paths[path].post.responses).map(Number);

const post = (path: string, body: unknown) =>
  s.http
    .post(path)
    .set("authorization", token)
    .set("referer", "https://merchant.example/")
    .send(body as object);

describe.each(OPERATIONS)("POST %s with bodies drawn from its request schema", (path) => {
  it("a valid body is accepted, or refused only with a 4xx the operation documents", async () => {
    await fc.assert(
      fc.asyncProperty(arb(requestSchema(path)) as fc.Arbitrary<Record<string, unknown>>, async (body) => {
        const res = await post(path, body);
        expect(documented(path), JSON.stringify(res.body)).toContain(res.status);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.errorMessage).toBe("string");
      }),
      { numRuns: 25 },
    );
  });

  it("a body without one required field is a 400 naming it", async () => {
    const paths = requiredPaths(requestSchema(path));
    expect(paths.length).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(
        arb(requestSchema(path)) as fc.Arbitrary<Record<string, unknown>>,
        fc.constantFrom(...paths),
        async (body, field) => {
          const res = await post(path, without(body, field));
          expect(res.status, field).toBe(400);
          const named = [res.body.errorMessage, ...(res.body.errors ?? []).map((e: { field: string }) => e.field)].join(" ");
          expect(named, JSON.stringify(res.body)).toContain(field);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("a method refused for its currency", () => {
  it("still names every other problem of the body (found by the property above)", async () => {
    const res = await post("/api/v1/payments/apm", {
      accountId: "2001",
      apmPayload: { paymentMethod: "EXTERNAL_HPP_EFT", paymentType: "BANK_TRANSFER" },
      amount: "0",
      currency: "USD",
      checksum: "x",
    });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Invalid field: currency");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(["currency", "requestId"]));
  });
});
