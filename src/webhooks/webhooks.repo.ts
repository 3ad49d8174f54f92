import type Database from "better-sqlite3";
import { and, asc, desc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { lazy } from "../db/lazy.js";
import { ofTransaction, webhookAttempts, webhookDeliveries } from "../db/schema/index.js";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
/** Every column but seq; the optional ones default to null. */
export type NewDeliveryInput = Omit<
  DeliveryRow,
  "seq" | "inFlightSince" | "replayOf" | "transactionId" | "subscriptionId" | "chaos"
> &
  Partial<Pick<DeliveryRow, "inFlightSince" | "replayOf" | "transactionId" | "subscriptionId" | "chaos">>;
/** A new delivery with its headers already as the JSON text stored (the outbox makes it once: docs/performance.md). */
export type NewDeliveryText = Omit<NewDeliveryInput, "headers"> & { headers: string };
/**
 * What sending and recording an attempt need of a delivery; `headers` as stored (JSON text): it goes
 * to the sender thread as it is, and is parsed there (no parse and clone of an object).
 */
export type DueRow = Pick<DeliveryRow, "seq" | "id" | "orderKey" | "url" | "body" | "attemptCount"> & { headers: string };

/** How an attempt ended, as attempt_results (migration 0009) records it with its event and the delivery's new state. */
export interface AttemptResult {
  seq: number;
  n: number;
  at: number;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  /** The delivery's state after it: delivered, failed, or pending again at `nextAttemptAt`. */
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  endedAt: number;
  /** Where it was sent, userinfo masked (the event shows it). */
  url: string;
}
export type AttemptRow = typeof webhookAttempts.$inferSelect;
export type DeliveryStatus = DeliveryRow["status"];

export interface JournalFilter {
  transactionId?: string | undefined;
  subscriptionId?: string | undefined;
  status?: DeliveryStatus | undefined;
  limit: number;
}

const d = webhookDeliveries;

/**
 * The dispatcher's statements, in plain SQL run by better-sqlite3 with positional parameters (issue
 * 19): each delivery goes through about five of them, and drizzle's per-run placeholder filling and
 * row mapping cost more than SQLite's own work. A claim's writes take the chunk's seqs as one JSON
 * array (json_each): one statement per chunk rather than one per row.
 */
const DUE_COLUMNS = `d.seq, d.id, d.order_key AS orderKey, d.url, d.headers, d.body, d.attempt_count AS attemptCount`;
const DUE_FROM = `webhook_deliveries AS d`;
const HOT = {
  nextDue: `SELECT next_attempt_at AS at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`,
  due: `SELECT ${DUE_COLUMNS} FROM ${DUE_FROM} WHERE d.status = 'pending' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.seq LIMIT ?`,
  parked: `SELECT ${DUE_COLUMNS} FROM ${DUE_FROM} WHERE d.seq IN (SELECT value FROM json_each(?)) AND d.status = 'pending' AND d.next_attempt_at IS NULL AND d.in_flight_since IS NULL`,
  markInFlight: `UPDATE webhook_deliveries SET in_flight_since = ?, attempt_count = attempt_count + 1, next_attempt_at = NULL, updated_at = ? WHERE seq IN (SELECT value FROM json_each(?))`,
  park: `UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE seq IN (SELECT value FROM json_each(?))`,
  // the attempt, its event and the delivery's new state in one statement (migration 0009)
  result: `INSERT INTO attempt_results (seq, n, at, http_status, error, duration_ms, status, next_attempt_at, ended_at, url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // what a batch wrote for the sender, by id: the rows still there (not rolled back with their request) leave in flight
  flyWritten: `UPDATE webhook_deliveries SET in_flight_since = ?, attempt_count = attempt_count + 1, updated_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending' AND in_flight_since IS NULL AND next_attempt_at IS NULL RETURNING seq, id`,
  seqsOf: `SELECT seq, id FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending' AND in_flight_since IS NULL`,
  add: `INSERT INTO webhook_deliveries (id, merchant_key, kind, order_key, transaction_id, subscription_id, event_status, url, headers, body, status, attempt_count, next_attempt_at, in_flight_since, replay_of, chaos, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  promote: `UPDATE webhook_deliveries SET next_attempt_at = ?, updated_at = ? WHERE seq = (SELECT seq FROM webhook_deliveries WHERE order_key = ? AND status = 'pending' ORDER BY seq LIMIT 1) AND next_attempt_at IS NULL AND in_flight_since IS NULL`,
} as const;
type HotName = keyof typeof HOT;

/**
 * Invariant kept by the outbox and the dispatcher: among the pending rows of one orderKey only the
 * first (lowest seq) carries a nextAttemptAt; the rows behind it have NULL until it settles. So the
 * due index (status, next_attempt_at) alone answers "what is due, and when", in one probe.
 */
/** The attempts of some deliveries, by delivery then attempt number (the journal and the dashboard). */
export function attemptsOf(db: Db, deliveryIds: string[]): AttemptRow[] {
  if (deliveryIds.length === 0) return [];
  return db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.n))
    .all();
}

export class WebhooksRepo {
  /** The hot statements, each prepared on first use. */
  private readonly hot: Record<HotName, Database.Statement>;
  private readonly pendingOfKey;
  private readonly pendingOfKeys;

  constructor(private readonly db: Db) {
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
    const hot = {} as Record<HotName, Database.Statement>;
    for (const name of Object.keys(HOT) as HotName[]) hot[name] = lazy(() => db.$client.prepare(HOT[name]));
    this.hot = hot;
  }

  nextDueAt(): number | undefined {
    return (this.hot.nextDue.get() as { at: number } | undefined)?.at;
  }

  dueRows(now: number, limit: number): DueRow[] {
    return this.hot.due.all(now, limit) as DueRow[];
  }

  /**
   * Takes due rows off the due index while they wait in memory for their destination's turn (the
   * dispatcher's per-destination limit). A crash leaves them orphan heads, which recover() re-dues.
   */
  parkRows(seqs: number[]): void {
    if (seqs.length > 0) this.hot.park.run(JSON.stringify(seqs));
  }

  /** Of these parked rows, those still parked (not reset, settled or claimed meanwhile), in no order. */
  parkedRows(seqs: number[]): DueRow[] {
    return seqs.length === 0 ? [] : (this.hot.parked.all(JSON.stringify(seqs)) as DueRow[]);
  }

  /** Marks rows in flight (their attempt started at `at`): off the due index, attempt count + 1. */
  markInFlightRows(seqs: number[], at: number): void {
    if (seqs.length > 0) this.hot.markInFlight.run(at, at, JSON.stringify(seqs));
  }

  /**
   * Records an attempt's answer: its row, its event and the delivery's new state, in one statement;
   * nothing when the delivery is no longer in flight (reset, or recorded as interrupted meanwhile).
   */
  recordResult(r: AttemptResult): void {
    this.hot.result.run(r.seq, r.n, r.at, r.httpStatus, r.error, r.durationMs, r.status, r.nextAttemptAt, r.endedAt, r.url);
  }

  /**
   * Of the deliveries a batch wrote for the sender (by id), those still there leave in flight now
   * (their attempt `at`); returns their seqs. Rows rolled back with their request are not there.
   */
  flyWritten(ids: readonly string[], at: number): Array<{ seq: number; id: string }> {
    return ids.length === 0 ? [] : (this.hot.flyWritten.all(at, at, JSON.stringify(ids)) as Array<{ seq: number; id: string }>);
  }

  /** The seqs of deliveries written for the sender that wait (their destination is full): those still there. */
  seqsOf(ids: readonly string[]): Array<{ seq: number; id: string }> {
    return ids.length === 0 ? [] : (this.hot.seqsOf.all(JSON.stringify(ids)) as Array<{ seq: number; id: string }>);
  }

  /** Makes the next pending row of `orderKey` (if any) due at `at`; true when there was one. */
  promoteNext(orderKey: string, at: number): boolean {
    return this.hot.promote.run(at, at, orderKey).changes > 0;
  }

  hasPending(orderKey: string): boolean {
    return this.pendingOfKey.get({ orderKey }) !== undefined;
  }

  /** Which of `orderKeys` have a pending delivery: one statement for a batch (docs/performance.md), as hasPending each. */
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
    return this.insertText({ ...row, headers: JSON.stringify(row.headers) });
  }

  /**
   * Inserts a delivery whose headers are already JSON text (stored as they are: the same bytes the
   * json column writes); returns its seq. Plain SQL with positional values: no pass over a row object.
   */
  insertText(row: NewDeliveryText): number {
    return Number(
      this.hot.add.run(
        row.id,
        row.merchantKey,
        row.kind,
        row.orderKey,
        row.transactionId ?? null,
        row.subscriptionId ?? null,
        row.eventStatus,
        row.url,
        row.headers,
        row.body,
        row.status,
        row.attemptCount,
        row.nextAttemptAt,
        row.inFlightSince ?? null,
        row.replayOf ?? null,
        row.chaos ?? null,
        row.createdAt,
        row.updatedAt,
      ).lastInsertRowid,
    );
  }

  /** Whether a reordered delivery of the transaction is still waiting for its next one (chaos.ts). */
  hasHeld(transactionId: string): boolean {
    return (
      this.db
        .select({ seq: d.seq })
        .from(d)
        .where(and(ofTransaction(transactionId), eq(d.chaos, "reorder"), eq(d.status, "pending"), eq(d.attemptCount, 0)))
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
          ofTransaction(transactionId),
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
      f.transactionId !== undefined ? ofTransaction(f.transactionId) : undefined,
      f.subscriptionId !== undefined ? eq(d.subscriptionId, f.subscriptionId) : undefined,
      f.status !== undefined ? eq(d.status, f.status) : undefined,
    );
    return this.db.select().from(d).where(where).orderBy(desc(d.seq)).limit(f.limit).all();
  }

  attemptsOf(deliveryIds: string[]): AttemptRow[] {
    return attemptsOf(this.db, deliveryIds);
  }
}

/** The note a copy's journal shows on what its source still had to send (docs/snapshots.md). */
export const SKIPPED_COPIED = "skipped (copied): pending in the sandbox this one was copied from; a copy never sends it";

/**
 * In a copy of a sandbox (docs/snapshots.md): every delivery still pending in the source (due, waiting
 * behind another, or on the wire) becomes `skipped`, with the note as its last attempt's error, so the
 * copy never sends what its source sends. Returns how many.
 */
export function skipCopiedDeliveries(db: Db, at: number): number {
  const sqlite = db.$client;
  sqlite
    .prepare(
      `INSERT INTO webhook_attempts (delivery_id, n, at, http_status, error)
       SELECT id, attempt_count + 1, ?, NULL, ? FROM webhook_deliveries WHERE status = 'pending'`,
    )
    .run(at, SKIPPED_COPIED);
  return sqlite
    .prepare(
      `UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL, in_flight_since = NULL, updated_at = ?
       WHERE status = 'pending'`,
    )
    .run(at).changes;
}
