/**
 * The coverage catalogue (docs/coverage.md#the-catalogue) is the code's own tables: every behaviour the
 * fold or a note can count is in it (a kind × status × decline code, an APM method both ways, an
 * attempt's outcome, a subscription move, an error kind), each once, with a stable id, a title and a
 * hint; and the fold reads the event log's data as the event writer writes it, whatever a merchant's
 * mid holds.
 */
import { describe, expect, it } from "vitest";
import { errorBehaviour } from "../../src/coverage/catalogue/errors.js";
import { apmBehaviour, transactionBehaviour } from "../../src/coverage/catalogue/transactions.js";
import { attemptBehaviours } from "../../src/coverage/catalogue/webhooks.js";
import { catalogue } from "../../src/coverage/catalogue.js";
import { type EventRow, foldEvents, readTransaction, readWebhook, type Tally } from "../../src/coverage/fold.js";
import { METHODS } from "../../src/modules/apm/methods.js";
import { CHARGE_RETRIED, subscriptionMove } from "../../src/modules/subscriptions/subscriptions.behaviours.js";
import { SUBSCRIPTION_MOVES } from "../../src/modules/subscriptions/subscriptions.rules.js";
import { TRANSACTION_KINDS } from "../../src/modules/transactions/kinds.js";
import { THREE_DS_ENDS } from "../../src/modules/transactions/lifecycle.js";
import { TRANSACTION_MOVES } from "../../src/modules/transactions/transitions.js";
import { AREAS } from "../../src/platform/behaviours.js";
import { type ErrorCode, statusOf } from "../../src/platform/errors.js";
import { DECLINE_CODES, TEST_CARDS } from "../../src/platform/fixtures.js";
import { CHAOS_MODES } from "../../src/webhooks/chaos.js";
import { MAX_ATTEMPTS } from "../../src/webhooks/retries.js";

const ids = new Set(catalogue().map((b) => b.id));
const known = (id: string | undefined) => {
  expect(id, "an id the fold or a note can count").toBeDefined();
  expect(ids.has(id as string), `${id} is in the catalogue`).toBe(true);
};

describe("the coverage catalogue", () => {
  it("every behaviour once, with a stable id, a known area, a title and a hint", () => {
    expect(ids.size).toBe(catalogue().length);
    for (const b of catalogue()) {
      expect(b.id).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      expect(AREAS).toContain(b.area);
      expect(b.title.length).toBeGreaterThan(5);
      expect(b.hint).toMatch(/^[A-Z].*\.$/);
    }
    // by area, in the areas' order
    const order = catalogue().map((b) => AREAS.indexOf(b.area));
    expect(order).toEqual([...order].sort((x, y) => x - y));
  });

  it("every kind of transaction × every status its lifecycle reaches, FAILED once per decline code", () => {
    for (const kind of TRANSACTION_KINDS) {
      for (const status of new Set(TRANSACTION_MOVES[kind].map((m) => m.to))) {
        if (status === "FAILED") for (const d of DECLINE_CODES) known(transactionBehaviour(kind, status, d.code));
        else known(transactionBehaviour(kind, status, null));
      }
    }
    expect(transactionBehaviour("card_payment", "FAILED", 5)).toBe("card.payment.failed.decline-5");
    for (const end of Object.values(THREE_DS_ENDS)) known(end.id);
  });

  it("each APM method completed and declined in each of its directions", () => {
    for (const m of METHODS) {
      for (const direction of m.directions) {
        const kind = direction === "payin" ? "apm_payment" : "apm_payout";
        known(apmBehaviour(m.paymentMethod, kind, "SUCCEED"));
        known(apmBehaviour(m.paymentMethod, kind, "FAILED"));
      }
    }
  });

  it("every webhook attempt's outcome and chaos mode", () => {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      for (const httpStatus of [200, 204, 500, undefined]) {
        for (const chaos of [undefined, ...CHAOS_MODES])
          for (const id of attemptBehaviours(attempt, httpStatus, chaos)) known(id);
      }
    }
    expect(attemptBehaviours(MAX_ATTEMPTS, 503, "badSignature")).toEqual([
      "webhook.attempt.failed",
      "webhook.failed",
      "webhook.signature.refused",
      "webhook.chaos.badsignature",
    ]);
  });

  it("every move of the subscription state machine, and a charge retried", () => {
    for (const m of SUBSCRIPTION_MOVES) known(subscriptionMove(m.from, m.to, m.via));
    known(CHARGE_RETRIED);
    expect(subscriptionMove("PAUSED", "ACTIVE", "PUT")).toBe("subscription.paused-to-active.put");
  });

  it("every error code the gateway answers, by its status; a 5xx is a server error", () => {
    const codes: ErrorCode[] = ["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND", "CONFLICT", "TOO_MANY_REQUESTS", "INTERNAL"];
    for (const c of codes) known(errorBehaviour(statusOf(c)));
    expect(errorBehaviour(503)).toBe("api.error.server");
    expect(errorBehaviour(413)).toBeUndefined();
    expect(errorBehaviour(405)).toBeUndefined();
  });

  it("a hint that names a card names a test card", () => {
    const cards = new Set(TEST_CARDS.map((c) => c.number));
    for (const b of catalogue())
      for (const n of b.hint.match(/\b\d{16}\b/g) ?? []) expect(cards.has(n), `${b.id}: ${n}`).toBe(true);
  });
});

describe("the fold reads the event log as it is written", () => {
  const tx = (mid: string) =>
    JSON.stringify({
      transactionId: "tx_1",
      kind: "refund",
      merchant: mid,
      status: "FAILED",
      declineCode: 12,
      at: "2026-01-15T12:00:00.000Z",
    });

  it("whatever a merchant's mid holds: quotes, a key's name, braces", () => {
    for (const mid of ['a"kind":"card_payment', 'x","status":"SUCCEED', "}{", '\\"declineCode\\":5', "plain"]) {
      expect(readTransaction(tx(mid))).toEqual({
        kind: "refund",
        status: "FAILED",
        declineCode: 12,
        at: "2026-01-15T12:00:00.000Z",
      });
    }
  });

  it("data in another shape is read by JSON.parse; a webhook attempt's with or without chaos", () => {
    expect(
      readTransaction('{"at":"2026-01-15T12:00:00.000Z","declineCode":null,"status":"SUCCEED","kind":"card_payment"}'),
    ).toEqual({
      kind: "card_payment",
      status: "SUCCEED",
      declineCode: null,
      at: "2026-01-15T12:00:00.000Z",
    });
    const hook = (extra: string) =>
      `{"deliveryId":"wh_1","transactionId":"tx_1","url":"http://x/\\"attempt\\":9","attempt":2,${extra}"at":"2026-01-15T12:00:00.000Z"}`;
    expect(readWebhook(hook('"httpStatus":200,'))).toEqual({
      deliveryId: "wh_1",
      attempt: 2,
      httpStatus: 200,
      chaos: undefined,
      at: "2026-01-15T12:00:00.000Z",
    });
    expect(readWebhook(hook('"error":"ECONNREFUSED","chaos":"delay",'))).toMatchObject({
      attempt: 2,
      httpStatus: undefined,
      chaos: "delay",
    });
  });

  it("counts each behaviour and keeps its first evidence; a reset in the run drops what came before it", () => {
    const rows: EventRow[] = [
      [1, "transaction", "tx_1", tx("m")],
      [2, "transaction", "tx_2", tx("m")],
      [3, "clock", null, "{}"],
    ];
    const tally: Tally = new Map();
    foldEvents(rows, () => new Map(), tally);
    expect(tally.get("refund.failed.decline-12")).toEqual({
      count: 2,
      first: { transactionId: "tx_1", at: Date.UTC(2026, 0, 15, 12) },
    });
    foldEvents([[4, "reset", null, "{}"], ...rows.slice(1)], () => new Map(), tally);
    expect(tally.get("refund.failed.decline-12")?.count).toBe(1);
  });
});
