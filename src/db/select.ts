/**
 * Every column of a drizzle table read by better-sqlite3 directly, as raw arrays (docs/performance.md): what
 * `db.select().from(t)` maps, without drizzle's per-row, per-column pass (`mapResultRow` checks each
 * field's entity kind on every row; it was half the cost of reading 1,000,000 due subscriptions).
 * Values go through each column's own `mapFromDriverValue` (json, boolean), null stays null, as
 * drizzle does, so a row reads exactly as before; a column whose mapping is the identity skips the call.
 */
import { Column, getTableColumns, getTableName, is, type Table } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/** A table's or a column's name, quoted for plain SQL. */
export const sqlName = (x: Column | Table): string => `"${is(x, Column) ? x.name : getTableName(x)}"`;

export interface RowReader<T> {
  /** The select list: every column, qualified by `alias`, in the reader's order. */
  readonly columns: string;
  /** How many values of a raw row the table's columns take. */
  readonly width: number;
  /** Where a column's value sits in a raw row (from the reader's first column). */
  indexOf(key: string): number;
  /** The row whose columns start at `offset` of a raw row. */
  read(raw: readonly unknown[], offset?: number): T;
}

/** `only`: these columns alone, in this order (default: every column, in the table's order). */
export function rowReader<T extends SQLiteTable, K extends keyof T["$inferSelect"] & string = keyof T["$inferSelect"] & string>(
  table: T,
  alias: string = getTableName(table),
  only?: readonly K[],
): RowReader<Pick<T["$inferSelect"], K>> {
  const all: Record<string, Column> = getTableColumns(table);
  const columns: Array<readonly [string, Column]> = only ? only.map((k) => [k, all[k] as Column] as const) : Object.entries(all);
  const keys = columns.map(([key]) => key);
  const maps = columns.map(([, col]) =>
    col.mapFromDriverValue === Column.prototype.mapFromDriverValue ? null : (v: unknown) => col.mapFromDriverValue(v),
  );
  return {
    columns: columns.map(([, col]) => `"${alias}".${sqlName(col)}`).join(", "),
    width: columns.length,
    indexOf: (key) => keys.indexOf(key),
    read(raw, offset = 0) {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) {
        const v = raw[offset + i];
        const map = maps[i];
        row[keys[i] as string] = v === null || !map ? v : map(v);
      }
      return row as Pick<T["$inferSelect"], K>;
    },
  };
}
