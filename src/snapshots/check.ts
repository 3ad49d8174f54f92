/**
 * What a snapshot's database must be before a sandbox opens from it (docs/snapshots.md#what-a-load-checks).
 * The file's checksum only says the file is whole: anyone can recompute a SHA-256, so a load checks
 * the SQLite image itself, in this order, and answers the first problem as a sentence (`undefined`:
 * none), which the caller turns into `400 Invalid snapshot: <it>`:
 *
 * 1. it is a SQLite database at all;
 * 2. its schema is exactly this build's after the migrations it says it has: every table, column,
 *    index and constraint as those migrations leave them, and nothing more (no trigger or view that
 *    would run code on a later write, no table or index of another program); and those migrations
 *    are this build's (their hashes);
 * 3. its size is its pages, and each table's and index's root page is a page of its kind;
 * 4. SQLite's `PRAGMA integrity_check` over a private copy whose tables are declared STRICT: in one
 *    pass over every page and row, the b-trees and the free list are sound, every index holds
 *    exactly its table's rows, NOT NULL holds, and every value is of its column's declared type;
 * 5. every value meets the rules of check-values.ts (what the code that reads it expects), one scan
 *    of each table;
 * 6. the scenario documents it keeps are scenarios (the outcome engine reads them on every payment).
 *
 * Pure: it opens its own in-memory connection on a copy of the image and closes it, so it can run on
 * a worker thread. The schema is compared before anything else is read, so no statement of a foreign
 * schema (a CHECK constraint's expression, say) ever runs here.
 *
 * Why `integrity_check` and not `quick_check`: quick_check skips matching each index against its
 * table, and an index page copied over another (a damage the property test makes) then loads, and
 * the copy's first write through that index fails with SQLITE_CORRUPT, a 5xx. The cost of the
 * difference is measured in docs/snapshots.md#what-a-load-checks.
 */
import type Database from "better-sqlite3";
import { appliedMigrations, journalCopy, migrationHashes, openDb } from "../db/client.js";
import { Sqlite } from "../db/sqlite-driver.js";
import { scenarioSchema } from "../scenarios/scenario.schema.js";
import { CHECKED_TABLES, firstBadValue, rulesOf, type ValueRule } from "./check-values.js";
import type { SnapshotMeta } from "./snapshot-file.js";

/** One row of `sqlite_schema`. */
interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** This build's schema after some of its migrations, each of its tables as the check declares it, and their rules. */
interface Expected {
  objects: Map<string, SchemaRow>;
  /** The CREATE statement each table of the schema is read through: STRICT. */
  strict: Map<string, string>;
  rules: Map<string, ValueRule[]>;
}

const SCHEMA = "SELECT type, name, tbl_name, sql FROM sqlite_schema";

/** By number of migrations, made once each. */
const expectedCache = new Map<number, Expected>();

function expectedAfter(migrations: number): Expected {
  let expected = expectedCache.get(migrations);
  if (expected) return expected;
  const db = openDb(":memory:", { migrations });
  try {
    const sqlite = db.$client;
    const objects = new Map((sqlite.prepare(SCHEMA).all() as SchemaRow[]).map((r) => [r.name, r]));
    const strict = new Map<string, string>();
    const rules = new Map<string, ValueRule[]>();
    for (const row of objects.values()) {
      if (row.type !== "table" || !row.sql) continue;
      const columns = new Set((sqlite.pragma(`table_info("${row.name}")`) as Array<{ name: string }>).map((c) => c.name));
      rules.set(row.name, rulesOf(row.name, columns));
      // STRICT: SQLite's integrity check then finds every value not of its column's declared type
      // (the schema's tables; SQLite's own and drizzle's declare no types)
      if (CHECKED_TABLES.has(row.name)) strict.set(row.name, `${row.sql} STRICT`);
    }
    // the declarations and rules are this build's own: they must hold on its empty database
    declare(sqlite, strict);
    const holds = [...rules].every(([table, r]) => firstBadValue(reader(sqlite), table, r) === undefined);
    if (integrity(sqlite) !== "ok" || !holds) throw new Error("snapshot check: its rules fail on an empty database");
    expected = { objects, strict, rules };
  } finally {
    db.$client.close();
  }
  expectedCache.set(migrations, expected);
  return expected;
}

const NOT_SQLITE = "its database is not a SQLite database";
const notOurs = (why: string) => `its database is not a paysandbox database (${why})`;

/**
 * The first problem of a snapshot's database image that says it has `migrations` of this build's
 * migrations, or undefined when a sandbox can open from it.
 */
export function checkImage(image: Buffer, migrations: number): string | undefined {
  const expected = expectedAfter(migrations);
  let sqlite: Database.Database;
  try {
    sqlite = new Sqlite(journalCopy(image));
  } catch {
    return NOT_SQLITE;
  }
  try {
    return (
      checkSchema(sqlite, expected, migrations) ??
      checkShape(image, sqlite) ??
      checkRows(sqlite, expected) ??
      (expected.objects.has("scenarios") ? checkScenarios(sqlite) : undefined)
    );
  } catch (err) {
    return readFailure(err);
  } finally {
    sqlite.close();
  }
}

/**
 * The first problem of what a snapshot says besides its database: the scenario a plain reset of its
 * copies loads again is none or a scenario (its merchants are the new sandbox's first answer).
 */
export function checkMeta(meta: Pick<SnapshotMeta, "scenario">): string | undefined {
  if (meta.scenario === null || meta.scenario === undefined || scenarioSchema.safeParse(meta.scenario).success) return undefined;
  return "damaged (the scenario of its description is not a scenario)";
}

function checkSchema(sqlite: Database.Database, expected: Expected, migrations: number): string | undefined {
  const theirs = new Map((sqlite.prepare(SCHEMA).all() as SchemaRow[]).map((r) => [r.name, r]));
  for (const [name, row] of expected.objects) {
    if (!theirs.has(name)) return notOurs(`its schema has no ${row.type} ${name}`);
  }
  for (const [name, row] of theirs) {
    const mine = expected.objects.get(name);
    if (!mine) return notOurs(`its schema has a ${row.type} ${name} that this server's has not`);
    if (mine.type !== row.type || mine.tbl_name !== row.tbl_name || mine.sql !== row.sql) {
      return notOurs(`its ${row.type} ${name} is not defined as this server's`);
    }
  }
  const applied = appliedMigrations(sqlite);
  const hashes = migrationHashes();
  if (applied.length !== migrations || applied.some((h, i) => h !== hashes[i])) {
    return notOurs("its migrations differ from this server's");
  }
  return undefined;
}

/**
 * What SQLite's integrity check takes for granted: the image is its pages and nothing else, and each
 * table's and index's root page is a page of its kind (a table page at an index's root passes the
 * integrity check, and the first read through that index fails).
 */
function checkShape(image: Buffer, sqlite: Database.Database): string | undefined {
  const pageSize = sqlite.pragma("page_size", { simple: true }) as number;
  const pages = sqlite.pragma("page_count", { simple: true }) as number;
  if (image.length !== pageSize * pages) {
    return `damaged (its database is ${image.length} bytes, not its ${pages} pages of ${pageSize})`;
  }
  const roots = sqlite.prepare("SELECT type, name, rootpage FROM sqlite_schema WHERE rootpage > 0").all() as Array<{
    type: string;
    name: string;
    rootpage: number;
  }>;
  // a page's first byte (after the file's header on page 1): 13 or 5 a table's leaf or inner page, 10 or 2 an index's
  const KINDS: Record<string, { bytes: readonly number[]; what: string }> = {
    table: { bytes: [13, 5], what: "a table" },
    index: { bytes: [10, 2], what: "an index" },
  };
  for (const { type, name, rootpage } of roots) {
    const kind = KINDS[type];
    if (!kind || kind.bytes.includes(image[(rootpage - 1) * pageSize + (rootpage === 1 ? 100 : 0)] ?? -1)) continue;
    return `damaged (the root page of ${type} ${name}, page ${rootpage}, is not a page of ${kind.what})`;
  }
  return undefined;
}

/** Declares each table as the check reads it (the connection is this check's own copy). */
function declare(sqlite: Database.Database, strict: Expected["strict"]): void {
  sqlite.unsafeMode(true);
  try {
    sqlite.pragma("writable_schema = ON");
    const set = sqlite.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?");
    for (const [name, sql] of strict) set.run(sql, name);
    sqlite.pragma("writable_schema = RESET");
  } finally {
    sqlite.unsafeMode(false);
  }
}

const integrity = (sqlite: Database.Database) =>
  (sqlite.pragma("integrity_check(1)") as Array<{ integrity_check: string }>)[0]?.integrity_check ?? "ok";

const reader = (sqlite: Database.Database) => (sql: string) => sqlite.prepare(sql).get() as { r: number; i: number } | undefined;

function checkRows(sqlite: Database.Database, expected: Expected): string | undefined {
  declare(sqlite, expected.strict);
  const first = integrity(sqlite);
  if (first !== "ok") return `damaged (SQLite's integrity check: ${oneLine(first)})`;
  for (const [table, rules] of expected.rules) {
    const bad = firstBadValue(reader(sqlite), table, rules);
    if (bad) return bad;
  }
  return undefined;
}

function checkScenarios(sqlite: Database.Database): string | undefined {
  const rows = sqlite.prepare("SELECT rowid AS r, name, document FROM scenarios").all() as Array<{
    r: number;
    name: string;
    document: string;
  }>;
  for (const row of rows) {
    let document: unknown;
    try {
      document = JSON.parse(row.document);
    } catch {}
    if (!scenarioSchema.safeParse(document).success) return `damaged (scenarios, row ${row.r}: document is not a scenario)`;
  }
  return undefined;
}

/**
 * A statement that failed on the image: not a database, or a page SQLite found damaged on the way.
 * Anything but SQLite's own error is this code's, and is thrown on (a 500 that is logged).
 */
function readFailure(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== "string" || !code.startsWith("SQLITE_")) throw err;
  if (code === "SQLITE_NOTADB") return NOT_SQLITE;
  return `damaged (SQLite: ${oneLine((err as Error).message)})`;
}

/** SQLite's report on one line: `*** in database main ***` and line breaks dropped, cut at 200 characters. */
function oneLine(text: string): string {
  const line = text
    .replace(/\*\*\* in database \w+ \*\*\*/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
