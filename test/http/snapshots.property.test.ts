/**
 * docs/snapshots.md#consistency, as a property: after any sequence of payments, refunds, tokens,
 * one-click charges and clock advances on a source (group commit on, as the server runs), a fork
 * taken while payments keep coming holds every transaction the source had acknowledged before the
 * fork answered, each with the status the source shows, and its clock at the source's now; then both
 * go on independently (a payment in one is unknown in the other, an advance moves one clock only).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";
import { refundBody } from "./refunds.support.js";
import { chargeBody, tokenizeBody } from "./subscriptions.support.js";

let s: TestServer;
beforeAll(() => {
  s = makeServer({ groupCommit: true });
});
afterAll(async () => {
  await s?.close();
});

type Op =
  | { kind: "pay" }
  | { kind: "refund"; amount: string }
  | { kind: "tokenize" }
  | { kind: "charge" }
  | { kind: "advance"; by: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: "pay" }),
  fc.constantFrom("1.00", "5.25").map<Op>((amount) => ({ kind: "refund", amount })),
  fc.constant<Op>({ kind: "tokenize" }),
  fc.constant<Op>({ kind: "charge" }),
  fc.constantFrom("PT1M", "PT3H", "P1D", "P10D").map<Op>((by) => ({ kind: "advance", by })),
);

const DAY_MS = 86_400_000;
const CARD_TOKEN_DAYS = 90;
const DURATION_MS: Record<string, number> = { PT1M: 60_000, PT3H: 3 * 3_600_000, P1D: DAY_MS, P10D: 10 * DAY_MS };

/** The status path of each kind of id the sandbox hands out here. */
const statusPath = (id: string) =>
  id.startsWith("rf_") ? `/api/v1/refunds/card/status/${id}` : `/api/v1/payments/card/status/${id}`;

describe("a fork under load", () => {
  it("holds everything acknowledged before it answered; then both sides go on independently", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 12 }), async (ops, inFlight) => {
        const src = await s.create({ startTime: "2027-01-01T00:00:00Z" });
        // an access token lasts 30 days of the sandbox's clock and the advances below can pass that:
        // a new one is taken after each advance, as a client would
        let auth = await s.token(src.base);
        const post = (base: string, path: string, body: object) =>
          s.http.post(`${base}${path}`).set("authorization", auth).send(body);
        const acknowledged: string[] = [];
        const payments: string[] = [];
        const tokens: { token: string; at: number }[] = [];
        let elapsedMs = 0; // sandbox time advanced since the start, to know which card tokens still live
        for (const o of ops) {
          if (o.kind === "pay") {
            const res = await post(src.base, "/api/v1/payments/card", cardPaymentBody());
            expect(res.status).toBe(200);
            acknowledged.push(res.body.transactionId);
            payments.push(res.body.transactionId);
          } else if (o.kind === "refund" && payments.length > 0) {
            const res = await post(src.base, "/v1/refunds/card", refundBody(payments.at(-1)!, o.amount));
            if (res.status === 200) acknowledged.push(res.body.refundId);
          } else if (o.kind === "tokenize") {
            const res = await post(src.base, "/api/v1/payments/card/tokenize", tokenizeBody());
            expect(res.status).toBe(200);
            tokens.push({ token: res.body.token, at: elapsedMs });
          } else if (o.kind === "charge" && tokens.length > 0) {
            const res = await post(
              src.base,
              "/api/v1/payments/card/charge",
              chargeBody(tokens.at(-1)!.token, "http://127.0.0.1:9/cb"),
            );
            if (res.status === 200) acknowledged.push(res.body.transactionId);
          } else if (o.kind === "advance") {
            await s.http.post(`${src.base}/_sandbox/clock/advance`).send({ by: o.by }).expect(200);
            elapsedMs += DURATION_MS[o.by]!;
            auth = await s.token(src.base);
          }
        }
        // payments keep coming while the fork is taken: those answered before the fork answered must be in it
        let forkAnswered = false;
        const beforeFork: string[] = [];
        const load = Array.from({ length: inFlight }, () =>
          post(src.base, "/api/v1/payments/card", cardPaymentBody()).then((res) => {
            expect(res.status).toBe(200);
            if (!forkAnswered) beforeFork.push(res.body.transactionId);
          }),
        );
        const fork = await s.http.post("/_sandbox/sandboxes").send({ from: src.id });
        forkAnswered = true;
        expect(fork.status).toBe(201);
        await Promise.all(load);
        const copy = new URL(fork.body.baseUrl).pathname;
        for (const id of [...acknowledged, ...beforeFork]) {
          const inCopy = await s.http.get(`${copy}${statusPath(id)}`).set("authorization", auth);
          expect(inCopy.status, id).toBe(200);
          if (acknowledged.includes(id)) {
            const inSource = await s.http.get(`${src.base}${statusPath(id)}`).set("authorization", auth);
            expect(inCopy.body).toEqual(inSource.body);
          }
        }
        // a card token lives 90 days (SANDBOX_TOKEN_TTL_DAYS): one past that is refused in the copy as in the source
        for (const t of tokens) {
          const charged = await post(copy, "/api/v1/payments/card/charge", chargeBody(t.token, "http://127.0.0.1:9/cb"));
          // its expiry is a date, so within a day of the 90th either answer is right
          const ageDays = (elapsedMs - t.at) / DAY_MS;
          const expected = ageDays < CARD_TOKEN_DAYS - 1 ? [200] : ageDays > CARD_TOKEN_DAYS + 1 ? [400] : [200, 400];
          expect(expected, `token ${ageDays} days old`).toContain(charged.status);
        }
        // both go on independently
        const a = await post(src.base, "/api/v1/payments/card", cardPaymentBody());
        const b = await post(copy, "/api/v1/payments/card", cardPaymentBody());
        expect((await s.http.get(`${copy}${statusPath(a.body.transactionId)}`).set("authorization", auth)).status).toBe(404);
        expect((await s.http.get(`${src.base}${statusPath(b.body.transactionId)}`).set("authorization", auth)).status).toBe(404);
        const srcNow = (await s.http.get(`${src.base}/_sandbox/clock`)).body.now;
        await s.http.post(`${copy}/_sandbox/clock/advance`).send({ by: "P1D" }).expect(200);
        expect((await s.http.get(`${src.base}/_sandbox/clock`)).body.now).toBe(srcNow);
        for (const id of [src.id, fork.body.id]) await s.http.delete(`/_sandbox/sandboxes/${id}?force=true`).expect(204);
      }),
      {
        numRuns: 12,
        // past the 30 days an access token lasts, with no request after the last advance
        examples: [
          [[{ kind: "pay" }, { kind: "tokenize" }, ...Array.from({ length: 8 }, (): Op => ({ kind: "advance", by: "P10D" }))], 4],
        ],
      },
    );
  }, 120_000);
});
