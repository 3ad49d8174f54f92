import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema/index.js";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** In src/ this is src/db/migrations; the build copies it next to dist/main.js. */
const MIGRATIONS = fileURLToPath(new URL("./migrations", import.meta.url));

/**
 * Opens (creating the folder of) the SQLite file or `:memory:`, in WAL mode with
 * synchronous=NORMAL (a committed transaction survives a process crash), and applies the
 * checked-in drizzle-kit migrations.
 */
export function openDb(path: string, migrationsFolder = MIGRATIONS): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  const db = drizzle({ client: sqlite, schema }) as Db;
  migrate(db, { migrationsFolder });
  return db;
}

/** A synchronous transaction (better-sqlite3 transactions cannot be async; keep I/O out). */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn).immediate();
}

export { schema };
