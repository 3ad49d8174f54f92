/**
 * What each value of a snapshot's database must be for the code that reads it later
 * (docs/snapshots.md#what-a-load-checks), as SQL over one row. A damaged page can hold a well-formed
 * record whose values are not what the code expects (text where a number goes, JSON that does not
 * parse, a status no lifecycle knows, an instant no date can hold), and that would surface as a 5xx
 * calls later. check.ts runs them once SQLite's integrity check has found the pages sound: one scan
 * of each table (firstBadValue).
 *
 * Every column's kind comes from the schema the code reads it through (src/db/schema/): integer
 * and text columns are checked by SQLite itself, its integrity check reading the tables as STRICT
 * (check.ts), and here:
 * - a boolean is 0 or 1; a JSON column parses; a column with a closed set of values (`enum`) holds one;
 *   an integer key is below 2^53 (an AUTOINCREMENT one at SQLite's largest fails the next insert);
 * then what the code does with the values, column by column (`DOMAIN`): instants that a date can
 * hold, the lifecycle's kinds and statuses, currencies, amounts, dates, decimal rates, card lengths.
 */
import { is } from "drizzle-orm";
import { getTableConfig, type SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { schema } from "../db/client.js";
import { FREQUENCIES } from "../modules/subscriptions/schedule.js";
import { SUBSCRIPTION_STATUSES } from "../modules/subscriptions/subscriptions.wire.js";
import { TRANSACTION_KINDS } from "../modules/transactions/kinds.js";
import { START, TRANSACTION_MOVES } from "../modules/transactions/transitions.js";
import { MAX_CLOCK_MS } from "../platform/clock.js";
import { BUILTIN_MERCHANT, CURRENCIES } from "../platform/fixtures.js";

/** One condition on a row: true for a good one. */
export interface ValueRule {
  /** The column it is about (every column it reads must be in the table). */
  column: string;
  /** The other columns it reads. */
  reads?: readonly string[];
  sql: string;
  /** What a good value is, for the 400's reason. */
  expected: string;
}

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;
const among = (c: string, values: readonly string[]) => `${q(c)} IN (${values.map(lit).join(", ")})`;
const nullable = (r: ValueRule): ValueRule => ({
  ...r,
  sql: `${q(r.column)} IS NULL OR (${r.sql})`,
  expected: `${r.expected} or null`,
});

/** The earliest and latest instants a JavaScript Date holds: `toIso` of anything else throws. */
const EARLIEST_MS = -8_640_000_000_000_000;

/** Rules for each kind of column, from the schema. */
function kindRule(col: SQLiteColumn): ValueRule | undefined {
  const c = q(col.name);
  const enums = (col as { enumValues?: readonly string[] }).enumValues;
  let rule: ValueRule | undefined;
  // an AUTOINCREMENT key at SQLite's largest rowid makes the table's next insert fail (SQLITE_FULL)
  if (col.primary && col.columnType === "SQLiteInteger")
    rule = { column: col.name, sql: `${c} BETWEEN 1 AND ${Number.MAX_SAFE_INTEGER}`, expected: "a key below 2^53" };
  else if (col.columnType === "SQLiteBoolean") rule = { column: col.name, sql: `${c} IN (0, 1)`, expected: "0 or 1" };
  else if (col.columnType === "SQLiteTextJson") rule = { column: col.name, sql: `json_valid(${c})`, expected: "JSON" };
  else if (enums && enums.length > 0)
    rule = { column: col.name, sql: among(col.name, enums), expected: `one of ${enums.join(", ")}` };
  return rule && !col.notNull ? nullable(rule) : rule;
}

const instant = (column: string): ValueRule => ({
  column,
  sql: `${q(column)} BETWEEN ${EARLIEST_MS} AND ${MAX_CLOCK_MS}`,
  expected: "an instant before 9999",
});
const currency = (column: string): ValueRule => ({
  column,
  sql: among(column, Object.keys(CURRENCIES)),
  expected: "an ISO 4217 currency this server knows",
});
const amount = (column: string): ValueRule => ({
  column,
  sql: `${q(column)} BETWEEN 0 AND ${Number.MAX_SAFE_INTEGER}`,
  expected: "an amount of minor units",
});
const date = (column: string): ValueRule => ({
  column,
  sql: `date(${q(column)}) IS ${q(column)}`,
  expected: "a date YYYY-MM-DD",
});
const atLeast = (column: string, min: number): ValueRule => ({
  column,
  sql: `${q(column)} >= ${min}`,
  expected: `at least ${min}`,
});
const jsonOf = (column: string, type: "object" | "array"): ValueRule => ({
  column,
  // json_type raises an error on text that does not parse: CASE keeps it from running on such
  sql: `CASE WHEN json_valid(${q(column)}) THEN json_type(${q(column)}) = '${type}' ELSE 0 END`,
  expected: `a JSON ${type}`,
});
const cardLength = (column: string): ValueRule => ({ column, sql: `${q(column)} BETWEEN 8 AND 19`, expected: "8 to 19 digits" });
/** A decimal the FX code reads as an exact fraction: digits, at most one point. */
const decimal = (column: string): ValueRule => ({
  column,
  sql: `${q(column)} GLOB '[0-9]*' AND ${q(column)} NOT GLOB '*[^0-9.]*' AND ${q(column)} NOT GLOB '*.*.*' AND ${q(column)} NOT GLOB '*.'`,
  expected: "a decimal number",
});

/** Integer ms written as text (a key's value in sandbox_state: `String(ms)`), within what a clock holds. */
const msText = (column: string) =>
  `CAST(CAST(${q(column)} AS INTEGER) AS TEXT) = ${q(column)} AND CAST(${q(column)} AS INTEGER) BETWEEN ${EARLIEST_MS} AND ${MAX_CLOCK_MS}`;
/** A rule on sandbox_state's value under one key. */
const keyed = (key: string, sql: string, expected: string): ValueRule => ({
  column: "value",
  reads: ["key"],
  sql: `CASE WHEN "key" = ${lit(key)} THEN ${sql} ELSE 1 END`,
  expected: `${expected} (key ${key})`,
});

/** The statuses a kind of transaction can be in (its moves' ends), by kind. */
const STATUSES_OF = Object.entries(TRANSACTION_MOVES).map(
  ([kind, moves]) => [kind, [...new Set(moves.flatMap((m) => [m.from, m.to]).filter((s) => s !== START))]] as const,
);
const statusOfKind = (column: string): ValueRule => ({
  column,
  reads: ["kind"],
  sql: `CASE "kind" ${STATUSES_OF.map(([kind, statuses]) => `WHEN ${lit(kind)} THEN ${among(column, statuses)}`).join(" ")} ELSE 0 END`,
  expected: "a status of its kind",
});

/** What the code does with the values, by table (beyond each column's kind). */
const DOMAIN: Readonly<Record<string, readonly ValueRule[]>> = {
  // SQLite's own: where each AUTOINCREMENT key goes on from (at its largest, the next insert fails)
  sqlite_sequence: [{ column: "seq", sql: `"seq" BETWEEN 0 AND ${Number.MAX_SAFE_INTEGER}`, expected: "a key below 2^53" }],
  transactions: [
    { column: "kind", sql: among("kind", TRANSACTION_KINDS), expected: `one of ${TRANSACTION_KINDS.join(", ")}` },
    statusOfKind("status"),
    nullable(statusOfKind("due_status")),
    currency("order_currency"),
    currency("processed_currency"),
    amount("order_amount"),
    amount("processed_amount"),
    decimal("conversion_rate"),
    nullable(cardLength("card_length")),
    instant("created_at"),
    instant("updated_at"),
    nullable(instant("due_at")),
  ],
  subscriptions: [
    { column: "status", sql: among("status", SUBSCRIPTION_STATUSES), expected: `one of ${SUBSCRIPTION_STATUSES.join(", ")}` },
    { column: "frequency", sql: among("frequency", FREQUENCIES), expected: `one of ${FREQUENCIES.join(", ")}` },
    atLeast("interval", 1),
    currency("currency"),
    amount("amount"),
    date("start_date"),
    nullable(date("end_date")),
    nullable(date("anchor_date")),
    nullable(date("next_charge_date")),
    nullable(instant("next_charge_at")),
    atLeast("failure_count", 0),
    atLeast("charge_count", 0),
    atLeast("max_retries", 0),
    instant("created_at"),
    instant("updated_at"),
  ],
  card_tokens: [date("expiration_date"), nullable(cardLength("card_length")), instant("created_at")],
  merchants: [
    jsonOf("wallet_domains", "array"),
    nullable(jsonOf("webhook_chaos", "object")),
    nullable(currency("processing_currency")),
    {
      // the built-in merchant is written again at every open and reset: no other merchant may hold its ids
      column: "merchant_key",
      reads: ["mid", "merchant_id", "account_id"],
      sql: `"merchant_key" = ${lit(BUILTIN_MERCHANT.merchantKey)} OR ("mid" <> ${lit(BUILTIN_MERCHANT.mid)} AND "merchant_id" <> ${BUILTIN_MERCHANT.merchantId} AND "account_id" <> ${BUILTIN_MERCHANT.accountId})`,
      expected: "the built-in merchant's, or a merchant whose mid and ids are not the built-in one's",
    },
  ],
  webhook_deliveries: [
    jsonOf("headers", "object"),
    atLeast("attempt_count", 0),
    nullable(instant("next_attempt_at")),
    nullable(instant("in_flight_since")),
    instant("created_at"),
    instant("updated_at"),
  ],
  webhook_attempts: [instant("at"), atLeast("n", 0)],
  idempotency_keys: [
    { column: "response", sql: `json_valid("response")`, expected: "JSON" },
    { column: "http_status", sql: `"http_status" BETWEEN 200 AND 599`, expected: "an HTTP status" },
    instant("created_at"),
  ],
  recorded_calls: [instant("at"), { column: "status", sql: `"status" BETWEEN 100 AND 599`, expected: "an HTTP status" }],
  scenarios: [jsonOf("document", "object"), instant("loaded_at")],
  sandbox_state: [
    keyed("clock_now_ms", msText("value"), "the clock's now, integer ms"),
    keyed("origin_now_ms", msText("value"), "the instant it was copied at, integer ms"),
    keyed("jwt_secret", `length("value") > 0`, "a signing secret"),
    keyed("jwt_inherited", jsonOf("value", "array").sql, "a JSON array of signing secrets"),
  ],
};

/** The tables of the schema, by name: their columns. */
const TABLES = new Map(
  (Object.values(schema) as unknown[])
    .filter((t): t is SQLiteTable => is(t, SQLiteTable))
    .map((t) => {
      const config = getTableConfig(t);
      return [config.name, config.columns] as const;
    }),
);

/** The tables of the schema (check.ts reads them as STRICT; SQLite's own and drizzle's declare no types). */
export const CHECKED_TABLES: ReadonlySet<string> = new Set(TABLES.keys());

/** The rules of a table that has `columns` (an older schema lacks some: their rules are left out). */
export function rulesOf(table: string, columns: ReadonlySet<string>): ValueRule[] {
  const kinds = (TABLES.get(table) ?? []).map(kindRule).filter((r): r is ValueRule => r !== undefined);
  return [...kinds, ...(DOMAIN[table] ?? [])].filter((r) => [r.column, ...(r.reads ?? [])].every((c) => columns.has(c)));
}

/**
 * The first row of a table that breaks one of its rules, as the 400's reason naming its row and
 * column; undefined when every row meets them. One scan of the table, every rule per row (an
 * `IN (...)` list is built once for the statement, where a CHECK constraint would build it again for
 * every row).
 */
export function firstBadValue(
  read: (sql: string) => { r: number; i: number } | undefined,
  table: string,
  rules: readonly ValueRule[],
): string | undefined {
  if (rules.length === 0) return undefined;
  // NULL passes, as in a CHECK constraint: a column's NULL is its NOT NULL's to judge
  const which = `CASE ${rules.map((r, i) => `WHEN NOT coalesce((${r.sql}), 1) THEN ${i}`).join(" ")} END`;
  const bad = read(`SELECT rowid AS r, ${which} AS i FROM ${q(table)} WHERE i IS NOT NULL LIMIT 1`);
  if (!bad) return undefined;
  const rule = rules[bad.i]!;
  return `damaged (${table}, row ${bad.r}: ${rule.column} is not ${rule.expected})`;
}
