import { describe, expect, it } from "vitest";
import { binInfo } from "../../src/modules/tokens/bin-lookup.js";
import { maskToken } from "../../src/modules/tokens/tokens.service.js";

describe("BIN lookup (docs/tokens.md, fixtures/bin-table.json)", () => {
  it("the narrowest range wins over the scheme's range", () => {
    expect(binInfo("411111")).toEqual({ cardBrand: "VISA", cardType: "CREDIT", issuingBank: "Sandbox Bank", cardCountry: "US" });
    expect(binInfo("400000")).toEqual({ cardBrand: "VISA", cardType: "DEBIT", issuingBank: "Sandbox Bank", cardCountry: "GB" });
    expect(binInfo("550000")).toEqual({
      cardBrand: "MASTERCARD",
      cardType: "CREDIT",
      issuingBank: "Sandbox Bank",
      cardCountry: "US",
    });
  });

  it("a BIN only a scheme range covers has the brand and nulls elsewhere; an unknown BIN is all null", () => {
    expect(binInfo("424242")).toEqual({ cardBrand: "VISA", cardType: null, issuingBank: null, cardCountry: null });
    expect(binInfo("990000")).toEqual({ cardBrand: null, cardType: null, issuingBank: null, cardCountry: null });
  });
});

describe("maskToken (docs/api.md#errors `<masked token>`)", () => {
  it("keeps the prefix and the last 4", () => {
    expect(maskToken("tok_ABCDEFGHIJKLMNOPwxyz")).toBe("tok_****wxyz");
  });
  it("never echoes a short string whole", () => {
    expect(maskToken("tok_abc")).toBe("tok_****");
    expect(maskToken("abc")).toBe("****");
    expect(maskToken("")).toBe("****");
  });
  it("a token without a prefix keeps only its last 4", () => {
    expect(maskToken("0123456789abcdef")).toBe("****cdef");
  });
});
