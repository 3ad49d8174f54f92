/**
 * The status moves of each kind of transaction, as data (docs/lifecycles.md; the control plane's complete, docs/control-plane.md).
 * The lifecycle asserts every move against this table (create, settle, transition), so a move the
 * code makes that is missing here fails at once, and `npm run docs:diagrams` draws docs/lifecycles.md
 * from it: the table, the code and the pictures cannot drift apart.
 *
 * `from: START` is the status a create call answers with. `via` is what makes the move; a move may be
 * listed under several vias (a PROCESSING payment settles by its deadline or by the complete call).
 */
import type { TransactionKind } from "./kinds.js";

/** The pseudo-status before a transaction exists (Mermaid's `[*]`). */
export const START = "[*]";

/** Every status a transaction can be in, in the order the document lists them. */
export const TRANSACTION_STATUSES = ["PENDING", "PROCESSING", "CUSTOMER_VERIFICATION", "SUCCEED", "FAILED", "REFUNDED"] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** What makes a move. */
export type TransactionVia =
  /** the create call's answer */
  | "create"
  /** the shopper on the 3DS challenge page */
  | "3ds page"
  /** the shopper on the hosted payment page or the QR page */
  | "shopper page"
  /** the virtual clock reaching the row's deadline (3DS timeout, completeAfter) */
  | "deadline"
  /** POST /_sandbox/transactions/{id}/complete */
  | "complete call"
  /** the refunds of a payment adding up to its order amount */
  | "refunds";

export interface TransactionMove {
  from: TransactionStatus | typeof START;
  to: TransactionStatus;
  via: TransactionVia;
  /** A few words for people (the diagrams): no colon, semicolon or comma, which Mermaid or the joined labels would misread. */
  label: string;
}

const move = (from: TransactionMove["from"], to: TransactionStatus, via: TransactionVia, label: string): TransactionMove => ({
  from,
  to,
  via,
  label,
});

/** PROCESSING or PENDING ends by its deadline (`completeAfter`, the minute a refund takes) or the complete call. */
const settles = (from: "PROCESSING" | "PENDING", deadline: string): TransactionMove[] => [
  move(from, "SUCCEED", "deadline", deadline),
  move(from, "FAILED", "deadline", "completeAfter elapsed (declining rule)"),
  move(from, "SUCCEED", "complete call", "complete call SUCCEED"),
  move(from, "FAILED", "complete call", "complete call FAILED"),
];

/** Card payments, one-click and subscription charges (docs/cards.md#test-cards, docs/cards.md#3ds-challenge, docs/refunds-payouts.md). */
const CARD: readonly TransactionMove[] = [
  move(START, "SUCCEED", "create", "approved"),
  move(START, "FAILED", "create", "declined"),
  move(START, "CUSTOMER_VERIFICATION", "create", "3DS required"),
  move(START, "PROCESSING", "create", "rule PROCESSING"),
  move(START, "PENDING", "create", "rule PENDING"),
  move("CUSTOMER_VERIFICATION", "SUCCEED", "3ds page", "3DS challenge passed"),
  move("CUSTOMER_VERIFICATION", "FAILED", "3ds page", "3DS challenge failed (declineCode 3)"),
  move("CUSTOMER_VERIFICATION", "FAILED", "deadline", "no answer in 30 min (declineCode 4)"),
  ...settles("PROCESSING", "completeAfter elapsed"),
  ...settles("PENDING", "completeAfter elapsed"),
  move("SUCCEED", "REFUNDED", "refunds", "refunds reach the order amount"),
];

/** Refunds and card payouts: PENDING for a virtual minute, or declined at once (docs/lifecycles.md). */
const PENDING_FIRST: readonly TransactionMove[] = [
  move(START, "PENDING", "create", "accepted"),
  move(START, "FAILED", "create", "declined"),
  move(START, "PROCESSING", "create", "rule PROCESSING"),
  ...settles("PENDING", "1 min elapsed (or completeAfter)"),
  ...settles("PROCESSING", "completeAfter elapsed"),
];

/** APM pay-ins (docs/apm.md): wallets at once, direct ones a minute later, others on a page. */
const APM_PAYMENT: readonly TransactionMove[] = [
  move(START, "SUCCEED", "create", "wallet token"),
  move(START, "PROCESSING", "create", "direct pay-in"),
  move(START, "PENDING", "create", "waits for the shopper (HPP or QR page)"),
  move(START, "FAILED", "create", "declined"),
  move("PENDING", "PROCESSING", "shopper page", "shopper pays on the page"),
  move("PENDING", "FAILED", "shopper page", "shopper declines (declineCode 2)"),
  ...settles("PENDING", "completeAfter elapsed"),
  ...settles("PROCESSING", "1 min elapsed (or completeAfter)"),
];

/** APM payouts: PENDING, a minute later SUCCEED; the HPP when fields are missing. */
const APM_PAYOUT: readonly TransactionMove[] = [
  move(START, "PENDING", "create", "accepted"),
  move(START, "FAILED", "create", "declined"),
  move("PENDING", "PROCESSING", "shopper page", "fields entered on the page"),
  move("PENDING", "FAILED", "shopper page", "declined on the page (declineCode 2)"),
  ...settles("PENDING", "1 min elapsed (or completeAfter)"),
  ...settles("PROCESSING", "1 min elapsed"),
];

export const TRANSACTION_MOVES: Readonly<Record<TransactionKind, readonly TransactionMove[]>> = {
  card_payment: CARD,
  card_charge: CARD,
  subscription_charge: CARD,
  refund: PENDING_FIRST,
  card_payout: PENDING_FIRST,
  apm_payment: APM_PAYMENT,
  apm_payout: APM_PAYOUT,
};

/** Whether the table lists this move. */
export function isAllowedMove(kind: string, from: string, to: string, via: TransactionVia): boolean {
  const moves = (TRANSACTION_MOVES as Readonly<Record<string, readonly TransactionMove[] | undefined>>)[kind];
  return moves?.some((m) => m.from === from && m.to === to && m.via === via) ?? false;
}

/** A move the table does not list is a bug in the sandbox, not in the request: an internal error (500). */
export function assertMove(kind: string, from: string, to: string, via: TransactionVia): void {
  if (!isAllowedMove(kind, from, to, via)) {
    throw new Error(`illegal status move of a ${kind}: ${from} → ${to} by ${via} (src/modules/transactions/transitions.ts)`);
  }
}

type Statuses = [TransactionStatus, ...TransactionStatus[]];

/** The statuses moves of `kinds` lead to (all of them, or only the create call's answers), in TRANSACTION_STATUSES order. */
function reached(kinds: readonly TransactionKind[], first: boolean): Statuses {
  const to = new Set(kinds.flatMap((k) => TRANSACTION_MOVES[k].filter((m) => !first || m.from === START).map((m) => m.to)));
  return TRANSACTION_STATUSES.filter((s) => to.has(s)) as Statuses;
}

/** Every status a transaction of these kinds can be in: the `transactionStatus` enum of its reads and callbacks. */
export const statusesOf = (...kinds: TransactionKind[]): Statuses => reached(kinds, false);

/** The statuses a create call of this kind answers with: the enum of its create response. */
export const createStatusesOf = (...kinds: TransactionKind[]): Statuses => reached(kinds, true);

const KNOWN = new Set<string>(TRANSACTION_STATUSES);

/**
 * A stored status as the type it is: the lifecycle writes only statuses of the table (assertMove),
 * so anything else is a broken database, an internal error.
 */
export function asStatus(status: string): TransactionStatus {
  if (!KNOWN.has(status)) throw new Error(`unknown transaction status in the database: ${status}`);
  return status as TransactionStatus;
}

/** A final status (a settled charge's): SUCCEED or FAILED, anything else an internal error. */
export function asFinal(status: string): "SUCCEED" | "FAILED" {
  if (status !== "SUCCEED" && status !== "FAILED") throw new Error(`expected a final status, got ${status}`);
  return status;
}
