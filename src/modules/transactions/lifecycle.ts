/**
 * One lifecycle for every kind of transaction (docs/lifecycles.md, docs/webhooks.md; the control plane's complete, docs/control-plane.md):
 * insert with the callback of the first status, status changes with theirs, deadlines that end a
 * waiting status by the clock (3DS timeouts, `completeAfter`, the minute a refund or payout takes),
 * and the control plane's complete call. What differs per kind — its callback shape, signer row,
 * the query added to callbackUrl — is its KindDescriptor, registered in the composition root.
 *
 * Every method that changes state runs inside the caller's database transaction (or batch) and writes
 * the change with its side effects in one statement (transactions.repo.ts): the `transaction` event
 * and the callback's delivery (the transactional outbox; the dispatcher places it at the commit).
 * Every status it writes, the first included, is checked against the kind's table (transitions.ts),
 * which docs/lifecycles.md draws: a move the table lacks throws an internal error before anything is written.
 *
 * LIMITATIONS:
 * - a waiting outcome without a deadline (PROCESSING with no `completeAfter`) waits for the complete
 *   call forever.
 */
import { performance } from "node:perf_hooks";
import { type Db, inTransaction } from "../../db/client.js";
import type { Merchant } from "../../db/schema/index.js";
import { type Behaviour, cause, type Seen, UNSEEN } from "../../platform/behaviours.js";
import type { Clock } from "../../platform/clock.js";
import { addDuration, parseDuration } from "../../platform/duration.js";
import { conflict, notFound } from "../../platform/errors.js";
import { type OutcomeSpec, TEST_CARDS } from "../../platform/fixtures.js";
import type { DueWork } from "../../scheduler/due-work.js";
import type { EnqueueInput, Outbox } from "../../webhooks/outbox.js";
import type { CallbackKind } from "../../webhooks/signer.js";
import { KIND_FACTS, type TransactionKind } from "./kinds.js";
import { type DueSet, type KeyColumns, type TransactionRow, TransactionsRepo } from "./transactions.repo.js";
import type { CompleteRequest, CompleteResponse } from "./transactions.wire.js";
import { assertMove, START, type TransactionVia } from "./transitions.js";

export type { TransactionVia } from "./transitions.js";

export type { TransactionRow };

/** Decline codes the lifecycle and its kinds use (fixtures/decline-codes.json). */
export const DECLINE = {
  REJECTED_BY_ISSUER: 2,
  THREE_DS_AUTHENTICATION: 3,
  FORM_TIMEOUT: 4,
  CURRENCY_EXCHANGE_NOT_ALLOWED: 15,
} as const;

/** An unanswered 3DS challenge fails after this long (virtual time). */
export const CHALLENGE_TIMEOUT_MS = 30 * 60_000;

/** A card that always asks for 3DS (its payment column is CUSTOMER_VERIFICATION). */
const CHALLENGED = TEST_CARDS.find((c) => c.payment.status === "CUSTOMER_VERIFICATION")?.number;

/**
 * How a 3DS challenge ended (docs/coverage.md): passed, failed, or not answered in time. Noted where
 * it ends, as the transaction leaves CUSTOMER_VERIFICATION (its events alone do not say it came from there).
 */
export const THREE_DS_ENDS: Readonly<Record<"passed" | "failed" | "timedOut", Behaviour>> = {
  passed: {
    id: "card.3ds.passed",
    area: "card",
    title: "3DS challenge passed",
    cause: cause({ act: "pay", card: CHALLENGED }, { act: "3ds", outcome: "success" }),
  },
  failed: {
    id: "card.3ds.failed",
    area: "card",
    title: `3DS challenge failed (declineCode ${DECLINE.THREE_DS_AUTHENTICATION})`,
    cause: cause({ act: "pay", card: CHALLENGED }, { act: "3ds", outcome: "failure" }),
  },
  timedOut: {
    id: "card.3ds.timed-out",
    area: "card",
    title: `3DS challenge not answered in 30 minutes (declineCode ${DECLINE.FORM_TIMEOUT})`,
    cause: cause({ act: "pay", card: CHALLENGED }, { act: "advance", by: "PT30M" }),
  },
};

/** How long a refund or payout stays PENDING before it settles by itself (docs/lifecycles.md). */
export const SETTLE_AFTER = "PT1M";

export const WAITING = new Set(["CUSTOMER_VERIFICATION", "PROCESSING", "PENDING"]);
const COMPLETABLE = new Set(["PROCESSING", "PENDING"]);

export type FinalStatus = "SUCCEED" | "FAILED";

/** What one kind does differently; registered once per kind in the composition root. */
export interface KindDescriptor {
  kind: TransactionKind;
  /**
   * The callback a status change of this kind sends to the row's callbackUrl (none when the row has
   * no callbackUrl): the signer row (src/webhooks/signer.ts), the body, and for APM the `apmType`
   * added to the query. `paymentMethod` of the query comes from KIND_FACTS.
   */
  callback: {
    kind: CallbackKind;
    present(row: TransactionRow, merchant: Merchant): Record<string, unknown>;
    apmType?(row: TransactionRow): string | undefined;
  };
}

/** Runs inside the settling transaction whenever a waiting transaction reaches its final status. */
export type SettledListener = (row: TransactionRow) => void;

/** What a create writes with its row besides the row's own event. */
export interface CreateEffects {
  /**
   * The first status's callback body, presented by the service that creates the row (it knows its
   * kind): else the kind's descriptor presents it.
   */
  callback?: Record<string, unknown>;
  /** The create's idempotency key, written with the row (src/modules/idempotency/). */
  key?: KeyColumns;
}

export interface LifecycleDeps {
  db: Db;
  clock: Clock;
  outbox: Outbox;
  merchantOf: (merchantKey: string) => Merchant | undefined;
  /** Notes how a 3DS challenge ended, for the coverage report (docs/coverage.md). */
  seen?: Seen;
}

const NO_DUE: DueSet = { dueAt: null, dueStatus: null, dueDeclineCode: null };

/**
 * The deadline columns of a new status: when and how a waiting outcome ends by itself. A 3DS
 * challenge fails after 30 minutes (declineCode 4); PROCESSING/PENDING with `completeAfter` ends in
 * `completeWith` (or FAILED when the outcome names a declineCode, else SUCCEED); anything else has
 * none (all three null), so a row spreads the result as it is.
 */
export function deadlineOf(spec: OutcomeSpec, now: number): DueSet {
  if (spec.status === "CUSTOMER_VERIFICATION") {
    return { dueAt: now + CHALLENGE_TIMEOUT_MS, dueStatus: "FAILED", dueDeclineCode: DECLINE.FORM_TIMEOUT };
  }
  if ((spec.status === "PROCESSING" || spec.status === "PENDING") && spec.completeAfter) {
    const d = parseDuration(spec.completeAfter);
    if (!d) return NO_DUE;
    const status = spec.completeWith ?? (spec.declineCode !== undefined ? "FAILED" : "SUCCEED");
    return {
      dueAt: addDuration(now, d),
      dueStatus: status,
      dueDeclineCode: status === "FAILED" ? (spec.declineCode ?? DECLINE.REJECTED_BY_ISSUER) : null,
    };
  }
  return NO_DUE;
}

/** The declineCode a decided outcome carries: its own, 2 when a FAILED outcome names none, else null. */
export const declineOf = (spec: OutcomeSpec): number | null =>
  spec.status === "FAILED" ? (spec.declineCode ?? DECLINE.REJECTED_BY_ISSUER) : null;

/**
 * For kinds that are never final at once when they succeed (refunds, payouts; docs/lifecycles.md): an
 * approving outcome becomes PENDING that settles SUCCEED a virtual minute later; a decline stays
 * FAILED at once; a waiting outcome from a rule keeps its own `completeAfter`.
 */
export function pendingFirst(spec: OutcomeSpec): PendingFirstSpec {
  if (spec.status === "SUCCEED" || spec.status === "CUSTOMER_VERIFICATION") {
    return { status: "PENDING", completeAfter: SETTLE_AFTER, completeWith: "SUCCEED" };
  }
  return { ...spec, status: spec.status };
}

/** An outcome as pendingFirst leaves it: PENDING, PROCESSING or FAILED, the statuses a refund or payout answers with. */
export type PendingFirstSpec = OutcomeSpec & { status: Exclude<OutcomeSpec["status"], "SUCCEED" | "CUSTOMER_VERIFICATION"> };

export class TransactionLifecycle implements DueWork {
  readonly name = "transactions";
  private readonly repo: TransactionsRepo;
  private readonly kinds = new Map<string, KindDescriptor>();
  private readonly listeners: SettledListener[] = [];

  constructor(private readonly deps: LifecycleDeps) {
    this.repo = new TransactionsRepo(deps.db);
  }

  register(descriptor: KindDescriptor): void {
    this.kinds.set(descriptor.kind, descriptor);
  }

  onSettled(listener: SettledListener): void {
    this.listeners.push(listener);
  }

  /**
   * Inside a transaction or a batch: a new row, with its event, the callback of its first status and
   * `effects.key`, written whole (one a merchant with webhook chaos needs a transaction for: its
   * deliveries are written apart, src/webhooks/chaos.ts). With a key whose requestId already has one,
   * nothing is written and the answer is undefined: the caller replays the first answer.
   */
  create(row: TransactionRow, merchant: Merchant, effects: CreateEffects & { key: KeyColumns }): TransactionRow | undefined;
  create(row: TransactionRow, merchant: Merchant, effects?: Omit<CreateEffects, "key">): TransactionRow;
  create(row: TransactionRow, merchant: Merchant, effects: CreateEffects = {}): TransactionRow | undefined {
    assertMove(row.kind, START, row.status, "create");
    const callback = this.callbackOf(row, merchant, true, effects.callback);
    if (callback && merchant.webhookChaos) {
      return inTransaction(this.deps.db, () => {
        if (!this.repo.create(row, merchant.mid, undefined, effects.key)) return undefined;
        this.deps.outbox.enqueue(callback);
        return row;
      });
    }
    return this.repo.create(row, merchant.mid, callback && this.deps.outbox.prepare(callback), effects.key) ? row : undefined;
  }

  get(id: string): TransactionRow | undefined {
    return this.repo.byId(id);
  }

  /** A merchant's transaction of one of `kinds`; unknown, another kind or another merchant's → 404 (docs/lifecycles.md). */
  getOwn(merchant: Merchant, id: string, kinds: readonly TransactionKind[], label = "Transaction"): TransactionRow {
    const row = this.repo.byId(id);
    if (!row || row.merchantKey !== merchant.merchantKey || !kinds.includes(row.kind as TransactionKind)) {
      throw notFound(`${label} not found: ${id}`);
    }
    return row;
  }

  /** Inside a transaction: a kind's own data changes without a status change (fields an HPP collected). */
  setDetails(id: string, details: Record<string, unknown>): void {
    this.repo.setDetails(id, details);
  }

  /** Sums of a payment's refunds that are not FAILED (or only the SUCCEED ones). */
  refundTotals(parentId: string, only?: "not-failed" | "SUCCEED") {
    return this.repo.refundTotals(parentId, only);
  }

  /**
   * Inside a transaction: a waiting transaction reaches its final status, with its callback, then
   * the listeners (subscriptions, refunds) in the same transaction.
   */
  settle(row: TransactionRow, status: FinalStatus, declineCode: number | null, via: TransactionVia): TransactionRow {
    const updated = this.transition(row, status, declineCode, via);
    if (row.status === "CUSTOMER_VERIFICATION") {
      const end = status === "SUCCEED" ? "passed" : via === "deadline" ? "timedOut" : "failed";
      (this.deps.seen ?? UNSEEN)(THREE_DS_ENDS[end].id, { transactionId: row.id, at: updated.updatedAt });
    }
    for (const l of this.listeners) l(updated);
    return updated;
  }

  /**
   * Inside a transaction: any other status change the merchant can observe (REFUNDED; an HPP answer
   * moving a pay-in to PROCESSING with the deadline it now has), with its callback.
   */
  transition(
    row: TransactionRow,
    status: string,
    declineCode: number | null,
    via: TransactionVia,
    due: DueSet = NO_DUE,
  ): TransactionRow {
    assertMove(row.kind, row.status, status, via);
    const now = this.deps.clock.nowMs();
    const set = { status, declineCode, updatedAt: now, ...due };
    const updated: TransactionRow = { ...row, ...set };
    const merchant = this.merchantOf(updated);
    const callback = this.callbackOf(updated, merchant, false);
    if (callback && merchant.webhookChaos) {
      this.repo.move(row.id, set, undefined);
      this.deps.outbox.enqueue(callback);
    } else this.repo.move(row.id, set, callback && this.deps.outbox.prepare(callback));
    return updated;
  }

  /** The control plane's complete (docs/control-plane.md): PROCESSING/PENDING → SUCCEED or FAILED (default declineCode 2), else 409. */
  complete(id: string, input: CompleteRequest): CompleteResponse {
    const row = inTransaction(this.deps.db, () => {
      const current = this.repo.byId(id);
      if (!current) throw notFound(`Transaction not found: ${id}`);
      if (!COMPLETABLE.has(current.status)) {
        throw conflict(`Transaction ${id} is ${current.status}; only PROCESSING or PENDING can be completed`);
      }
      const code = input.status === "FAILED" ? (input.declineCode ?? DECLINE.REJECTED_BY_ISSUER) : null;
      return this.settle(current, input.status, code, "complete call");
    });
    return { transactionId: row.id, transactionStatus: input.status, declineCode: row.declineCode };
  }

  /** DueWork: the earliest deadline of a waiting transaction. */
  nextDueAt(): number | undefined {
    return this.repo.nextDueAt();
  }

  /**
   * DueWork: settles what is due by `now` (challenge timeouts, completions), one transaction each,
   * until `deadline` (the runner's slice; the rest stays due for its next run).
   */
  run(now: number, deadline = Number.POSITIVE_INFINITY): { completions: number } {
    let n = 0;
    let first = true;
    for (const due of this.repo.dueBy(now, 200)) {
      if (!first && performance.now() > deadline) break;
      first = false;
      inTransaction(this.deps.db, () => {
        const current = this.repo.byId(due.id);
        if (!current || current.dueAt === null || current.dueAt > now) return;
        if (!WAITING.has(current.status) || (current.dueStatus !== "SUCCEED" && current.dueStatus !== "FAILED")) {
          this.repo.setDue(current.id, NO_DUE);
          return;
        }
        const code = current.dueStatus === "FAILED" ? (current.dueDeclineCode ?? DECLINE.REJECTED_BY_ISSUER) : null;
        this.settle(current, current.dueStatus, code, "deadline");
        n++;
      });
    }
    return { completions: n };
  }

  merchantOf(row: TransactionRow): Merchant {
    const m = this.deps.merchantOf(row.merchantKey);
    if (!m) throw notFound(`Merchant of transaction ${row.id} no longer exists`);
    return m;
  }

  /** The callback of the row's current status, when it has a callbackUrl: its body given, or its kind's. */
  private callbackOf(
    row: TransactionRow,
    merchant: Merchant,
    first: boolean,
    body?: Record<string, unknown>,
  ): EnqueueInput | undefined {
    if (!row.callbackUrl) return undefined;
    const d = this.kinds.get(row.kind);
    if (!d) throw new Error(`transaction kind ${row.kind} has no descriptor`);
    return {
      merchant,
      kind: d.callback.kind,
      callbackUrl: row.callbackUrl,
      paymentMethod: KIND_FACTS[d.kind].paymentMethod,
      apmType: d.callback.apmType?.(row) || undefined,
      transactionId: row.id,
      first,
      eventStatus: row.status,
      body: body ?? d.callback.present(row, merchant),
    };
  }
}
