/**
 * The subscription behaviours of the coverage catalogue (docs/coverage.md#the-catalogue): one per move
 * of the state machine (SUBSCRIPTION_MOVES in subscriptions.rules.ts, so a new move is a new
 * behaviour), and a failed charge retried. A subscription's moves leave no trace of their own (its
 * row holds only where it is now), so the service and the billing run note each one where they
 * make it, in its transaction. The cause of each move is planned from the table: how to bring a
 * subscription to the move's `from` status, then what its `via` does.
 */
import { type Act, type Behaviour, cause } from "../../platform/behaviours.js";
import { TEST_CARDS } from "../../platform/fixtures.js";
import { NONE, SUBSCRIPTION_MOVES, type SubscriptionMove, type SubscriptionVia } from "./subscriptions.rules.js";

const slug = (s: string) => (s === NONE ? "none" : s.toLowerCase().replace(/[^a-z0-9]+/g, "-"));

/** `subscription.active-to-paused.charge`: the behaviour of one move of the table. */
export function subscriptionMove(from: string, to: string, via: SubscriptionVia): string {
  return `subscription.${slug(from)}-to-${slug(to)}.${slug(via)}`;
}

/** A scheduled charge run again after a failed one (docs/subscriptions.md). */
export const CHARGE_RETRIED = "subscription.charge.retried";

/** The consecutive failures that pause a subscription by default (SANDBOX_MAX_RETRIES). */
const DEFAULT_MAX_RETRIES = 3;

const card = (pred: (c: (typeof TEST_CARDS)[number]) => boolean) => TEST_CARDS.find(pred)?.number;
/** A card whose first recurring charge asks for 3DS. */
const CHALLENGED = card((c) => c.recurring.first.status === "CUSTOMER_VERIFICATION");
/** A card whose first charge is approved and later ones declined. */
const LATER_DECLINED = card((c) => c.recurring.first.status === "SUCCEED" && c.recurring.later.status === "FAILED");
const DECLINE_PAYMENTS: Act = { act: "rule", rule: { operation: "payment", status: "FAILED" } };
/** Over the daily retries of a failed charge until the pause. */
const OVER_RETRIES = `P${DEFAULT_MAX_RETRIES + 1}D`;

/** How to bring a new subscription to `status`. */
function reach(status: string): Act[] {
  switch (status) {
    case "ACTIVE":
      return [{ act: "subscribe" }];
    case "TRIALING":
      return [{ act: "subscribe", trial: true }];
    case "PENDING":
      return [{ act: "subscribe", card: CHALLENGED }];
    case "PAUSED":
      return [{ act: "subscribe" }, { act: "set-status", status: "PAUSED" }];
    default:
      return [{ act: "subscribe" }, { act: "unsubscribe" }];
  }
}

/** How to make one move of the table happen. */
function plan(m: SubscriptionMove): Act[] {
  switch (m.via) {
    case "create":
      return reach(m.to);
    case "first charge":
      return [...reach("PENDING"), { act: "3ds", outcome: m.to === NONE ? "failure" : "success" }];
    case "PUT":
      return [...reach(m.from), { act: "set-status", status: m.to as "ACTIVE" | "PAUSED" | "CANCELED" }];
    case "DELETE":
      return [...reach(m.from), { act: "unsubscribe" }];
    case "charge":
      if (m.to === "ACTIVE")
        return [
          { act: "subscribe", trial: true },
          { act: "advance", by: "P1D" },
        ];
      if (m.from === "TRIALING")
        return [DECLINE_PAYMENTS, { act: "subscribe", trial: true }, { act: "advance", by: OVER_RETRIES }];
      return [
        { act: "subscribe", card: LATER_DECLINED },
        { act: "advance", by: "P1M" },
        { act: "advance", by: OVER_RETRIES },
      ];
    case "endDate":
      // a trial whose one charge fails stays TRIALING until its endDate passes
      if (m.from === "TRIALING")
        return [DECLINE_PAYMENTS, { act: "subscribe", trial: true, endIn: 1 }, { act: "advance", by: "P3D" }];
      if (m.from === "PAUSED") {
        return [
          { act: "subscribe", endIn: 2 },
          { act: "set-status", status: "PAUSED" },
          { act: "advance", by: "P4D" },
        ];
      }
      return [
        { act: "subscribe", endIn: 1 },
        { act: "advance", by: "P3D" },
      ];
  }
}

export function subscriptionBehaviours(): Behaviour[] {
  const moves = SUBSCRIPTION_MOVES.map(
    (m): Behaviour => ({
      id: subscriptionMove(m.from, m.to, m.via),
      area: "subscriptions",
      title:
        m.to === NONE
          ? `A subscription dropped: ${m.label}`
          : m.from === NONE
            ? `A subscription created ${m.to}: ${m.label}`
            : `A subscription ${m.from} → ${m.to}: ${m.label}`,
      cause: cause(...plan(m)),
    }),
  );
  return [
    ...moves,
    {
      id: CHARGE_RETRIED,
      area: "subscriptions",
      title: "A failed subscription charge retried the next day",
      cause: cause({ act: "subscribe", card: LATER_DECLINED }, { act: "advance", by: "P1M" }, { act: "advance", by: "P1D" }),
    },
  ];
}
