import { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonBody } from "../../src/http/schemas.js";
import { isDate } from "../../src/http/wire.js";
import { CardPaymentRequestSchema } from "../../src/modules/payments/payments.wire.js";

// The route validator calls safeParseAsync; jsonBody() makes it the synchronous parse (docs/performance.md).
describe("jsonBody's parse", () => {
  it("gives the same results as zod's own async parse, success and issues alike", async () => {
    const plain = z.object({ a: z.string().min(2), n: z.number().int().optional() });
    const patched = jsonBody(z.object({ a: z.string().min(2), n: z.number().int().optional() })).content["application/json"]
      .schema;
    for (const input of [{ a: "ok" }, { a: "x" }, { a: 1, n: 1.5 }, null, "text", { a: "ok", n: 3 }]) {
      expect(await patched.safeParseAsync(input)).toEqual(await plain.safeParseAsync(input));
    }
  });

  it("still runs an async check, through the async parse", async () => {
    let ran = 0;
    const schema = jsonBody(
      z.object({
        a: z.string().refine(async (v) => {
          ran++;
          return v === "yes";
        }, "must be yes"),
      }),
    ).content["application/json"].schema;
    expect((await schema.safeParseAsync({ a: "yes" })).success).toBe(true);
    const no = await schema.safeParseAsync({ a: "no" });
    expect(no.success).toBe(false);
    expect(no.error?.issues[0]?.message).toBe("must be yes");
    expect(ran).toBe(3); // the first parse tried the synchronous one; after it, async only
  });

  it("keeps the schema the OpenAPI document names (the instance, changed in place)", () => {
    expect(jsonBody(CardPaymentRequestSchema).content["application/json"].schema).toBe(CardPaymentRequestSchema);
  });
});

describe("isDate (dateOfBirth)", () => {
  it("accepts exactly the days of the proleptic Gregorian calendar", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (y, mo, d) => {
          const text = `${String(y).padStart(4, "0")}-${String(mo).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
          // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999
          const last = new Date(0);
          last.setUTCFullYear(y, mo, 0);
          const real = mo >= 1 && mo <= 12 && d >= 1 && d <= last.getUTCDate();
          expect(isDate(text)).toBe(real);
        },
      ),
      { numRuns: 5000 },
    );
    for (const [text, ok] of [
      ["2000-02-29", true],
      ["1900-02-29", false],
      ["2024-02-29", true],
      ["2023-02-29", false],
      ["1990-1-31", false],
      ["0000-02-29", true],
    ] as const) {
      expect(isDate(text)).toBe(ok);
    }
  });
});
