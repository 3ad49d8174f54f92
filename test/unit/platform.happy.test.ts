import { describe, expect, it } from "vitest";
import { ManualClock, parseInstant, VirtualClock } from "../../src/platform/clock.js";
import { canonicalJson } from "../../src/platform/crypto.js";
import { addDuration, addMonths, parseDuration } from "../../src/platform/duration.js";
import { sequentialIds } from "../../src/platform/ids.js";
import { convert, formatAmount, parseAmount, toMajorNumber } from "../../src/platform/money.js";
import { jsonTooDeep, loadYaml, valueTooDeep, yamlTooDeep } from "../../src/platform/nesting.js";

describe("money", () => {
  it("parses major-unit strings into minor units by ISO 4217 precision", () => {
    expect(parseAmount("20", "USD")).toBe(2000);
    expect(parseAmount("20.5", "USD")).toBe(2050);
    expect(parseAmount("0.01", "USD")).toBe(1);
    expect(parseAmount("1500", "JPY")).toBe(1500);
    expect(parseAmount("1.234", "KWD")).toBe(1234);
  });

  it.each([
    ["", "USD"],
    ["0", "USD"],
    ["0.00", "USD"],
    ["-1", "USD"],
    ["1.001", "USD"],
    ["1.5", "JPY"],
    ["1e3", "USD"],
    [" 1", "USD"],
    ["1.", "USD"],
    [".5", "USD"],
    ["99999999999999999999", "USD"],
  ])("refuses %j %s with Invalid field: amount", (text, currency) => {
    expect(() => parseAmount(text, currency)).toThrow("Invalid field: amount");
  });

  it("refuses unknown currencies", () => {
    expect(() => parseAmount("1", "XYZ")).toThrow("Invalid field: currency");
  });

  it("formats minor units back, and callbacks get JSON numbers without trailing zeros", () => {
    expect(formatAmount(2050, "USD")).toBe("20.50");
    expect(formatAmount(5, "USD")).toBe("0.05");
    expect(formatAmount(1500, "JPY")).toBe("1500");
    expect(formatAmount(1234, "KWD")).toBe("1.234");
    expect(toMajorNumber(2050, "USD")).toBe(20.5);
    expect(JSON.stringify({ a: toMajorNumber(2000, "USD") })).toBe('{"a":20}');
  });

  it("converts with exact half-up rounding at the target precision", () => {
    // 20.00 USD at USD 1.25 / EUR 1 per EUR → 16.00 EUR
    expect(convert(2000, "USD", "EUR", 1.25, 1)).toBe(1600);
    // 20.00 EUR → USD at 1.25 → 25.00
    expect(convert(2000, "EUR", "USD", 1, 1.25)).toBe(2500);
    // 0.01 EUR → JPY at 162.5 → 1.625 → 2 (half-up)
    expect(convert(1, "EUR", "JPY", 1, 162.5)).toBe(2);
    // 1.005 → rounds half up to 1.01
    expect(convert(1005, "KWD", "USD", 1, 1)).toBe(101);
  });
});

describe("durations", () => {
  it("parses ISO 8601 durations", () => {
    expect(parseDuration("P1D")).toMatchObject({ days: 1 });
    expect(parseDuration("PT30M")).toMatchObject({ minutes: 30 });
    expect(parseDuration("P1Y2M3W4DT5H6M7.5S")).toEqual({
      years: 1,
      months: 2,
      weeks: 3,
      days: 4,
      hours: 5,
      minutes: 6,
      seconds: 7.5,
    });
    for (const bad of ["", "P", "PT", "1D", "P1H", "P-1D", "PT1D"]) expect(parseDuration(bad)).toBeUndefined();
  });

  it("adds months calendar-wise, clamping at month end", () => {
    const jan31 = Date.UTC(2027, 0, 31);
    expect(new Date(addMonths(jan31, 1)).toISOString()).toBe("2027-02-28T00:00:00.000Z");
    expect(new Date(addMonths(Date.UTC(2028, 0, 31), 1)).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(new Date(addMonths(Date.UTC(2027, 10, 30), 3)).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(new Date(addDuration(jan31, parseDuration("P1MT1H")!)).toISOString()).toBe("2027-02-28T01:00:00.000Z");
  });
});

describe("clocks", () => {
  it("the virtual clock runs at its scale from its start and jumps forward only", () => {
    let real = 1_000_000;
    const clock = new VirtualClock(Date.UTC(2030, 0, 1), 60, () => real);
    real += 1000;
    expect(clock.nowMs()).toBe(Date.UTC(2030, 0, 1) + 60_000);
    clock.advanceTo(Date.UTC(2030, 5, 1));
    expect(clock.nowMs()).toBe(Date.UTC(2030, 5, 1));
    real += 500;
    expect(clock.nowMs()).toBe(Date.UTC(2030, 5, 1) + 30_000);
    expect(() => clock.advanceTo(Date.UTC(2029, 0, 1))).toThrow(RangeError);
  });

  it("the manual clock moves only when told", () => {
    const c = new ManualClock(0);
    c.advance(5);
    expect(c.nowMs()).toBe(5);
    expect(() => c.advanceTo(1)).toThrow(RangeError);
  });

  it("parses instants and plain dates as UTC", () => {
    expect(parseInstant("2027-03-01")).toBe(Date.UTC(2027, 2, 1));
    expect(parseInstant("2027-03-01T10:00:00+02:00")).toBe(Date.UTC(2027, 2, 1, 8));
    expect(parseInstant("yesterday")).toBeUndefined();
    expect(parseInstant("2027-13-45")).toBeUndefined();
  });
});

describe("ids and canonical JSON", () => {
  it("prefixes ids by kind", () => {
    const ids = sequentialIds();
    expect(ids.next("transaction")).toBe("tx_000001");
    expect(ids.next("transaction")).toBe("tx_000002");
    expect(ids.next("token")).toBe("tok_000001");
  });

  it("hashes equal bodies equally whatever their key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });
});

describe("nesting depth", () => {
  /** The smallest limit a check passes: the depth it measures. */
  const measured = (tooDeep: (limit: number) => boolean) => {
    for (let limit = 0; limit < 100; limit++) if (!tooDeep(limit)) return limit;
    return Number.POSITIVE_INFINITY;
  };
  const depthOf = (v: unknown): number =>
    v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;

  it("JSON text: exact for valid JSON, strings and escapes skipped", () => {
    for (const value of [1, "x", [], {}, [[1], { a: [{}] }], { a: '"[{', b: ["\\", { c: ']}\\"[' }] }]) {
      expect(measured((l) => jsonTooDeep(JSON.stringify(value), l))).toBe(depthOf(value));
    }
    expect(jsonTooDeep(`${"[".repeat(64)}${"]".repeat(64)}`)).toBe(false);
    expect(jsonTooDeep(`${"[".repeat(65)}${"]".repeat(65)}`)).toBe(true);
  });

  it.each([
    ["a flow mapping in a block sequence", "- {a: [1, {b: c}]}\n- x\n"],
    ["an indentless sequence, then a key of its mapping", "a:\n- x\n- y: 1\n  z:\n  - 2\nb: c\n"],
    ["explicit keys", "? a\n: b\n? - x\n  - y\n: - z\n"],
    ["anchors, tags and a merge key", "base: &b\n  x: 1\n  y: [1, {z: 2}]\nother:\n  <<: *b\n  w: !!str 3\n"],
    ["block and multi-line scalars holding indicators", "a: |\n  [[[[ - - :\n  x: y\nb:\n  - 'q: [\n    more'\n  - \"d: {\"\n"],
    ["a flow collection over several lines", "a: [\n  1,\n  {b: [\n 2]}\n]\nc:\n  d: e\n"],
    ["compact sequences", "- - - x\n  - y\n- z\n"],
  ])("YAML text: %s measures as deep as it parses", (_name, text) => {
    expect(measured((l) => yamlTooDeep(text, l))).toBe(depthOf(loadYaml().parse(text, { merge: true })));
  });

  it("values: shared parts count as deep as they are, a cycle is too deep", () => {
    const leaf = [[[1]]];
    expect(measured((l) => valueTooDeep({ a: leaf, b: [leaf, { c: leaf }] }, l))).toBe(6);
    const cycle: unknown[] = [];
    cycle.push({ again: cycle });
    expect(valueTooDeep(cycle)).toBe(true);
    let wide: unknown = 1;
    for (let i = 0; i < 40; i++) wide = [wide, wide]; // 2^40 paths, 40 distinct arrays
    expect(valueTooDeep(wide)).toBe(false);
    expect(valueTooDeep(wide, 39)).toBe(true);
  });
});
