import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import {
  addOtherMerchant,
  advance,
  gateway,
  subscriptionBody,
  subscriptionCallbacks,
  tokenFor,
} from "./subscriptions.support.js";

let s: TestSandbox;
beforeEach(() => {
  s = makeSandbox();
});
afterEach(async () => {
  await s.close();
});

const CB = "http://127.0.0.1:9/cb";
const PATH = "/payments/card/recurring";

describe("merchant isolation (docs/api.md#errors, docs/api.md#built-in-merchant)", () => {
  it("another merchant's GET, PUT and DELETE → 400 `Subscription does not belong to merchant`, and nothing changes", async () => {
    const token = await tokenFor(s);
    const created = await gateway(s).post(PATH, subscriptionBody(token, CB));
    const id = created.body.subscriptionId as string;
    const before = (await gateway(s).get(`${PATH}/${id}`)).body;
    const other = gateway(s, await addOtherMerchant(s));
    for (const res of [
      await other.get(`${PATH}/${id}`),
      await other.put(`${PATH}/${id}`, { status: "CANCELED" }),
      await other.delete(`${PATH}/${id}`),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorMessage: "Subscription does not belong to merchant" });
    }
    expect((await gateway(s).get(`${PATH}/${id}`)).body).toEqual(before);
    await advance(s, "P1M");
    expect((await subscriptionCallbacks(s, id)).map((b) => b.transactionStatus)).toEqual(["SUCCEED"]);
  });

  it("requestIds are per merchant: the same requestId from two merchants makes two subscriptions", async () => {
    const [key, secret] = await addOtherMerchant(s);
    const mine = await tokenFor(s);
    const theirs = (
      await gateway(s, [key, secret]).post("/payments/card/tokenize", {
        requestId: "t-other",
        merchantId: 5001,
        card: { number: "5500000000000004", expMonth: "12", expYear: "2030", cvv: "123" },
        billingDetails: {
          firstName: "B",
          lastName: "C",
          address1: "1",
          city: "X",
          state: "S",
          country: "US",
          postalCode: "1",
          email: "b@c.de",
          dateOfBirth: "1980-01-01",
        },
      })
    ).body.token as string;
    const a = await gateway(s).post(PATH, subscriptionBody(mine, CB, { requestId: "shared" }));
    const b = await gateway(s, [key, secret]).post(PATH, subscriptionBody(theirs, CB, { requestId: "shared", mid: "other-mid" }));
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.subscriptionId).not.toBe(b.body.subscriptionId);
  });
});
