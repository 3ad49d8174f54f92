/**
 * A prepared INSERT of every column of a drizzle table, run by better-sqlite3 directly (docs/performance.md):
 * what `db.insert(t).values(placeholders).prepare()` does, without drizzle's per-run pass over
 * every placeholder (the transactions table has 40 columns, inserted on every create). Values go
 * through each column's own `mapToDriverValue` (json, boolean), as drizzle's placeholders do, so
 * rows are stored byte for byte as before (a column whose mapping is the identity skips the call);
 * a missing value takes the column's default.
 */
import type Database from "better-sqlite3";
import { Column, getTableColumns, getTableName, is, SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { sqlName } from "./select.js";

export function preparedInsert<T extends SQLiteTable>(
  sqlite: Database.Database,
  table: T,
): (row: T["$inferInsert"]) => Database.RunResult {
  const columns = Object.entries(getTableColumns(table));
  for (const [key, col] of columns) {
    if (is(col.default, SQL)) throw new Error(`preparedInsert: ${getTableName(table)}.${key} has an SQL default`);
  }
  const names = columns.map(([, col]) => sqlName(col)).join(", ");
  const text = `INSERT INTO ${sqlName(table)} (${names}) VALUES (${columns.map(() => "?").join(", ")})`;
  // prepared on first use (a sandbox's composition is built whole and may never insert, src/db/lazy.ts)
  let stmt: Database.Statement | undefined;
  // per column, once: its key and its mapping (null where it is the identity: most text and
  // integer columns)
  const keys = columns.map(([key]) => key);
  const maps = columns.map(([, col]) =>
    col.mapToDriverValue === Column.prototype.mapToDriverValue ? null : (v: unknown) => col.mapToDriverValue(v),
  );
  const cols = columns.map(([, col]) => col);
  const n = keys.length;
  const params: unknown[] = new Array(n);
  return (row) => {
    const values = row as Record<string, unknown>;
    for (let i = 0; i < n; i++) {
      const v = values[keys[i] as string];
      if (v === undefined) params[i] = missingValue(cols[i] as Column);
      else {
        const map = maps[i];
        params[i] = map ? map(v) : v;
      }
    }
    stmt ??= sqlite.prepare(text);
    return stmt.run(params);
  };
}

/** What a column takes when the row leaves it out: its default, or null. */
function missingValue(col: Column): unknown {
  if (col.default !== undefined) return col.mapToDriverValue(col.default);
  return col.defaultFn ? col.mapToDriverValue(col.defaultFn()) : null;
}
