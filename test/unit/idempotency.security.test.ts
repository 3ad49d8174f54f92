import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultConfig } from "../../src/config.js";
import { createContext } from "../../src/context.js";
import { zodToSandboxError } from "../../src/http/errors.js";
import { hashedForm, redactForHash } from "../../src/modules/idempotency/idempotency.service.js";
import { ManualClock } from "../../src/platform/clock.js";
import { canonicalJson } from "../../src/platform/crypto.js";

const body = (number: string, cvv: string) => ({ requestId: "r1", card: { number, cvv, expMonth: "12", expYear: "2030" } });

describe("idempotency keeps no card secret", () => {
  it("hashes a masked number and no CVV or national id", () => {
    const redacted = JSON.stringify(
      redactForHash({ ...body("4111111111111111", "9321"), socialSecurityNumber: "123-45-6789", items: [{ cvv: "1" }] }),
    );
    expect(redacted).not.toContain("4111111111111111");
    expect(redacted).not.toContain("9321");
    expect(redacted).not.toContain("123-45-6789");
    expect(redacted).toContain("411111*1111/16");
  });

  it("still tells two different cards apart under one requestId, and replays the same one", () => {
    const ctx = createContext({ config: defaultConfig(), clock: new ManualClock() });
    const key = { merchantKey: "m", operation: "op", requestId: "r1" };
    let created = 0;
    const create = () => ({ id: ++created });
    expect(ctx.idempotency.run(key, body("4111111111111111", "123"), create)).toEqual({ body: { id: 1 }, replayed: false });
    expect(ctx.idempotency.run(key, body("4111111111111111", "123"), create)).toEqual({ body: { id: 1 }, replayed: true });
    expect(() => ctx.idempotency.run(key, body("5500000000000004", "123"), create)).toThrow(/different parameters/);
    expect(created).toBe(1);
    ctx.db.$client.close();
  });
});

describe("missing versus invalid", () => {
  const schema = z.object({ plan: z.object({ frequency: z.enum(["DAILY", "MONTHLY"]), interval: z.number() }) });
  const message = (raw: unknown) => {
    const r = schema.safeParse(raw);
    if (r.success) throw new Error("expected a failure");
    return zodToSandboxError(r.error, "json", raw).message;
  };

  it("calls an absent or null field missing, whatever its type, enums included", () => {
    expect(message({ plan: { interval: 1 } })).toBe("Missing required field: plan.frequency");
    expect(message({ plan: { frequency: null, interval: 1 } })).toBe("Missing required field: plan.frequency");
    expect(message({})).toBe("Missing required field: plan");
  });

  it("calls a present but wrong field invalid", () => {
    expect(message({ plan: { frequency: "HOURLY", interval: 1 } })).toBe("Invalid field: plan.frequency");
    expect(message({ plan: { frequency: "DAILY", interval: "1" } })).toBe("Invalid field: plan.interval");
  });
});

describe("the one-pass hashed form", () => {
  it("orders many keys as canonicalJson does (past the insertion sort's size too)", () => {
    for (const n of [3, 64, 65, 200]) {
      const body = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${(i * 7919) % n}\u00e9${i % 3 ? "Z" : "a"}`, i]));
      expect(hashedForm(body)).toBe(canonicalJson(redactForHash(body)));
    }
  });

  it("is byte for byte canonicalJson(redactForHash(body)), so stored keys still match", () => {
    // any key too (quotes, controls, astral characters): the order is by UTF-16 code units, the quoting JSON's
    const key = fc.oneof(
      fc.constantFrom("number", "cvv", "ssn", "amount", "card", "a", "b", "requestId", "identityCode"),
      fc.string({ unit: "binary", maxLength: 4 }),
    );
    const leaf = fc.oneof(
      fc.string(),
      // quotes, backslashes, controls, lone surrogates and astral pairs: what JSON.stringify escapes or keeps
      fc.string({ unit: "binary" }),
      fc.string({
        unit: fc.constantFrom("a", '"', "\\", "\n", "\u0000", "\u001f", "\u007f", "\u2028", "\ud800", "\udfff", "\ud83d\ude00"),
      }),
      fc.stringMatching(/^\d{12,19}$/),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("value")),
        fc.dictionary(key, fc.option(tie("value"), { nil: undefined })),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, value), (body) => {
        expect(hashedForm(body)).toBe(canonicalJson(redactForHash(body)));
      }),
      { numRuns: 2000 },
    );
  });
});
