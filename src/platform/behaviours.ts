/**
 * The words the coverage catalogue is written in (docs/coverage.md), shared by every layer: what
 * one behaviour is (id, area, title) and how to cause it (a Cause: a few acts in order), and `Seen`,
 * how the code that produces a behaviour nothing else records notes it. Plain types and
 * constructors, no I/O: a module that owns a behaviour (a refund refused over the remainder, a
 * subscription's move) defines it next to the code that produces it, with these words, and
 * src/coverage/ turns a Cause into a hint for people and a steps file that really causes it.
 */

/** The areas of the catalogue, in the order reports show them. */
export const AREAS = [
  "card",
  "tokens",
  "subscriptions",
  "refunds",
  "payouts",
  "apm",
  "webhooks",
  "idempotency",
  "errors",
] as const;
export type Area = (typeof AREAS)[number];

/** The first time a behaviour was seen: what it was seen on, and when (virtual ms). */
export interface Evidence {
  transactionId?: string | null | undefined;
  subscriptionId?: string | null | undefined;
  deliveryId?: string | null | undefined;
  /** The call, for an error answer: `POST /api/v1/refunds/card`. */
  request?: string | null | undefined;
  at: number;
}

/**
 * Notes a behaviour where it happens, inside the transaction of the change that makes it (so it
 * is undone with it). Only for behaviours nothing else records (docs/coverage.md#how-it-is-counted).
 */
export type Seen = (behaviour: string, evidence: Evidence) => void;

/** A Seen that notes nothing (a service built alone, in a test). */
export const UNSEEN: Seen = () => undefined;

/** A card outcome for a scenario rule or a test card column: status and maybe declineCode. */
export interface RuleOutcome {
  operation?: "payment" | "refund" | "payout";
  status?: "SUCCEED" | "FAILED" | "PROCESSING" | "PENDING";
  declineCode?: number;
  completeAfter?: string;
  httpStatus?: number;
}

/** What a webhook receiver answers: 2xx, or a refusal of the first attempt only, or of every one. */
export type Answering = "ok" | "refuse-first" | "refuse-all";

/**
 * One act of a Cause. Setup acts (`rule`, `chaos`, `convert`) shape the sandbox before the rest;
 * the others are calls and moves, in order, each on what the acts before it made (a refund refunds
 * the last payment, `page` answers the last APM transaction's page, `again` repeats the last create).
 */
export type Act =
  /** A scenario rule (docs/scenarios.md#rules). */
  | { act: "rule"; rule: RuleOutcome }
  /** The merchant's webhookChaos sends every delivery with this mode (docs/webhooks.md#webhook-chaos). */
  | { act: "chaos"; mode: string }
  /** The merchant settles in this currency, so orders in another are converted (docs/cards.md#fx). */
  | { act: "convert"; processingCurrency: string }
  /** A card payment with this card (default an approving one); `webhook`: where its callbacks go. */
  | { act: "pay"; card?: string; threeDS?: boolean; webhook?: Answering }
  /** Tokenize a card (default an approving one). */
  | { act: "tokenize"; card?: string }
  /** A one-click charge of the last token. */
  | { act: "charge"; threeDS?: boolean }
  /**
   * A subscription on a new token of this card: its first charge now, or a trial (`trial`) charged
   * first on its startDate, which is `startIn` days away (default 1 with a trial); `endIn`: its endDate so many days away.
   */
  | { act: "subscribe"; card?: string; trial?: boolean; startIn?: number; endIn?: number }
  /** PUT the last subscription's status. */
  | { act: "set-status"; status: "ACTIVE" | "PAUSED" | "CANCELED" }
  /** DELETE the last subscription. */
  | { act: "unsubscribe" }
  /** Refund the last payment: all of it, a part, or more than what is left (refused). */
  | { act: "refund"; amount: "all" | "part" | "too much" }
  /** A card payout to this card (default an approving one). */
  | { act: "payout"; card?: string }
  /**
   * An APM pay-in of this method: with the fields it needs (`fields`), or without, so the hosted
   * page asks for them; a wallet with a decrypted card (`decrypted`) instead of a token.
   */
  | { act: "apm-pay"; method: string; fields: boolean; decrypted?: string }
  /** An APM payout of this method, with or without its fields (as above). */
  | { act: "apm-payout"; method: string; fields: boolean }
  /** The shopper answers the 3DS challenge of the last card transaction. */
  | { act: "3ds"; outcome: "success" | "failure" }
  /** The shopper answers the last APM transaction's page (hosted payment page or QR page). */
  | { act: "page"; outcome: "success" | "failure" }
  /** POST /_sandbox/transactions/{id}/complete on the last transaction. */
  | { act: "complete"; status: "SUCCEED" | "FAILED"; declineCode?: number }
  /** Move the virtual clock forward (an ISO 8601 duration). */
  | { act: "advance"; by: string }
  /** Replay the last delivery (POST /_sandbox/webhooks/{id}/replay). */
  | { act: "replay" }
  /** The last create call again with the same requestId: the same body, or a changed one. */
  | { act: "again"; changed: boolean }
  /** A gateway call that fails as asked: a wrong bearer token, an invalid body, an unknown id. */
  | { act: "bad-call"; fault: "token" | "body" | "unknown id" };

/** How to cause a behaviour: its acts, in order (src/coverage/hints.ts says it in words). */
export interface Cause {
  acts: readonly Act[];
}

export const cause = (...acts: Act[]): Cause => ({ acts });

/** A behaviour of the catalogue (docs/coverage.md#the-catalogue). */
export interface Behaviour {
  /** Stable, lowercase, dotted: `card.payment.failed.decline-5`. */
  id: string;
  area: Area;
  /** Plain words: what happened. */
  title: string;
  cause: Cause;
}
