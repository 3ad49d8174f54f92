import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { tempDbPath } from "../helpers/server.js";
import {
  addOtherMerchant,
  CARDS,
  chargeBody,
  gateway,
  subscriptionBody,
  tokenFor,
  tokenizeBody,
} from "./subscriptions.support.js";

let s: TestSandbox | undefined;
afterEach(async () => {
  if (!s) return;
  await s.close();
  s = undefined;
});

const CB = "http://127.0.0.1:9/cb";

describe("tokens keep no card number, CVV or SSN", () => {
  it("the database file and its WAL hold none of them after tokenize, charge and subscribe", async () => {
    const dbPath = tempDbPath();
    s = makeSandbox({ config: { db: dbPath } });
    const secrets = ["078-05-1120", "4111111111111111", "5500000000000004", "4000000000003220"];
    const tokens: string[] = [];
    for (const number of [CARDS.visa, CARDS.mastercard, CARDS.threeDs]) {
      const res = await gateway(s).post(
        "/payments/card/tokenize",
        tokenizeBody({ card: { number, cvv: "8231" }, socialSecurityNumber: "078-05-1120" }),
      );
      expect(res.status).toBe(200);
      tokens.push(res.body.token as string);
    }
    await gateway(s).post("/payments/card/charge", chargeBody(tokens[0]!, CB));
    await gateway(s).post("/payments/card/recurring", subscriptionBody(tokens[1]!, CB));
    await s.close();
    s = undefined;
    const bytes = Buffer.concat([dbPath, `${dbPath}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f))).toString(
      "latin1",
    );
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes).toContain("411111"); // the BIN is kept, so the search does see the data
    for (const secret of secrets) expect(bytes).not.toContain(secret);
    // quoted: a bare 4-digit run can occur by chance inside hashes and signatures
    expect(bytes).not.toContain(`"8231"`);
    expect(bytes.toLowerCase()).not.toContain("cvv");
    expect(bytes).not.toContain("socialSecurityNumber");
  });
});

describe("a token belongs to its merchant (docs/tokens.md, docs/api.md#built-in-merchant)", () => {
  it("another merchant cannot charge or subscribe with it: the same 400 as an unknown token", async () => {
    s = makeSandbox();
    const token = await tokenFor(s);
    const other = await addOtherMerchant(s);
    const charge = await gateway(s, other).post("/payments/card/charge", chargeBody(token, CB, { mid: "other-mid" }));
    expect(charge.status).toBe(400);
    expect(charge.body.errorMessage).toBe("Token not found or expired: tok_****");
    const sub = await gateway(s, other).post("/payments/card/recurring", subscriptionBody(token, CB, { mid: "other-mid" }));
    expect(sub.status).toBe(400);
    expect(sub.body.errorMessage).toMatch(/^Token not found or expired: /);
  });

  it("a merchant cannot tokenize in another merchant's name", async () => {
    s = makeSandbox();
    const other = await addOtherMerchant(s);
    const res = await gateway(s, other).post("/payments/card/tokenize", tokenizeBody({ merchantId: 1001 }));
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toBe("Invalid field: merchantId");
  });
});
