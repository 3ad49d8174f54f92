import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { type MigrationMeta, readMigrationFiles } from "drizzle-orm/migrator";
import { commitNow, inSqliteTransaction } from "./commit.js";
import * as schema from "./schema/index.js";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** In src/ this is src/db/migrations; the build copies it next to dist/main.js. */
const MIGRATIONS = fileURLToPath(new URL("./migrations", import.meta.url));

export interface OpenOptions {
  /** The checked-in migrations (tests point elsewhere). */
  migrationsFolder?: string;
  /**
   * A database image (`serialize()` of a migrated database) to start from: written as the file (or
   * loaded as `:memory:`) when there is none yet, so a new sandbox skips building its schema.
   */
  image?: Buffer;
  /** Page cache in KiB (default 32 MB: the root; a sandbox among many takes less). */
  cacheKiB?: number;
}

/** Migrations read once per folder: each open of a sandbox's file would read and hash every file again. */
const MIGRATIONS_READ = new Map<string, MigrationMeta[]>();

function migrations(folder: string): MigrationMeta[] {
  let m = MIGRATIONS_READ.get(folder);
  if (!m) {
    m = readMigrationFiles({ migrationsFolder: folder });
    MIGRATIONS_READ.set(folder, m);
  }
  return m;
}

/**
 * Opens (creating the folder of) the SQLite file or `:memory:`, in WAL mode with
 * synchronous=NORMAL (a committed transaction survives a process crash), and applies the
 * checked-in drizzle-kit migrations (a no-op on a database that has them all).
 */
export function openDb(path: string, opts: OpenOptions | string = {}): Db {
  const o = typeof opts === "string" ? { migrationsFolder: opts } : opts;
  const memory = path === ":memory:";
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  if (!memory && o.image && !existsSync(path)) writeFileSync(path, o.image);
  const sqlite = memory && o.image ? new Database(o.image) : new Database(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  // hot pages stay in memory (32 MB page cache) and temp b-trees never touch disk
  sqlite.pragma(`cache_size = -${o.cacheKiB ?? 32000}`);
  sqlite.pragma("temp_store = MEMORY");
  const db = drizzle({ client: sqlite, schema }) as Db;
  const folder = o.migrationsFolder ?? MIGRATIONS;
  (db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown, c: object): void } }).dialect.migrate(
    migrations(folder),
    (db as unknown as { session: unknown }).session,
    { migrationsFolder: folder },
  );
  return db;
}

/**
 * A synchronous transaction (better-sqlite3 transactions cannot be async; keep I/O out); a
 * savepoint inside another one or inside a group-commit batch (src/db/commit.ts).
 */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return inSqliteTransaction(db.$client, fn);
}

/** Commits what a group-commit batch still holds, then closes the file (shutdown, tests). */
export function closeDb(db: Db): void {
  if (!db.$client.open) return;
  commitNow(db.$client);
  db.$client.close();
}

/** The checkpointer thread: its own connection to the file, a PASSIVE checkpoint every `ms`. */
const CHECKPOINTER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 1000");
const timer = setInterval(() => {
  try {
    const [r] = db.pragma("wal_checkpoint(PASSIVE)");
    if (r && r.log >= workerData.restartFrames) parentPort.postMessage(r.log);
  } catch {}
}, workerData.ms);
parentPort.on("message", () => { clearInterval(timer); db.close(); process.exit(0); });
`;

/**
 * For the long-running server (main.ts): SQLite would checkpoint the WAL inside whichever commit
 * crosses 1000 pages (page copies and an fsync on a request's path, every ~50 card payments);
 * instead a worker thread with its own connection checkpoints every `ms` (PASSIVE: it never blocks
 * a writer). Durability is unchanged (CONTRACT §3: a commit is durable once in the WAL).
 * Returns the stopper.
 */
export function checkpointInBackground(db: Db, path: string, ms = 250, restartFrames = 4000): () => Promise<void> {
  if (path === ":memory:") return async () => undefined;
  const sqlite = db.$client;
  sqlite.pragma("wal_autocheckpoint = 0");
  // after a burst, a restarted WAL file is cut back to 64 MB
  sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(CHECKPOINTER, { eval: true, workerData: { driver, path: resolve(path), ms, restartFrames } });
  worker.unref();
  let stopping = false;
  // Under steady writes the thread never copies the very last frames, and the WAL restarts from
  // the top only once wholly copied: past `restartFrames`, the main connection copies those few
  // frames (a millisecond or two) so that its next commit restarts it.
  worker.on("message", () => {
    // not inside an open group-commit batch: the thread asks again while the WAL stays long
    if (!stopping && sqlite.open && !sqlite.inTransaction) sqlite.pragma("wal_checkpoint(PASSIVE)");
  });
  // if the thread dies, SQLite checkpoints inside commits again, as it does by default
  worker.on("error", () => undefined);
  worker.on("exit", () => {
    if (!stopping && sqlite.open) sqlite.pragma("wal_autocheckpoint = 1000");
  });
  return async () => {
    stopping = true;
    worker.ref();
    worker.postMessage("stop");
    await new Promise((resolve) => worker.once("exit", resolve));
  };
}

export { schema };
