/**
 * docs/scenarios.md: a scenario card's column that is not given follows its `payment` column, and
 * rules apply per `operation`. "This card declines" means it declines everywhere a user expects.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { advance, gateway, subscriptionBody, tokenFor } from "./subscriptions.support.js";

let s: TestSandbox;
beforeEach(() => {
  s = makeSandbox();
});
afterEach(async () => {
  await s.close();
});

const DECLINER = "4242424242424242";

describe("a scenario card declared only with payment: FAILED", () => {
  beforeEach(async () => {
    await s.http
      .post("/_sandbox/scenarios")
      .send({ name: "decliner", cards: [{ number: DECLINER, payment: { status: "FAILED", declineCode: 5 } }] })
      .expect(200);
  });

  it("declines a subscription's first charge: no subscription is created", async () => {
    const token = await tokenFor(s, DECLINER);
    const res = await gateway(s).post("/payments/card/recurring", subscriptionBody(token, "http://127.0.0.1:9/cb"));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscriptionId: null, transactionStatus: "FAILED", declineCode: 5, nextChargeDate: null });
  });

  it("declines the later scheduled charges of a trial subscription too", async () => {
    const token = await tokenFor(s, DECLINER);
    const res = await gateway(s).post(
      "/payments/card/recurring",
      subscriptionBody(token, "http://127.0.0.1:9/cb", { skipFirstCharge: true, plan: { startDate: "2026-01-16" } }),
    );
    expect(res.body.status).toBe("TRIALING");
    await advance(s, "P1D").expect(200);
    const sub = await gateway(s).get(`/payments/card/recurring/${res.body.subscriptionId}`);
    expect(sub.body).toMatchObject({ transactionStatus: "FAILED", declineCode: 5, failureCount: 1 });
  });
});
