/**
 * Payment-behaviour coverage of one sandbox (docs/coverage.md): which behaviours of the catalogue
 * happened here since its last reset, how often, and the first evidence of each.
 *
 * How it is counted, without work on a request's path:
 * - the event log (src/events/) already holds every status change of every transaction and every
 *   webhook attempt; it is folded into one row per behaviour (`coverage_seen`) after commit, in the
 *   background once a few thousand events wait, before the retention deletes any, and for the rest
 *   when the report is read (so a read folds at most FOLD_AT events: it stays fast however long the log);
 * - what no log shows (a subscription's move, how a 3DS challenge ended, a replay or a conflict of a
 *   requestId, the shopper's answer on a page, an error answer of the gateway) is noted where it happens (`seen`), one upsert
 *   in the change's own transaction (a refusal's, after the request's own writes rolled back);
 * - tokens are counted from the tokens the sandbox holds.
 * A reset empties the rows and moves the fold past the reset; a copy (fork, loaded snapshot) starts
 * with its source's rows and folds on from where its source was.
 */
import type Database from "better-sqlite3";
import type { Context } from "hono";
import { type Db, inBatch, inTransaction, journalImage } from "../db/client.js";
import { lazy } from "../db/lazy.js";
import type { CoverageSeenRow } from "../db/schema/index.js";
import { Sqlite } from "../db/sqlite-driver.js";
import type { AppEnv } from "../http/env.js";
import { GATEWAY_PREFIXES } from "../http/gateway.js";
import { AREAS, type Evidence, type Seen } from "../platform/behaviours.js";
import { type Clock, toIso } from "../platform/clock.js";
import { errorBehaviour } from "./catalogue/errors.js";
import { TOKEN_CREATED } from "./catalogue/transactions.js";
import { AREA_TITLES, catalogue } from "./catalogue.js";
import type { CoverageReport } from "./coverage.wire.js";
import { type EventRow, foldEvents, type Tally, type TxFacts } from "./fold.js";

/** Unfolded events at which the fold runs in the background (a read folds fewer than this). */
export const FOLD_AT = 2_048;
/** Events folded per step (one turn of the event loop). */
const CHUNK = 2_000;
/** Where the fold has reached, in sandbox_state (kept by a reset, which moves it). */
const CURSOR_KEY = "coverage_folded_to";

/** What the coverage needs of the event log: its newest committed id, and to hear of commits and prunes. */
export interface CoverageEvents {
  readonly newest: number;
  onCommitted(listener: (newest: number) => void): void;
  onBeforePrune(listener: (upTo: number) => void): void;
}

export interface CoverageDeps {
  db: Db;
  clock: Clock;
  events: CoverageEvents;
  /** The image a copy was made from, which `reset {"snapshot": true}` goes back to (docs/snapshots.md). */
  origin?: () => Buffer | undefined;
}

export class CoverageService {
  private readonly db: Db;
  private readonly upsert;
  private readonly eventsAfter;
  private readonly maxEvent;
  private readonly lastReset;
  private readonly factsOf;
  private readonly readCursor;
  private readonly writeCursor;
  private readonly rows;
  private readonly tokens;
  /** Where the fold was last seen to be (the saved cursor is the truth: a batch that rolls back takes its move back). */
  private reached: number | undefined;
  private scheduled = false;

  /**
   * Notes a behaviour nothing else records, in the caller's transaction (or the turn's batch).
   * Passed to the services that produce such behaviours.
   */
  readonly seen: Seen = (behaviour, evidence) => {
    inBatch(this.db, () => this.add(behaviour, 1, evidence));
  };

  constructor(private readonly deps: CoverageDeps) {
    const sqlite = deps.db.$client;
    this.db = deps.db;
    this.upsert = lazy(() =>
      sqlite.prepare(
        "INSERT INTO coverage_seen (behaviour, count, first_at, transaction_id, subscription_id, delivery_id, request)" +
          " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (behaviour) DO UPDATE SET count = count + excluded.count",
      ),
    );
    // rows as arrays: the fold reads every event a sandbox writes (docs/performance.md)
    this.eventsAfter = lazy(() =>
      sqlite
        .prepare<[number, number, number], EventRow>(
          "SELECT id, type, transaction_id, data FROM events WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
        )
        .raw(),
    );
    this.maxEvent = lazy(() => sqlite.prepare("SELECT max(id) FROM events").pluck());
    this.lastReset = lazy(() => sqlite.prepare("SELECT max(id) FROM events WHERE type = 'reset'").pluck());
    this.factsOf = lazy(() =>
      sqlite.prepare<[string], TxFacts & { id: string }>(
        "SELECT t.id AS id, t.payment_method AS paymentMethod, t.order_amount AS orderAmount," +
          " t.order_currency AS orderCurrency, t.processed_currency AS processedCurrency, p.order_amount AS parentAmount" +
          " FROM transactions AS t LEFT JOIN transactions AS p ON p.id = t.parent_id WHERE t.id IN (SELECT value FROM json_each(?))",
      ),
    );
    this.readCursor = lazy(() => sqlite.prepare("SELECT value FROM sandbox_state WHERE key = ?").pluck());
    this.writeCursor = lazy(() =>
      sqlite.prepare(
        "INSERT INTO sandbox_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
    );
    this.rows = lazy(() =>
      sqlite.prepare<[], CoverageSeenRow>(
        "SELECT behaviour, count, first_at AS firstAt, transaction_id AS transactionId, subscription_id AS subscriptionId," +
          " delivery_id AS deliveryId, request FROM coverage_seen",
      ),
    );
    this.tokens = lazy(() =>
      sqlite.prepare<[], { n: number; token: string | null; at: number | null }>(
        "SELECT (SELECT count(*) FROM card_tokens) AS n, token, created_at AS at FROM (SELECT 1) LEFT JOIN" +
          " (SELECT token, created_at FROM card_tokens ORDER BY rowid LIMIT 1)",
      ),
    );
    deps.events.onCommitted((newest) => this.behind(newest));
    deps.events.onBeforePrune((upTo) => this.foldTo(upTo));
  }

  /**
   * A gateway call answered with an error (the awaitCommit middleware, before the answer leaves):
   * its kind (docs/api.md#errors), and the behaviour its refusal is, when a module named one.
   */
  answered(c: Context<AppEnv>): void {
    const path = c.req.path;
    if (!GATEWAY_PREFIXES.some((p) => path.startsWith(`${p}/`))) return;
    const evidence: Evidence = { request: `${c.req.method} ${path}`, at: this.deps.clock.nowMs() };
    const kind = errorBehaviour(c.res.status);
    const own = c.get("behaviour");
    if (!this.db.$client.open) return;
    inBatch(this.db, () => {
      if (kind) this.add(kind, 1, evidence);
      if (own) this.add(own, 1, evidence);
    });
  }

  /**
   * After a reset (the control plane's hook): the fold goes on after the reset's own event. A copy
   * back at its snapshot has the rows its source had folded when the copy was made; the events its
   * source wrote after them, up to the copy, are in its log still: they are folded first.
   */
  afterReset(restored: boolean): void {
    const at = (this.maxEvent.get() as number | null) ?? 0;
    const origin = restored ? this.deps.origin?.() : undefined;
    const mark = origin ? foldMarkOf(origin) : undefined;
    inTransaction(this.db, () => {
      if (mark && mark.newest > mark.cursor) {
        this.saveCursor(mark.cursor);
        this.foldTo(Math.min(mark.newest, at));
      }
      this.saveCursor(at);
    });
  }

  /** Folds the events up to `upTo` (default: every one written). */
  foldTo(upTo = (this.maxEvent.get() as number | null) ?? 0): void {
    if (!this.db.$client.open) return;
    while (this.step(upTo)) {}
  }

  /** The report (the route's answer, the dashboard's page): every behaviour, seen or not. */
  report(): CoverageReport {
    this.foldTo();
    const seen = new Map(this.rows.get() === undefined ? [] : this.rows.all().map((r) => [r.behaviour, r]));
    const t = this.tokens.get();
    if (t && t.n > 0) {
      seen.set(TOKEN_CREATED, {
        behaviour: TOKEN_CREATED,
        count: t.n,
        firstAt: t.at ?? 0,
        transactionId: null,
        subscriptionId: null,
        deliveryId: null,
        request: null,
      });
    }
    const behaviours = catalogue().map((b) => {
      const row = seen.get(b.id);
      return {
        id: b.id,
        area: b.area,
        title: b.title,
        hint: b.hint,
        count: row?.count ?? 0,
        first: row ? evidenceOf(row) : null,
      };
    });
    const seenCount = behaviours.filter((b) => b.count > 0).length;
    return {
      now: toIso(this.deps.clock.nowMs()),
      total: behaviours.length,
      seen: seenCount,
      percent: percentOf(seenCount, behaviours.length),
      areas: AREAS.map((area) => {
        const of = behaviours.filter((b) => b.area === area);
        const n = of.filter((b) => b.count > 0).length;
        return { area, title: AREA_TITLES[area], total: of.length, seen: n, percent: percentOf(n, of.length) };
      }),
      behaviours,
      unseen: behaviours.filter((b) => b.count === 0).map((b) => b.id),
    };
  }

  /** A commit's newest event: fold in the background once FOLD_AT of them wait. */
  private behind(newest: number): void {
    if (this.scheduled) return;
    try {
      this.reached ??= this.folded();
    } catch {
      // a closed file: the next read folds it
      return;
    }
    if (newest - this.reached < FOLD_AT) return;
    this.scheduled = true;
    const run = () => {
      let more = false;
      try {
        more = this.db.$client.open && this.step((this.maxEvent.get() as number | null) ?? 0);
      } catch {
        // a closed or busy file: the next commit, or the next read, folds it
      }
      if (more) setImmediate(run);
      else this.scheduled = false;
    };
    setImmediate(run);
  }

  /** Folds one chunk after the cursor, up to `upTo`; true when more is left. */
  private step(upTo: number): boolean {
    const from = this.folded();
    if (upTo <= from) return false;
    const rows = this.eventsAfter.all(from, upTo, CHUNK) as unknown as EventRow[];
    if (rows.length === 0) return false;
    const tally: Tally = new Map();
    foldEvents(rows, (ids) => new Map(this.factsOf.all(JSON.stringify(ids)).map((f) => [f.id, f])), tally);
    const last = (rows[rows.length - 1] as EventRow)[0];
    inTransaction(this.db, () => {
      for (const [id, { count, first }] of tally) this.add(id, count, first);
      this.saveCursor(last);
    });
    return last < upTo;
  }

  private add(behaviour: string, count: number, e: Evidence): void {
    this.upsert.run(
      behaviour,
      count,
      e.at,
      e.transactionId ?? null,
      e.subscriptionId ?? null,
      e.deliveryId ?? null,
      e.request ?? null,
    );
  }

  /** Where the fold has reached: the saved cursor, else (a database from before coverage) the last reset. */
  private folded(): number {
    const saved = this.readCursor.get(CURSOR_KEY) as string | undefined;
    this.reached = saved === undefined ? ((this.lastReset.get() as number | null) ?? 0) : Number(saved);
    return this.reached;
  }

  private saveCursor(at: number): void {
    this.writeCursor.run(CURSOR_KEY, String(at));
    this.reached = at;
  }
}

/** Where an image's fold was, and its newest event: what a copy made from it had left to fold. */
function foldMarkOf(image: Buffer): { cursor: number; newest: number } | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Sqlite(journalImage(Buffer.from(image)));
    const newest = (db.prepare("SELECT max(id) FROM events").pluck().get() as number | null) ?? 0;
    const saved = db.prepare("SELECT value FROM sandbox_state WHERE key = ?").pluck().get(CURSOR_KEY) as string | undefined;
    const reset = (db.prepare("SELECT max(id) FROM events WHERE type = 'reset'").pluck().get() as number | null) ?? 0;
    return { cursor: saved === undefined ? reset : Number(saved), newest };
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

const percentOf = (n: number, of: number) => (of === 0 ? 0 : Math.floor((n / of) * 1000) / 10);

function evidenceOf(r: CoverageSeenRow) {
  return {
    ...(r.transactionId ? { transactionId: r.transactionId } : {}),
    ...(r.subscriptionId ? { subscriptionId: r.subscriptionId } : {}),
    ...(r.deliveryId ? { deliveryId: r.deliveryId } : {}),
    ...(r.request ? { request: r.request } : {}),
    at: toIso(r.firstAt),
  };
}
