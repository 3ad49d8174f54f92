import { and, asc, desc, eq, inArray, isNotNull, isNull, lte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { preparedInsert } from "../db/insert.js";
import { lazy } from "../db/lazy.js";
import { webhookAttempts, webhookDeliveries } from "../db/schema/index.js";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
/** Every column but seq; the optional ones default to null. */
export type NewDeliveryInput = Omit<
  DeliveryRow,
  "seq" | "inFlightSince" | "replayOf" | "transactionId" | "subscriptionId" | "chaos"
> &
  Partial<Pick<DeliveryRow, "inFlightSince" | "replayOf" | "transactionId" | "subscriptionId" | "chaos">>;
/** What sending and recording an attempt need of a delivery. */
export type DueRow = Pick<DeliveryRow, "seq" | "id" | "orderKey" | "url" | "headers" | "body" | "attemptCount">;
export type AttemptRow = typeof webhookAttempts.$inferSelect;
export type DeliveryStatus = DeliveryRow["status"];

export interface JournalFilter {
  transactionId?: string | undefined;
  subscriptionId?: string | undefined;
  status?: DeliveryStatus | undefined;
  limit: number;
}

const d = webhookDeliveries;
const p = (name: string) => sql`${sql.placeholder(name)}`;

/**
 * Invariant kept by the outbox and the dispatcher: among the pending rows of one orderKey only the
 * first (lowest seq) carries a nextAttemptAt; the rows behind it have NULL until it settles. So the
 * due index (status, next_attempt_at) alone answers "what is due, and when", in one probe.
 */
export class WebhooksRepo {
  private readonly nextDue;
  private readonly due;
  private readonly markInFlight;
  private readonly settle;
  private readonly addAttempt;
  private readonly promote;
  private readonly pendingOfKey;
  private readonly pendingOfKeys;
  private readonly add;
  private readonly park;
  private readonly parkedRow;
  private readonly inFlightRow;

  constructor(private readonly db: Db) {
    this.nextDue = lazy(() =>
      db
        .select({ at: d.nextAttemptAt })
        .from(d)
        .where(and(eq(d.status, "pending"), isNotNull(d.nextAttemptAt)))
        .orderBy(asc(d.nextAttemptAt))
        .limit(1)
        .prepare(),
    );
    this.due = lazy(() =>
      db
        .select({
          seq: d.seq,
          id: d.id,
          orderKey: d.orderKey,
          url: d.url,
          headers: d.headers,
          body: d.body,
          attemptCount: d.attemptCount,
        })
        .from(d)
        .where(and(eq(d.status, "pending"), lte(d.nextAttemptAt, sql.placeholder("now"))))
        .orderBy(asc(d.nextAttemptAt), asc(d.seq))
        .limit(sql.placeholder("limit"))
        .prepare(),
    );
    this.markInFlight = lazy(() =>
      db
        .update(d)
        .set({ inFlightSince: p("at"), attemptCount: sql`${d.attemptCount} + 1`, nextAttemptAt: null, updatedAt: p("at") })
        .where(eq(d.seq, sql.placeholder("seq")))
        .prepare(),
    );
    this.settle = lazy(() =>
      db
        .update(d)
        .set({ status: p("status") as SQL<DeliveryStatus>, inFlightSince: null, nextAttemptAt: p("next"), updatedAt: p("at") })
        .where(and(eq(d.seq, sql.placeholder("seq")), isNotNull(d.inFlightSince)))
        .prepare(),
    );
    this.addAttempt = preparedInsert(db.$client, webhookAttempts);
    this.pendingOfKey = lazy(() =>
      db
        .select({ seq: d.seq })
        .from(d)
        .where(and(eq(d.orderKey, sql.placeholder("orderKey")), eq(d.status, "pending")))
        .limit(1)
        .prepare(),
    );
    // the same probe as pendingOfKey (webhook_order_idx) for each key of a JSON array
    this.pendingOfKeys = lazy(() =>
      db.$client
        .prepare(
          `SELECT k.value FROM json_each(?) k WHERE EXISTS
            (SELECT 1 FROM "webhook_deliveries" w WHERE w."order_key" = k.value AND w."status" = 'pending')`,
        )
        .pluck(),
    );
    this.add = preparedInsert(db.$client, d);
    this.park = lazy(() =>
      db
        .update(d)
        .set({ nextAttemptAt: null })
        .where(eq(d.seq, sql.placeholder("seq")))
        .prepare(),
    );
    this.parkedRow = lazy(() =>
      db
        .select({
          seq: d.seq,
          id: d.id,
          orderKey: d.orderKey,
          url: d.url,
          headers: d.headers,
          body: d.body,
          attemptCount: d.attemptCount,
        })
        .from(d)
        .where(and(eq(d.seq, sql.placeholder("seq")), eq(d.status, "pending"), isNull(d.nextAttemptAt), isNull(d.inFlightSince)))
        .prepare(),
    );
    this.inFlightRow = lazy(() =>
      db
        .select({ seq: d.seq })
        .from(d)
        .where(and(eq(d.seq, sql.placeholder("seq")), eq(d.id, sql.placeholder("id")), isNotNull(d.inFlightSince)))
        .prepare(),
    );
    const head = db
      .select({ seq: d.seq })
      .from(d)
      .where(and(eq(d.orderKey, sql.placeholder("orderKey")), eq(d.status, "pending")))
      .orderBy(asc(d.seq))
      .limit(1);
    this.promote = lazy(() =>
      db
        .update(d)
        .set({ nextAttemptAt: p("at"), updatedAt: p("at") })
        .where(and(eq(d.seq, head), isNull(d.nextAttemptAt), isNull(d.inFlightSince)))
        .prepare(),
    );
  }

  nextDueAt(): number | undefined {
    return this.nextDue.get()?.at ?? undefined;
  }

  dueRows(now: number, limit: number): DueRow[] {
    return this.due.all({ now, limit });
  }

  /**
   * Takes a due row off the due index while it waits in memory for its destination's turn (the
   * dispatcher's per-destination limit). A crash leaves it an orphan head, which recover() re-dues.
   */
  parkRow(seq: number): void {
    this.park.run({ seq });
  }

  /** A parked row, if it is still parked (not reset, settled or claimed meanwhile). */
  parked(seq: number): DueRow | undefined {
    return this.parkedRow.get({ seq });
  }

  markInFlightRow(seq: number, at: number): void {
    this.markInFlight.run({ seq, at });
  }

  /** Ends an in-flight attempt; false when the row is gone or no longer in flight (reset meanwhile). */
  settleRow(seq: number, status: DeliveryStatus, next: number | null, at: number): boolean {
    return this.settle.run({ seq, status, next, at }).changes > 0;
  }

  insertAttempt(a: Omit<AttemptRow, "id">): void {
    this.addAttempt(a);
  }

  /** Makes the next pending row of `orderKey` (if any) due at `at`; true when there was one. */
  promoteNext(orderKey: string, at: number): boolean {
    return this.promote.run({ orderKey, at }).changes > 0;
  }

  hasPending(orderKey: string): boolean {
    return this.pendingOfKey.get({ orderKey }) !== undefined;
  }

  /** Which of `orderKeys` have a pending delivery: one statement for a batch (issue 19), as hasPending each. */
  pendingOrderKeys(orderKeys: readonly string[]): Set<string> {
    return new Set(this.pendingOfKeys.all(JSON.stringify(orderKeys)) as string[]);
  }

  inFlightRows(): DeliveryRow[] {
    return this.db
      .select()
      .from(d)
      .where(and(eq(d.status, "pending"), isNotNull(d.inFlightSince)))
      .orderBy(asc(d.seq))
      .all();
  }

  /** Pending rows with no due time whose key has no earlier pending row: heads that lost their due time. */
  orphanHeads(): DeliveryRow[] {
    const e = sql.raw('"e"');
    return this.db
      .select()
      .from(d)
      .where(
        and(
          eq(d.status, "pending"),
          isNull(d.nextAttemptAt),
          isNull(d.inFlightSince),
          sql`NOT EXISTS (SELECT 1 FROM ${d} AS ${e} WHERE ${e}."order_key" = ${d.orderKey} AND ${e}."seq" < ${d.seq} AND ${e}."status" = 'pending')`,
        ),
      )
      .all();
  }

  setNextAttempt(seq: number, at: number): void {
    this.db.update(d).set({ nextAttemptAt: at, updatedAt: at }).where(eq(d.seq, seq)).run();
  }

  /** Inserts a delivery; returns its seq. */
  insert(row: NewDeliveryInput): number {
    return Number(
      this.add({ inFlightSince: null, replayOf: null, transactionId: null, subscriptionId: null, chaos: null, ...row })
        .lastInsertRowid,
    );
  }

  /** Whether the row `seq` is still delivery `id` and in flight (not rolled back with its request's savepoint). */
  isInFlight(seq: number, id: string): boolean {
    return this.inFlightRow.get({ seq, id }) !== undefined;
  }

  /** Whether a reordered delivery of the transaction is still waiting for its next one (chaos.ts). */
  hasHeld(transactionId: string): boolean {
    return (
      this.db
        .select({ seq: d.seq })
        .from(d)
        .where(and(eq(d.transactionId, transactionId), eq(d.chaos, "reorder"), eq(d.status, "pending"), eq(d.attemptCount, 0)))
        .limit(1)
        .get() !== undefined
    );
  }

  /** Reordered deliveries of a transaction not yet attempted (chaos.ts): due at `at`. */
  releaseHeld(transactionId: string, except: string[], at: number): void {
    this.db
      .update(d)
      .set({ nextAttemptAt: at, updatedAt: at })
      .where(
        and(
          eq(d.transactionId, transactionId),
          eq(d.chaos, "reorder"),
          eq(d.status, "pending"),
          eq(d.attemptCount, 0),
          isNull(d.inFlightSince),
          isNotNull(d.nextAttemptAt),
          sql`${d.id} NOT IN (${sql.join(
            except.map((e) => sql`${e}`),
            sql`, `,
          )})`,
        ),
      )
      .run();
  }

  byId(id: string): DeliveryRow | undefined {
    return this.db.select().from(d).where(eq(d.id, id)).get();
  }

  list(f: JournalFilter): DeliveryRow[] {
    const where = and(
      f.transactionId !== undefined ? eq(d.transactionId, f.transactionId) : undefined,
      f.subscriptionId !== undefined ? eq(d.subscriptionId, f.subscriptionId) : undefined,
      f.status !== undefined ? eq(d.status, f.status) : undefined,
    );
    return this.db.select().from(d).where(where).orderBy(desc(d.seq)).limit(f.limit).all();
  }

  attemptsOf(deliveryIds: string[]): AttemptRow[] {
    if (deliveryIds.length === 0) return [];
    return this.db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, deliveryIds))
      .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.n))
      .all();
  }
}
