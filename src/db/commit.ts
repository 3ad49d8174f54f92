/**
 * Transactions and group commit (docs/performance.md). `inSqliteTransaction` (behind db/client.ts
 * `inTransaction(db, fn)`) is the one way the code writes: a
 * synchronous better-sqlite3 transaction, or a savepoint when one is already open.
 *
 * Group commit, once `enableGroupCommit(sqlite)` turned it on (the server does): the first write
 * in a turn of the event loop opens one IMMEDIATE transaction, every `inTransaction` of that turn
 * (each request's) runs in it as a savepoint of its own — a request that throws rolls back only
 * its own writes — and the whole batch commits once, in a `setImmediate` after the turn. One
 * commit writes each touched page to the WAL once, instead of once per request.
 *
 * Durability is unchanged, because nothing leaves the process before its commit:
 * - HTTP answers wait for `committed(sqlite)` (middleware `awaitCommit`), so an acknowledged
 *   request is on disk, and a request that read another's uncommitted row answers after it too;
 * - code with an outside effect (the webhook dispatcher sends what it claimed; shutdown closes
 *   the file) calls `commitNow(sqlite)` first.
 * A failed COMMIT rolls the batch back and rejects the waiters: those requests answer 500.
 *
 * LIMITATIONS:
 * - a read outside `inTransaction` during a turn sees that turn's uncommitted writes (one
 *   connection); only answers and outside effects wait for the commit.
 */
import type Database from "better-sqlite3";

interface Statements {
  begin: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
  savepoint: Database.Statement;
  release: Database.Statement;
  rollbackTo: Database.Statement;
}

/**
 * Runs inside a batch just before its COMMIT; returns what to do once the COMMIT is done (`true`)
 * or failed (`false`, its writes are gone). It must not throw (catch and recover inside).
 */
export type CommitHook = () => (committed: boolean) => void;

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** One connection's prepared transaction statements and, with group commit on, its open batch. */
class Connection {
  readonly s: Statements;
  grouped = false;
  /** Savepoints rolled back on this connection so far (see `rollbacks`). */
  rollbacks = 0;
  /** A batch is open: BEGIN ran, its COMMIT is scheduled. */
  open = false;
  private waiters: Waiter[] = [];
  private done: Promise<void> | undefined;
  /** atCommit hooks of the open batch, once each, with what to call if the batch never reaches them. */
  private hooks = new Map<object, { hook: CommitHook; abandoned: (() => void) | undefined }>();

  constructor(readonly sqlite: Database.Database) {
    this.s = {
      begin: sqlite.prepare("BEGIN IMMEDIATE"),
      commit: sqlite.prepare("COMMIT"),
      rollback: sqlite.prepare("ROLLBACK"),
      savepoint: sqlite.prepare('SAVEPOINT "tx"'),
      release: sqlite.prepare('RELEASE "tx"'),
      rollbackTo: sqlite.prepare('ROLLBACK TO "tx"'),
    };
  }

  /** Opens the turn's batch (BEGIN IMMEDIATE) and schedules its commit. */
  openBatch(): void {
    // a batch SQLite rolled back underneath (a statement error that aborts the transaction) fails its waiters first
    if (this.open) this.commit();
    this.s.begin.run();
    this.open = true;
    setImmediate(() => this.commit());
  }

  /** Settles once the open batch is committed (rejects if its COMMIT failed); undefined when none is open. */
  committed(): Promise<void> | undefined {
    if (!this.open) return undefined;
    this.done ??= new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    return this.done;
  }

  /** Commits the open batch now (idempotent: the scheduled commit then finds nothing open). */
  commit(): void {
    if (!this.open) return;
    const hooks = [...this.hooks.values()];
    this.hooks.clear();
    // the hooks write inside the batch, each in its own savepoint (a throw undoes only its writes);
    // a batch SQLite already rolled back cannot run them: they are told instead
    const rolledBack = !this.sqlite.inTransaction;
    if (rolledBack) for (const h of hooks) abandon(h.abandoned);
    const afters = rolledBack ? [] : hooks.map((h) => runHook(this.sqlite, h.hook));
    this.open = false;
    const waiters = this.waiters;
    this.waiters = [];
    this.done = undefined;
    try {
      // a statement error that aborted the whole transaction (SQLITE_FULL, say) already rolled it back
      if (!this.sqlite.inTransaction) throw new Error("the grouped transaction was rolled back");
      this.s.commit.run();
    } catch (err) {
      if (this.sqlite.open && this.sqlite.inTransaction) this.s.rollback.run();
      for (const after of afters) after(false);
      for (const w of waiters) w.reject(err);
      return;
    }
    for (const after of afters) after(true);
    for (const w of waiters) w.resolve();
  }

  /** Registers `hook` (once per key) for the open batch; false when there is none. */
  atCommit(key: object, hook: CommitHook, abandoned?: () => void): boolean {
    if (!this.open || !this.sqlite.inTransaction) return false;
    if (!this.hooks.has(key)) this.hooks.set(key, { hook, abandoned });
    return true;
  }
}

const CONNECTIONS = new WeakMap<Database.Database, Connection>();

function connection(sqlite: Database.Database): Connection {
  let c = CONNECTIONS.get(sqlite);
  if (!c) {
    c = new Connection(sqlite);
    CONNECTIONS.set(sqlite, c);
  }
  return c;
}

/**
 * A synchronous transaction (better-sqlite3 transactions cannot be async; keep I/O out). Inside
 * another one (or a group-commit batch) it is a savepoint: a throw undoes only its own writes.
 */
export function inSqliteTransaction<T>(sqlite: Database.Database, fn: () => T): T {
  const c = connection(sqlite);
  if (!sqlite.inTransaction) {
    if (!c.grouped) return topLevel(c, fn);
    c.openBatch();
  }
  c.s.savepoint.run();
  try {
    const result = fn();
    c.s.release.run();
    return result;
  } catch (err) {
    c.rollbacks++;
    if (sqlite.inTransaction) {
      c.s.rollbackTo.run();
      c.s.release.run();
    }
    throw err;
  }
}

/**
 * One write that needs no savepoint of its own: a single statement (SQLite undoes a failed statement
 * by itself), or statements each of which may stand without the others. It joins whatever is open
 * (a caller's transaction, or the turn's group-commit batch, opened here if need be) and otherwise
 * autocommits. Saves a SAVEPOINT and a RELEASE (~4 µs) where `inSqliteTransaction` would make them
 * for nothing: the recording's row on every recorded call (docs/performance.md "The cost account").
 */
export function inSqliteBatch<T>(sqlite: Database.Database, fn: () => T): T {
  if (!sqlite.inTransaction) {
    const c = connection(sqlite);
    if (c.grouped) c.openBatch();
  }
  return fn();
}

function topLevel<T>(c: Connection, fn: () => T): T {
  c.s.begin.run();
  try {
    const result = fn();
    c.s.commit.run();
    return result;
  } catch (err) {
    if (c.sqlite.inTransaction) c.s.rollback.run();
    throw err;
  }
}

function abandon(abandoned: (() => void) | undefined): void {
  try {
    abandoned?.();
  } catch {
    // as for a hook: it must recover by itself
  }
}

function runHook(sqlite: Database.Database, hook: CommitHook): (committed: boolean) => void {
  try {
    return inSqliteTransaction(sqlite, hook);
  } catch {
    return () => undefined; // a hook must recover by itself; its savepoint is undone
  }
}

/** Turns group commit on for this connection (the long-running server; tests keep per-call commits unless they ask). */
export function enableGroupCommit(sqlite: Database.Database): void {
  connection(sqlite).grouped = true;
}

/**
 * How many `inTransaction` savepoints have been undone on this connection so far: a caller that
 * notes it when it writes and finds it unchanged before the COMMIT knows every write of its batch
 * is still there (the dispatcher's taken deliveries) without reading them back.
 */
export function rollbacks(sqlite: Database.Database): number {
  return CONNECTIONS.get(sqlite)?.rollbacks ?? 0;
}

/** Settles once what this turn wrote is committed; undefined when nothing is waiting to commit. */
export function committed(sqlite: Database.Database): Promise<void> | undefined {
  return CONNECTIONS.get(sqlite)?.committed();
}

/**
 * With a group-commit batch open, runs `hook` (once per `key`) inside it just before its COMMIT and
 * its result after (the webhook dispatcher claims what the batch enqueued, so the payment and the
 * claim share one COMMIT and the webhook leaves right after it). If SQLite rolled the batch back
 * before its COMMIT, the hook cannot run: `abandoned` is called instead. False when no batch is open.
 */
export function atCommit(sqlite: Database.Database, key: object, hook: CommitHook, abandoned?: () => void): boolean {
  return CONNECTIONS.get(sqlite)?.atCommit(key, hook, abandoned) ?? false;
}

/** Whether a group-commit batch is open now (an atCommit hook registered now would run). */
export function batchOpen(sqlite: Database.Database): boolean {
  return (CONNECTIONS.get(sqlite)?.open ?? false) && sqlite.inTransaction;
}

/** Commits the open batch, if any, before an effect outside the database (sending, closing). */
export function commitNow(sqlite: Database.Database): void {
  CONNECTIONS.get(sqlite)?.commit();
}
