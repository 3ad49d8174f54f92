/**
 * Group commit (src/db/commit.ts): one turn's transactions share one COMMIT, each is a
 * savepoint of its own, answers wait for the commit, and a second connection (what a crash would
 * leave on disk) sees nothing before it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import {
  commitNow,
  committed,
  enableGroupCommit,
  inSqliteBatch,
  inSqliteWhole,
  inSqliteTransaction as inTransaction,
} from "../../src/db/commit.js";
import { Sqlite } from "../../src/db/sqlite-driver.js";

let dir: string | undefined;
const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A WAL file with table t, the writer connection (grouped or not) and a second reader connection. */
function files(grouped: boolean) {
  dir = mkdtempSync(join(tmpdir(), "paysandbox-commit-"));
  const path = join(dir, "db.sqlite");
  const writer = new Sqlite(path);
  writer.pragma("journal_mode = WAL");
  writer.exec("create table t (id integer primary key, v text not null)");
  const reader = new Sqlite(path);
  open.push(writer, reader);
  if (grouped) enableGroupCommit(writer);
  const insert = writer.prepare("insert into t (v) values (?)");
  const onDisk = () => (reader.prepare("select v from t order by id").all() as Array<{ v: string }>).map((r) => r.v);
  return { writer, insert, onDisk };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("group commit", () => {
  it("inBatch joins the turn's batch with no savepoint of its own, and autocommits without group commit", async () => {
    const plain = files(false);
    inSqliteBatch(plain.writer, () => plain.insert.run("a"));
    expect(plain.writer.inTransaction).toBe(false);
    expect(plain.onDisk()).toEqual(["a"]);
    for (const db of open.splice(0)) db.close();
    rmSync(dir as string, { recursive: true, force: true });

    const { writer, insert, onDisk } = files(true);
    inSqliteBatch(writer, () => insert.run("b"));
    // the batch is open and nothing is on disk until its commit
    expect(writer.inTransaction).toBe(true);
    expect(onDisk()).toEqual([]);
    // a request's savepoint in the same turn that throws undoes only its own write
    expect(() =>
      inTransaction(writer, () => {
        insert.run("x");
        throw new Error("refused");
      }),
    ).toThrow("refused");
    inSqliteBatch(writer, () => insert.run("c"));
    await committed(writer);
    expect(onDisk()).toEqual(["b", "c"]);
  });

  it("without it, every inTransaction commits at once", () => {
    const { writer, insert, onDisk } = files(false);
    inTransaction(writer, () => insert.run("a"));
    expect(onDisk()).toEqual(["a"]);
    expect(committed(writer)).toBeUndefined();
  });

  it("the transactions of one turn commit together after it, and committed() settles then", async () => {
    const { writer, insert, onDisk } = files(true);
    inTransaction(writer, () => insert.run("a"));
    inTransaction(writer, () => insert.run("b"));
    expect(onDisk()).toEqual([]); // not yet on disk: no answer may leave
    const done = committed(writer);
    expect(done).toBeInstanceOf(Promise);
    let settled = false;
    void done?.then(() => {
      settled = true;
    });
    await turn();
    await done;
    expect(settled).toBe(true);
    expect(onDisk()).toEqual(["a", "b"]);
    expect(committed(writer)).toBeUndefined();
  });

  it("a transaction that throws undoes only its own writes", async () => {
    const { writer, insert, onDisk } = files(true);
    inTransaction(writer, () => insert.run("kept"));
    expect(() =>
      inTransaction(writer, () => {
        insert.run("undone");
        throw new Error("boom");
      }),
    ).toThrow("boom");
    inTransaction(writer, () => {
      insert.run("outer");
      expect(() =>
        inTransaction(writer, () => {
          insert.run("inner undone");
          throw new Error("inner");
        }),
      ).toThrow("inner");
    });
    await committed(writer);
    expect(onDisk()).toEqual(["kept", "outer"]);
  });

  it("commitNow commits before an outside effect; the scheduled commit then finds nothing", async () => {
    const { writer, insert, onDisk } = files(true);
    inTransaction(writer, () => insert.run("a"));
    const done = committed(writer);
    commitNow(writer);
    expect(onDisk()).toEqual(["a"]);
    await done;
    inTransaction(writer, () => insert.run("b"));
    await committed(writer);
    expect(onDisk()).toEqual(["a", "b"]);
  });

  it("a batch SQLite rolled back rejects its waiters, and the next turn starts clean", async () => {
    const { writer, insert, onDisk } = files(true);
    inTransaction(writer, () => insert.run("lost"));
    const done = committed(writer);
    writer.exec("ROLLBACK"); // what a statement error that aborts the transaction leaves
    await expect(done).rejects.toThrow("rolled back");
    inTransaction(writer, () => insert.run("next"));
    await committed(writer);
    expect(onDisk()).toEqual(["next"]);
  });

  it("inWhole: statements that stand or fall together, with no savepoint; one that fails takes the others with it", async () => {
    // without group commit: a transaction of its own, rolled back whole
    const plain = files(false);
    expect(() =>
      inSqliteWhole(plain.writer, () => {
        plain.insert.run("half");
        plain.insert.run(null); // NOT NULL: the database refuses it
      }),
    ).toThrow(/NOT NULL/);
    expect(plain.onDisk()).toEqual([]);
    inSqliteWhole(plain.writer, () => plain.insert.run("whole"));
    expect(plain.onDisk()).toEqual(["whole"]);
    for (const db of open.splice(0)) db.close();
    rmSync(dir as string, { recursive: true, force: true });

    const { writer, insert, onDisk } = files(true);
    // inside a caller's savepoint: that savepoint undoes it, and the batch goes on
    inTransaction(writer, () => insert.run("kept"));
    inTransaction(writer, () => {
      insert.run("outer");
      expect(() =>
        inTransaction(writer, () =>
          inSqliteWhole(writer, () => {
            insert.run("inner half");
            insert.run(null);
          }),
        ),
      ).toThrow(/NOT NULL/);
    });
    expect(writer.inTransaction).toBe(true);
    inSqliteWhole(writer, () => insert.run("joined"));
    await committed(writer);
    expect(onDisk()).toEqual(["kept", "outer", "joined"]);

    // straight in a batch: nothing of it may be committed half written, so the whole batch is rolled
    // back, and its waiters (the turn's requests) are refused
    inTransaction(writer, () => insert.run("same turn"));
    const done = committed(writer);
    expect(() =>
      inSqliteWhole(writer, () => {
        insert.run("half");
        insert.run(null);
      }),
    ).toThrow(/NOT NULL/);
    expect(writer.inTransaction).toBe(false);
    await expect(done).rejects.toThrow("rolled back");
    inSqliteWhole(writer, () => insert.run("next"));
    await committed(writer);
    expect(onDisk()).toEqual(["kept", "outer", "joined", "next"]);
  });
});
