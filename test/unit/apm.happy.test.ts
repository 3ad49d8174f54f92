import { describe, expect, it } from "vitest";
import { echoPayload } from "../../src/modules/apm/apm.rules.js";
import { methodOf, missingFields } from "../../src/modules/apm/methods.js";
import { crc16, pixBrCode, upiDeepLink } from "../../src/modules/apm/qr.js";

describe("QR deep links", () => {
  it("CRC16/CCITT-FALSE gives the catalogue check value for 123456789", () => {
    expect(crc16("123456789")).toBe("29B1");
  });

  it("a BR Code's fields are TLVs with two-digit lengths, names cleaned to the allowed characters", () => {
    const code = pixBrCode("Café & Co. — São Paulo store with a very long name", "10.00", "tx_AbC123");
    expect(code).toMatch(/^000201010212/);
    expect(code).toContain("5925Cafe  Co  Sao Paulo store6009SAO PAULO");
    expect(code).toContain("62120508txAbC123");
  });

  it("a UPI link encodes the merchant name", () => {
    expect(upiDeepLink("Shop & Co", "1.00", "tx_1")).toBe("upi://pay?pa=sandbox@upi&pn=Shop%20%26%20Co&am=1.00&cu=INR&tr=tx_1");
  });
});

describe("data collection and the kept payload", () => {
  const method = (name: string) => {
    const m = methodOf(name);
    if (!m) throw new Error(name);
    return m;
  };
  it("missing fields: absent, null or empty; a decrypted wallet needs no token; EFT always asks its own", () => {
    expect(
      missingFields(method("SMART_BANK_TRANSFER"), { accountNumber: "1234", bankName: "", accountHolderName: null }),
    ).toEqual(["bankName", "accountHolderName"]);
    expect(missingFields(method("APPLE_PAY"), { decrypted: { applicationPrimaryAccountNumber: "4111111111111111" } })).toEqual(
      [],
    );
    expect(missingFields(method("EXTERNAL_HPP_EFT"), { accountNumber: "1234" })).toEqual([
      "accountHolderName",
      "institutionNumber",
      "transitNumber",
      "accountNumber",
    ]);
  });

  it("echoPayload keeps account numbers as sent, drops token data and reduces a PAN to its mask", () => {
    expect(
      echoPayload({
        paymentMethod: "APPLE_PAY",
        accountNumber: "000123456789",
        token: { paymentData: { data: "secret", header: { ephemeralPublicKey: "k" } } },
        decrypted: { applicationPrimaryAccountNumber: "4111111111111111", onlinePaymentCryptogram: "c" },
      }),
    ).toEqual({
      paymentMethod: "APPLE_PAY",
      accountNumber: "000123456789",
      token: { paymentData: { data: "[masked]" } },
      decrypted: { applicationPrimaryAccountNumber: "411111******1111" },
    });
  });
});

describe("echoPayload keeps no card data among the keys the schema does not name", () => {
  it("drops CVV-like keys and masks card-number-like keys, keeps the rest as sent", () => {
    const out = echoPayload({
      paymentMethod: "SMART_BANK_TRANSFER",
      accountNumber: "000123456789",
      cvv: "1234",
      card_cvc2: "987",
      securityCode: "555",
      cardNumber: "4111111111111111",
      pan: "5500000000000004",
      note: "kept",
    });
    expect(out).toEqual({
      paymentMethod: "SMART_BANK_TRANSFER",
      accountNumber: "000123456789",
      cardNumber: "411111******1111",
      pan: "550000******0004",
      note: "kept",
    });
  });
});
