/**
 * The database connection: opening a SQLite file (or `:memory:`) in WAL mode, its drizzle
 * migrations, transactions (group commit: commit.ts) and closing. The checkpointer thread that
 * copies each WAL back in the background is checkpointer.ts.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";
import {
  createTableRelationsHelpers,
  extractTablesRelationalConfig,
  type RelationalSchemaConfig,
  type TablesRelationalConfig,
} from "drizzle-orm";
import { BetterSQLite3Database, BetterSQLiteSession } from "drizzle-orm/better-sqlite3";
import { type MigrationMeta, readMigrationFiles } from "drizzle-orm/migrator";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { commitNow } from "./commit.js";
import * as schema from "./schema/index.js";
import { Sqlite } from "./sqlite-driver.js";

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
  /**
   * The file is known to have every migration of this build (written from its image in this process);
   * `false` runs the migrations even over an image (a snapshot of an older version, docs/snapshots.md).
   */
  migrated?: boolean;
  /** Only the first `n` migrations of the folder: the schema an older paysandbox's database has (src/snapshots/check.ts). */
  migrations?: number;
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

/** The hashes of this build's migrations, oldest first (a snapshot's database must have a prefix of them). */
export function migrationHashes(folder = MIGRATIONS): string[] {
  return migrations(folder).map((m) => m.hash);
}

/** The hashes of the migrations a database has, oldest first (none for a database drizzle never migrated). */
export function appliedMigrations(sqlite: Database.Database): string[] {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return [];
  return (sqlite.prepare("SELECT hash FROM __drizzle_migrations ORDER BY id").all() as Array<{ hash: string }>).map(
    (r) => r.hash,
  );
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
  // a database started from an image has every migration of this build already
  let fromImage = (memory && o.image !== undefined) || o.migrated === true;
  if (!memory && o.image && !existsSync(path)) {
    writeFileSync(path, walImage(o.image));
    fromImage = true;
  }
  if (o.migrated === false) fromImage = false;
  const sqlite = memory && o.image ? new Sqlite(o.image) : new Sqlite(path);
  // hot pages stay in memory (32 MB page cache) and temp b-trees never touch disk; one call for all
  // (a sandbox's database is opened on a request's path: docs/performance.md "Sandboxes at once")
  sqlite.exec(
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; " +
      `PRAGMA cache_size = -${o.cacheKiB ?? 32000}; PRAGMA temp_store = MEMORY;`,
  );
  const db = drizzleOf(sqlite);
  if (!fromImage) {
    const folder = o.migrationsFolder ?? MIGRATIONS;
    const all = migrations(folder);
    (db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown, c: object): void } }).dialect.migrate(
      o.migrations === undefined ? all : all.slice(0, o.migrations),
      (db as unknown as { session: unknown }).session,
      { migrationsFolder: folder },
    );
  }
  return db;
}

/** The schema's relational config, worked out once per process. */
let relational: RelationalSchemaConfig<TablesRelationalConfig> | undefined;

/**
 * What `drizzle({ client, schema })` makes, without working out the schema's relational config
 * again for every connection (a sandbox's database is opened on a request's path: docs/performance.md
 * "Sandboxes at once").
 */
function drizzleOf(sqlite: Database.Database): Db {
  if (!relational) {
    const config = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
    relational = { fullSchema: schema, schema: config.tables, tableNamesMap: config.tableNamesMap };
  }
  const dialect = new SQLiteSyncDialect();
  const session = new BetterSQLiteSession(sqlite, dialect, relational, {});
  const db = new BetterSQLite3Database("sync", dialect, session, relational) as unknown as Db;
  db.$client = sqlite;
  return db;
}

/**
 * An image as a file already in WAL mode (header bytes 18 and 19 = 2, the SQLite file format's
 * WAL marker), so opening it does not rewrite the header to switch journal modes.
 */
export function walImage(image: Buffer, inPlace = false): Buffer {
  if (image[18] === 2 && image[19] === 2) return image;
  const copy = inPlace ? image : Buffer.from(image);
  copy[18] = 2;
  copy[19] = 2;
  return copy;
}

/**
 * An image as a rollback-journal file (header bytes 18 and 19 = 1): the form `new Database(image)`
 * opens in memory (a WAL-marked image does not open there). A file database's `serialize()` is WAL-marked.
 */
export function journalImage(image: Buffer): Buffer {
  if (!walMarked(image)) return image;
  image[18] = 1;
  image[19] = 1;
  return image;
}

/**
 * The image as `new Database(image)` opens it, leaving `image` as it is: itself when it is not
 * WAL-marked, else a copy (in `alloc(length)`) marked for a rollback journal (journalImage).
 */
export function journalCopy(image: Buffer, alloc: (length: number) => Buffer = Buffer.allocUnsafe): Buffer {
  if (!walMarked(image)) return image;
  const copy = alloc(image.length);
  image.copy(copy);
  return journalImage(copy);
}

/** Whether an image's header carries WAL's marker (byte 18 or 19 = 2). */
const walMarked = (image: Buffer) => image.length >= 20 && (image[18] === 2 || image[19] === 2);

// the one way the code writes (src/db/commit.ts): a transaction, or a write that needs no savepoint
export { inBatch, inTransaction, inWhole } from "./commit.js";

/** Commits what a group-commit batch still holds, then closes the file (shutdown, tests). */
export function closeDb(db: Db): void {
  if (!db.$client.open) return;
  commitNow(db.$client);
  db.$client.close();
}

export { schema };
