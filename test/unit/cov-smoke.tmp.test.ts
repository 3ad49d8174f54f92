import { it, expect } from "vitest";
import { makeSandbox } from "../helpers/harness.js";
import { cardPaymentBody } from "../http/payments.body.js";
it("smoke", async () => {
  const s = makeSandbox();
  const t = await s.token();
  await s.http.post("/api/v1/payments/card").set("authorization", t).send(cardPaymentBody());
  await s.http.post("/api/v1/payments/card").set("authorization", t).send(cardPaymentBody({ card: { number: "4000000000000002" } }));
  await s.http.post("/api/v1/payments/card").set("authorization", "Bearer nope").send(cardPaymentBody());
  const r = await s.http.get("/_sandbox/coverage");
  expect(r.status).toBe(200);
  console.log(r.body.total, r.body.seen, r.body.behaviours.filter((b: any) => b.count > 0).map((b: any) => `${b.id} ${b.count} ${JSON.stringify(b.first)}`));
  await s.close();
});
