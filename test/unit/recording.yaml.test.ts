/**
 * The recording's YAML (docs/recording.md) is read back exactly by a second, strict reader
 * (libyaml), whatever the strings it holds: control characters (C0, DEL, C1), NEL/LS/PS, a BOM,
 * U+FFFE/U+FFFF are written as escapes, a lone surrogate as U+FFFD.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import type { RecordedCall } from "../../src/recording/recorder.js";
import { recordingYaml } from "../../src/recording/recording.handlers.js";
import { exportSteps } from "../../src/recording/steps-export.js";
import { differs, hasLibyaml, parseStrict, readWithLibyaml } from "../helpers/strict-yaml.js";

const T0 = Date.UTC(2026, 0, 15, 12);
const call = (body: unknown): RecordedCall => ({
  id: 1,
  at: T0,
  kind: "request",
  method: "POST",
  path: "/api/v1/payments/card",
  merchantKey: "sandbox_merchant_key",
  body: JSON.stringify(body),
  status: 200,
  response: JSON.stringify({ transactionId: "tx_0000000001", transactionStatus: "SUCCEED" }),
  webhooksUpTo: 0,
});

/** The export of one card payment whose holder, metadata key and value and request id hold `text`. */
function exportWith(text: string) {
  const file = exportSteps({
    name: "recording",
    source: `here ${text}`,
    scenarios: [],
    testCards: ["4111111111111111"],
    builtinMerchantKey: "sandbox_merchant_key",
    calls: [
      call({
        requestId: `r-${text}`,
        amount: "1.00",
        card: { number: "4111111111111111", cardHolderName: text },
        metadata: { [`k${text}`]: text },
      }),
    ],
    deliveries: [],
  });
  return recordingYaml(file);
}

const wellFormed = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

/** The card holder's name as the `yaml` package reads the export back. */
const holderOf = (doc: unknown) =>
  (doc as { steps: Array<{ body: { card: { cardHolderName: string } } }> }).steps[0]?.body.card.cardHolderName;

describe.skipIf(!hasLibyaml)("the recording's YAML, read by libyaml", () => {
  it("a card holder name with U+0096 (a C1 control) is escaped and reads back exactly", () => {
    const text = exportWith("Ada\u0096 Lovelace");
    expect(text).toContain('"Ada\\x96 Lovelace"');
    const [doc] = parseStrict(text);
    expect(holderOf(doc)).toBe("Ada\u0096 Lovelace");
  });

  it.each([
    ["C0", "a\u0001b\u001fc"],
    ["DEL", "a\u007fb"],
    ["NEL, LS, PS", "a\u0085b\u2028c\u2029d"],
    ["a BOM and the non-characters", "\ufeffa\ufffeb\uffff"],
    ["CR, tab and newlines", "a\r\nb\tc\nd"],
    ["astral characters", "💳 \u{10FFFF}"],
  ])("%s", (_what, name) => {
    const [doc] = parseStrict(exportWith(name));
    expect(holderOf(doc)).toBe(name);
  });

  it("a lone surrogate becomes U+FFFD", () => {
    const [doc] = parseStrict(exportWith("a\ud800b\udc00"));
    expect(holderOf(doc)).toBe("a\ufffdb\ufffd");
  });

  it("property: any Unicode string, in a value, a key, a request id and a comment, reads back the same in both readers", () => {
    const codePoint = fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }),
      fc.integer({ min: 0, max: 0x1f }),
      fc.integer({ min: 0x7f, max: 0x9f }),
      fc.constantFrom(0x85, 0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff, 0xd800, 0xdfff, 0x22, 0x5c, 0x23, 0x3a, 0x20),
    );
    const text = fc
      .array(
        codePoint.map((c) => String.fromCodePoint(c)),
        { maxLength: 24 },
      )
      .map((a) => a.join(""));
    const names = fc.sample(text, { numRuns: 400, seed: 30 });
    const exports = names.map(exportWith);
    const read = readWithLibyaml(exports);
    for (const [i, name] of names.entries()) {
      const r = read[i] as { ok?: unknown; error?: string };
      expect(r.error, `libyaml refused the export of ${JSON.stringify(name)}`).toBeUndefined();
      const mine = YAML.parse(exports[i] as string);
      expect(holderOf(mine), JSON.stringify(name)).toBe(wellFormed(name));
      expect(differs(mine, r.ok), JSON.stringify(name)).toBeUndefined();
    }
  });
});
