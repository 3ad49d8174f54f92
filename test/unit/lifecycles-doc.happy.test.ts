/**
 * The status tables are the code's (transitions.ts, subscriptions.rules.ts) and docs/lifecycles.md
 * is drawn from them: the page must be what `npm run docs:diagrams` draws now, and
 * the tables must be what the code enforces.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LIFECYCLES_FILE, lifecyclesMarkdown, mermaid } from "../../scripts/diagrams.js";
import { TRANSACTION_STATUSES } from "../../src/dashboard/format.js";
import {
  ALLOWED_MOVES,
  assertSubscriptionMove,
  SUBSCRIPTION_MOVES,
  SUBSCRIPTION_STATUSES,
} from "../../src/modules/subscriptions/subscriptions.rules.js";
import { TRANSACTION_KINDS } from "../../src/modules/transactions/kinds.js";
import { assertMove, isAllowedMove, TRANSACTION_MOVES } from "../../src/modules/transactions/transitions.js";

describe("docs/lifecycles.md", () => {
  it("is what `npm run docs:diagrams` draws from the tables now (else run it and commit the page)", () => {
    const current = readFileSync(LIFECYCLES_FILE, "utf8");
    expect(current, "docs/lifecycles.md is out of date: run `npm run docs:diagrams`").toBe(lifecyclesMarkdown());
  });

  it("has a diagram for every kind of transaction and for subscriptions", () => {
    const md = lifecyclesMarkdown();
    for (const kind of TRANSACTION_KINDS) expect(md).toContain(`\`${kind}\``);
    expect(md).toContain("## Subscriptions");
    expect(md.match(/```mermaid\nstateDiagram-v2\n/g)?.length).toBeGreaterThanOrEqual(5);
  });

  it("joins the labels of the moves between two states into one arrow", () => {
    const text = mermaid([
      { from: "A", to: "B", via: "x", label: "one" },
      { from: "A", to: "B", via: "y", label: "two" },
    ]);
    expect(text).toBe("```mermaid\nstateDiagram-v2\n  A --> B: one / two\n```");
    expect(() => mermaid([{ from: "A", to: "B", via: "x", label: "a: b" }])).toThrow(/colon/);
  });
});

describe("transition tables", () => {
  it("every kind starts somewhere and only final statuses end it", () => {
    for (const kind of TRANSACTION_KINDS) {
      const moves = TRANSACTION_MOVES[kind];
      expect(
        moves.some((m) => m.from === "[*]"),
        kind,
      ).toBe(true);
      for (const m of moves) expect(m.from, `${kind}: nothing leaves FAILED or REFUNDED`).not.toMatch(/^(FAILED|REFUNDED)$/);
    }
  });

  it("every status of the tables is one the dashboard filters by", () => {
    for (const kind of TRANSACTION_KINDS) {
      for (const m of TRANSACTION_MOVES[kind]) expect(TRANSACTION_STATUSES, `${kind}: ${m.to}`).toContain(m.to);
    }
    for (const m of SUBSCRIPTION_MOVES) if (m.to !== "[*]") expect(SUBSCRIPTION_STATUSES).toContain(m.to);
  });

  it("a move the table lacks is an internal error", () => {
    expect(isAllowedMove("card_payment", "CUSTOMER_VERIFICATION", "SUCCEED", "3ds page")).toBe(true);
    expect(() => assertMove("refund", "[*]", "CUSTOMER_VERIFICATION", "create")).toThrow(/illegal status move of a refund/);
    expect(() => assertMove("card_payment", "FAILED", "SUCCEED", "complete call")).toThrow(/FAILED → SUCCEED/);
    expect(() => assertMove("apm_payment", "PENDING", "SUCCEED", "3ds page")).toThrow();
    expect(() => assertMove("no_such_kind", "[*]", "SUCCEED", "create")).toThrow();
  });

  it("subscriptions: the PUT moves are the table's PUT rows", () => {
    expect(ALLOWED_MOVES).toEqual({
      ACTIVE: ["PAUSED", "CANCELED"],
      PAUSED: ["ACTIVE", "CANCELED"],
      TRIALING: ["PAUSED", "CANCELED"],
      PENDING: ["CANCELED"],
      CANCELED: [],
    });
    expect(() => assertSubscriptionMove("CANCELED", "ACTIVE", "PUT")).toThrow(/illegal status move of a subscription/);
    expect(() => assertSubscriptionMove("ACTIVE", "PAUSED", undefined)).toThrow();
  });
});
