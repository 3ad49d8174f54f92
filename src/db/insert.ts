/**
 * A prepared INSERT of every column of a drizzle table, run by better-sqlite3 directly (issue 12):
 * what `db.insert(t).values(placeholders).prepare()` does, without drizzle's per-run pass over
 * every placeholder (the transactions table has 40 columns, inserted on every create). Values go
 * through each column's own `mapToDriverValue` (json, boolean), as drizzle's placeholders do, so
 * rows are stored byte for byte as before; a missing value takes the column's default.
 */
import type Database from "better-sqlite3";
import { getTableColumns, getTableName, is, SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

export function preparedInsert<T extends SQLiteTable>(
  sqlite: Database.Database,
  table: T,
): (row: T["$inferInsert"]) => Database.RunResult {
  const columns = Object.entries(getTableColumns(table));
  for (const [key, col] of columns) {
    if (is(col.default, SQL)) throw new Error(`preparedInsert: ${getTableName(table)}.${key} has an SQL default`);
  }
  const names = columns.map(([, col]) => `"${col.name}"`).join(", ");
  const stmt = sqlite.prepare(`INSERT INTO "${getTableName(table)}" (${names}) VALUES (${columns.map(() => "?").join(", ")})`);
  const params: unknown[] = new Array(columns.length);
  return (row) => {
    const values = row as Record<string, unknown>;
    for (let i = 0; i < columns.length; i++) {
      const [key, col] = columns[i] as (typeof columns)[number];
      const v = values[key];
      params[i] =
        v !== undefined
          ? col.mapToDriverValue(v)
          : col.default !== undefined
            ? col.mapToDriverValue(col.default)
            : col.defaultFn
              ? col.mapToDriverValue(col.defaultFn())
              : null;
    }
    return stmt.run(params);
  };
}
