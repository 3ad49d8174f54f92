/**
 * The `sandbox_state` rows (src/db/schema/sandbox.ts: the JWT secret, the clock, a copy's origin):
 * read and written by two plain statements prepared once per connection. Every sandbox's
 * composition reads and writes a few of them when it is built (docs/performance.md "Sandboxes at
 * once"); a query built by drizzle each time cost more than the rest of that work.
 */
import type Database from "better-sqlite3";
import type { Db } from "./client.js";

interface Statements {
  get: Database.Statement<[string], string>;
  set: Database.Statement<[string, string]>;
}

const STATEMENTS = new WeakMap<Database.Database, Statements>();

function statements(sqlite: Database.Database): Statements {
  let s = STATEMENTS.get(sqlite);
  if (!s) {
    s = {
      get: sqlite.prepare<[string], string>("SELECT value FROM sandbox_state WHERE key = ?").pluck(),
      set: sqlite.prepare<[string, string]>(
        "INSERT INTO sandbox_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
    };
    STATEMENTS.set(sqlite, s);
  }
  return s;
}

/** The value kept under `key`, or undefined. */
export function stateValue(db: Db, key: string): string | undefined {
  return statements(db.$client).get.get(key);
}

/** Keeps `value` under `key` (it joins the open transaction or the turn's batch, src/db/commit.ts). */
export function setState(db: Db, key: string, value: string): void {
  statements(db.$client).set.run(key, value);
}
