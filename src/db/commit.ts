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
 * What follows from a commit is heard by its listeners (`onCommit`), registered once per connection:
 * a request only writes rows, and never asks for anything to happen at the commit.
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
 * Hears every COMMIT of one connection (a group-commit batch's, or a plain transaction's), registered
 * once by what lives beside the database (the webhook dispatcher, the event log), so no request has
 * to ask for it: the request writes rows; what follows from them happens at their commit.
 */
export interface CommitListener {
  /**
   * Inside the transaction, just before its COMMIT (`grouped`: a group-commit batch's, else a plain
   * transaction's): may write (a single statement, which SQLite undoes by itself if it fails, or a
   * savepoint of its own); returns what to run once the COMMIT is done (`true`) or failed (`false`:
   * its writes are gone), or nothing. Must not throw (catch and recover inside).
   */
  beforeCommit?(grouped: boolean): ((committed: boolean) => void) | undefined;
  /** Right after a successful COMMIT, before anything else writes (reads see exactly what was committed). */
  afterCommit?(): void;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** One connection's prepared transaction statements and, with group commit on, its open batch. */
class Connection {
  readonly s: Statements;
  grouped = false;
  /** A batch is open: BEGIN ran, its COMMIT is scheduled. */
  open = false;
  /** Savepoints of `inSqliteTransaction` open now (what undoes a failed `inSqliteWhole` inside one). */
  savepoints = 0;
  private waiters: Waiter[] = [];
  private done: Promise<void> | undefined;
  /** Who hears every COMMIT (onCommit). */
  readonly listeners: CommitListener[] = [];

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
    // a batch SQLite already rolled back (a statement error that aborts the whole transaction,
    // SQLITE_FULL, say) cannot be written to: its listeners are not asked before it
    const afters = this.sqlite.inTransaction ? beforeCommit(this.listeners, true) : [];
    this.open = false;
    const waiters = this.waiters;
    this.waiters = [];
    this.done = undefined;
    try {
      if (!this.sqlite.inTransaction) throw new Error("the grouped transaction was rolled back");
      this.s.commit.run();
    } catch (err) {
      if (this.sqlite.open && this.sqlite.inTransaction) this.s.rollback.run();
      for (const after of afters) after(false);
      for (const w of waiters) w.reject(err);
      return;
    }
    afterCommit(this.listeners, afters);
    for (const w of waiters) w.resolve();
  }
}

/** Asks each listener before a COMMIT; what each wants done after it. */
function beforeCommit(listeners: readonly CommitListener[], grouped: boolean): Array<(committed: boolean) => void> {
  const afters: Array<(committed: boolean) => void> = [];
  for (const l of listeners) {
    try {
      const after = l.beforeCommit?.(grouped);
      if (after) afters.push(after);
    } catch {
      // a listener recovers by itself; its single statement undid itself
    }
  }
  return afters;
}

function afterCommit(listeners: readonly CommitListener[], afters: Array<(committed: boolean) => void>): void {
  for (const l of listeners) {
    try {
      l.afterCommit?.();
    } catch {
      // as before a COMMIT: a listener recovers by itself
    }
  }
  for (const after of afters) after(true);
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
  c.savepoints++;
  try {
    const result = fn();
    c.s.release.run();
    return result;
  } catch (err) {
    if (sqlite.inTransaction) {
      c.s.rollbackTo.run();
      c.s.release.run();
    }
    throw err;
  } finally {
    c.savepoints--;
  }
}

/**
 * One write that needs no savepoint of its own: a single statement (SQLite undoes a failed statement
 * by itself, its triggers' writes included), or statements each of which may stand without the
 * others. It joins whatever is open (a caller's transaction, or the turn's group-commit batch, opened
 * here if need be), else it is a transaction of its own (so the commit's listeners hear it). Saves a
 * SAVEPOINT and a RELEASE (~4 µs) where `inSqliteTransaction` would make them for nothing: a card
 * payment's one write, the recording's row on every recorded call (docs/performance.md "The cost account").
 */
export function inSqliteBatch<T>(sqlite: Database.Database, fn: () => T): T {
  if (!sqlite.inTransaction) {
    const c = connection(sqlite);
    if (!c.grouped) return topLevel(c, fn);
    c.openBatch();
  }
  return fn();
}

/**
 * Statements that stand or fall together, with no savepoint of their own: for a write whose statements
 * cannot fail once their values are made (no constraint they could break) but by the database
 * failing (a full disk, an I/O error). A SAVEPOINT and its RELEASE would cost each such write two
 * statements for that case alone (a card payment's, docs/performance.md "The cost account"). If one
 * throws anyway, what the others wrote is undone by what encloses them: a caller's savepoint
 * (`inSqliteTransaction`) when there is one, else the whole transaction. A group-commit batch is then
 * rolled back whole: its COMMIT fails and every request of that turn answers 500, so nothing half
 * written is ever committed or acknowledged.
 */
export function inSqliteWhole<T>(sqlite: Database.Database, fn: () => T): T {
  const c = connection(sqlite);
  if (!sqlite.inTransaction) {
    if (!c.grouped) return topLevel(c, fn);
    c.openBatch();
  }
  if (c.savepoints > 0) return fn();
  try {
    return fn();
  } catch (err) {
    if (sqlite.inTransaction) c.s.rollback.run();
    throw err;
  }
}

/** What the two helpers below take: a drizzle database (src/db/client.ts `Db`), or anything with its connection. */
interface HasClient {
  $client: Database.Database;
}

/**
 * A synchronous transaction of a database (better-sqlite3 transactions cannot be async; keep I/O
 * out); a savepoint inside another one or inside a group-commit batch. Exported by db/client.ts.
 */
export function inTransaction<T>(db: HasClient, fn: () => T): T {
  return inSqliteTransaction(db.$client, fn);
}

/**
 * A write that needs no savepoint (one statement, or statements that may each stand alone): it joins
 * the open transaction or the turn's group-commit batch, else is a transaction of its own. Exported
 * by db/client.ts.
 */
export function inBatch<T>(db: HasClient, fn: () => T): T {
  return inSqliteBatch(db.$client, fn);
}

/**
 * Statements that stand or fall together without a savepoint (`inSqliteWhole`: only for statements
 * that cannot fail but by the database failing). Exported by db/client.ts.
 */
export function inWhole<T>(db: HasClient, fn: () => T): T {
  return inSqliteWhole(db.$client, fn);
}

function topLevel<T>(c: Connection, fn: () => T): T {
  c.s.begin.run();
  let afters: Array<(committed: boolean) => void> = [];
  try {
    const result = fn();
    afters = beforeCommit(c.listeners, false);
    c.s.commit.run();
    afterCommit(c.listeners, afters);
    return result;
  } catch (err) {
    if (c.sqlite.inTransaction) c.s.rollback.run();
    for (const after of afters) after(false);
    throw err;
  }
}

/** Turns group commit on for this connection (the long-running server; tests keep per-call commits unless they ask). */
export function enableGroupCommit(sqlite: Database.Database): void {
  connection(sqlite).grouped = true;
}

/** Settles once what this turn wrote is committed; undefined when nothing is waiting to commit. */
export function committed(sqlite: Database.Database): Promise<void> | undefined {
  return CONNECTIONS.get(sqlite)?.committed();
}

/**
 * `listener` hears every COMMIT of this connection from now on (docs/performance.md): the webhook
 * dispatcher places what the batch wrote for the sender just before it, the event log learns its
 * newest committed id right after it. Returns the removal.
 */
export function onCommit(sqlite: Database.Database, listener: CommitListener): () => void {
  const listeners = connection(sqlite).listeners;
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i >= 0) listeners.splice(i, 1);
  };
}

/** Commits the open batch, if any, before an effect outside the database (sending, closing). */
export function commitNow(sqlite: Database.Database): void {
  CONNECTIONS.get(sqlite)?.commit();
}
