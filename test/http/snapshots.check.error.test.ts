/**
 * docs/snapshots.md#what-a-load-checks: a snapshot whose checksum was made right again after its
 * database was changed is checked itself. A foreign schema, a missing table, a trigger or a view, a
 * damaged page, a root page of the wrong kind, a value of the wrong kind (a clock that is not a
 * number, a merchant's NULL, JSON that does not parse, a status no lifecycle has), a description
 * whose scenario is not one: each a 400 `Invalid snapshot: …` saying what, and nothing created: no
 * sandbox listed, no file left in the sandboxes' folder.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sqlite } from "../../src/db/sqlite-driver.js";
import { CheckedFiles, loadSnapshot } from "../../src/snapshots/load.js";
import { checksumOf } from "../../src/snapshots/snapshot-file.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { alter, buildWorld, imageOf, resign, type Send, SNAPSHOT_TYPE, sendVia, type World } from "../helpers/snapshot-damage.js";

let s: TestServer;
let dir: string;
let world: World;
let image: Buffer;

/** Requests straight to the server's fetch (bytes as they are). */
const send: Send = (...args) => sendVia((req) => s.server.fetch(req, {}), "http://sandbox.test")(...args);

beforeAll(async () => {
  // a file database: a refused load must leave no file in `<db>-sandboxes/`
  dir = mkdtempSync(join(tmpdir(), "paysandbox-snapshot-check-"));
  s = makeServer({ config: { db: join(dir, "root.db") } });
  world = await buildWorld(send);
  image = imageOf(world.file);
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const files = () => {
  try {
    return readdirSync(join(dir, "root.db-sandboxes"));
  } catch {
    return [];
  }
};

/** Loads the world's file with its image changed (and its checksum made right): 400 naming why, nothing created. */
async function expectRefused(changed: Buffer, why: RegExp, file = resign(world.file, changed)) {
  const listed = (await send("GET", "/_sandbox/sandboxes")).text;
  const before = files();
  const res = await send("POST", "/_sandbox/sandboxes", file, { "content-type": SNAPSHOT_TYPE });
  expect(res.status, res.text).toBe(400);
  const message = (JSON.parse(res.text) as { errorMessage: string }).errorMessage;
  expect(message).toMatch(/^Invalid snapshot: /);
  expect(message).toMatch(why);
  expect((await send("GET", "/_sandbox/sandboxes")).text).toBe(listed);
  expect(files()).toEqual(before);
  return message;
}

/** The first page of a table or index of the world's image. */
function rootPage(name: string): number {
  const db = new Sqlite(image);
  try {
    return db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = ?").pluck().get(name) as number;
  } finally {
    db.close();
  }
}

/** The CREATE statement of a schema object, as stored. */
const sqlOf = (db: Parameters<Parameters<typeof alter>[1]>[0], name: string) =>
  db.prepare("SELECT sql FROM sqlite_schema WHERE name = ?").pluck().get(name) as string;

describe("a re-signed snapshot whose database is not this server's schema", () => {
  it("the world as it is loads (the cases below start from it)", async () => {
    const res = await send("POST", "/_sandbox/sandboxes", resign(world.file, image), { "content-type": SNAPSHOT_TYPE });
    expect(res.status, res.text).toBe(201);
    expect((await send("DELETE", `/_sandbox/sandboxes/${JSON.parse(res.text).id}?force=true`)).status).toBe(204);
  });

  it("a table missing, a table or index more, a column more: named", async () => {
    await expectRefused(
      alter(image, (db) => db.exec("DROP TABLE recorded_calls")),
      /not a paysandbox database \(its schema has no table recorded_calls\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")),
      /not a paysandbox database \(its schema has a table notes that this server's has not\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("CREATE INDEX tx_amount ON transactions (order_amount)")),
      /its schema has a index tx_amount that this server's has not/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("ALTER TABLE merchants ADD COLUMN note TEXT")),
      /not a paysandbox database \(its table merchants is not defined as this server's\)/,
    );
  });

  it("a trigger or a view (code a later write or read would run) is refused before anything of it runs", async () => {
    await expectRefused(
      alter(image, (db) => db.exec("CREATE TRIGGER wipe AFTER INSERT ON transactions BEGIN DELETE FROM merchants; END")),
      /its schema has a trigger wipe that this server's has not/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("CREATE VIEW everything AS SELECT * FROM transactions")),
      /its schema has a view everything that this server's has not/,
    );
    // a CHECK constraint of another definition of a table: compared, never evaluated
    await expectRefused(
      alter(image, (db) => {
        db.pragma("writable_schema = ON");
        const sql = sqlOf(db, "events").replace(/\)$/, ", CHECK (length(randomblob(1000000000)) > 0))");
        db.prepare("UPDATE sqlite_schema SET sql = ? WHERE name = 'events'").run(sql);
      }),
      /its table events is not defined as this server's/,
    );
  });

  it("a valid SQLite database of another program → not a paysandbox database", async () => {
    await expectRefused(
      alter(image, (db) => {
        for (const name of db
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .pluck()
          .all()) {
          db.exec(`DROP TABLE "${name as string}"`);
        }
        db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
      }),
      /not a paysandbox database \(its schema has no table __drizzle_migrations\)/,
    );
  });
});

describe("a re-signed snapshot whose database is damaged", () => {
  it("a page of a table zeroed → damaged, naming what SQLite found", async () => {
    const page = rootPage("transactions");
    const zeroed = Buffer.from(image);
    zeroed.fill(0, (page - 1) * 4096, page * 4096);
    await expectRefused(zeroed, /^Invalid snapshot: damaged \(/);
  });

  it("a table's page copied over an index's root (SQLite's integrity check passes it) → damaged, naming the index", async () => {
    const [index, table] = [rootPage("transactions_due_idx"), rootPage("merchants")];
    const copied = Buffer.from(image);
    image.copy(copied, (index - 1) * 4096, (table - 1) * 4096, table * 4096);
    await expectRefused(copied, /damaged \(the root page of index transactions_due_idx, page \d+, is not a page of an index\)/);
  });

  it("cut short at a page's end, its header made right → damaged, saying its size", async () => {
    const cut = Buffer.from(image.subarray(0, image.length - 4096));
    await expectRefused(cut, /damaged \(/);
    await expectRefused(
      Buffer.from(image.subarray(0, image.length - 10)),
      /damaged \(its database is \d+ bytes, not its \d+ pages of 4096\)/,
    );
  });
});

describe("a re-signed snapshot holding a value the sandbox would fail on later", () => {
  it("a clock that is not a number (the 500 of the clock store)", async () => {
    await expectRefused(
      alter(image, (db) => db.exec("UPDATE sandbox_state SET value = 'soon' WHERE key = 'clock_now_ms'")),
      /damaged \(sandbox_state, row \d+: value is not the clock's now, integer ms \(key clock_now_ms\)\)/,
    );
  });

  it("a NULL in a merchant's required column", async () => {
    await expectRefused(
      alter(image, (db) => {
        const sql = sqlOf(db, "merchants");
        db.pragma("writable_schema = ON");
        db.prepare("UPDATE sqlite_schema SET sql = ? WHERE name = 'merchants'").run(
          sql.replace("`mid` text NOT NULL", "`mid` text"),
        );
        db.pragma("writable_schema = RESET");
        db.exec("UPDATE merchants SET mid = NULL");
        db.pragma("writable_schema = ON");
        db.prepare("UPDATE sqlite_schema SET sql = ? WHERE name = 'merchants'").run(sql);
      }),
      /damaged \(SQLite's integrity check: NULL value in merchants\.mid\)/,
    );
  });

  it("JSON that does not parse, text where an instant goes, a status no lifecycle has, the built-in merchant's ids elsewhere", async () => {
    await expectRefused(
      alter(image, (db) => db.exec("UPDATE merchants SET wallet_domains = '[\"localhost\"'")),
      /damaged \(merchants, row 1: wallet_domains is not JSON\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec(`UPDATE merchants SET wallet_domains = '{"localhost": 1}'`)),
      /damaged \(merchants, row 1: wallet_domains is not a JSON array\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("UPDATE transactions SET created_at = 'yesterday' WHERE rowid = 1")),
      /damaged \(SQLite's integrity check: non-INTEGER value in transactions\.created_at\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("UPDATE transactions SET status = 'SUCCEEX' WHERE rowid = 2")),
      /damaged \(transactions, row 2: status is not a status of its kind\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("UPDATE transactions SET updated_at = 1e300 WHERE rowid = 1")),
      /non-INTEGER value in transactions\.updated_at|updated_at is not an instant/,
    );
    await expectRefused(
      alter(image, (db) => db.exec(`UPDATE transactions SET due_at = ${2 ** 53} WHERE rowid = 1`)),
      /damaged \(transactions, row 1: due_at is not an instant before 9999 or null\)/,
    );
    // the next delivery's seq would be past SQLite's largest: every write that adds a delivery fails (SQLITE_FULL)
    await expectRefused(
      alter(image, (db) =>
        db.exec(
          "DELETE FROM sqlite_sequence WHERE name = 'webhook_deliveries'; INSERT INTO sqlite_sequence (name, seq) VALUES ('webhook_deliveries', 9223372036854775807)",
        ),
      ),
      /damaged \(sqlite_sequence, row \d+: seq is not a key below 2\^53\)/,
    );
    // an event's id at SQLite's largest: the next event would take a random id, and ids must only grow
    await expectRefused(
      alter(image, (db) => db.exec("UPDATE events SET id = 9223372036854775807 WHERE id = (SELECT max(id) FROM events)")),
      /damaged \(events, row \d+: id is not a key below 2\^53\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec("UPDATE idempotency_keys SET response = '{' WHERE rowid = 1")),
      /damaged \(idempotency_keys, row 1: response is not JSON\)/,
    );
    await expectRefused(
      // the built-in merchant's row under another key: the open writes the built-in one again, and its ids are taken
      alter(image, (db) => db.exec("UPDATE merchants SET merchant_key = 'renamed' WHERE merchant_key = 'sandbox_merchant_key'")),
      /damaged \(merchants, row 1: merchant_key is not the built-in merchant's, or a merchant whose mid and ids are not the built-in one's\)/,
    );
    await expectRefused(
      alter(image, (db) => db.exec(`UPDATE scenarios SET document = '{"name": 5}'`)),
      /damaged \(scenarios, row 1: document is not a scenario\)/,
    );
  });

  it("a description whose clock no date holds, or whose scenario is not one", async () => {
    const far = Buffer.from(resign(world.file, image));
    far.writeDoubleBE(1e300, 24);
    await expectRefused(
      image,
      /damaged \(its clock's now or start is not an instant up to 9999-01-01T00:00:00\.000Z\)/,
      resign(far, image),
    );
    const meta = JSON.parse(world.file.subarray(64, 64 + world.file.readUInt32BE(12)).toString("utf8"));
    const text = Buffer.from(JSON.stringify({ ...meta, scenario: { merchants: [null] } }));
    const head = Buffer.from(world.file.subarray(0, 64));
    head.writeUInt32BE(text.length, 12);
    await expectRefused(
      image,
      /damaged \(the scenario of its description is not a scenario\)/,
      resign(Buffer.concat([head, text, image]), image),
    );
  });

  it("a file that passed is not checked again; a refused one is, each time; a checksum counts only once verified", () => {
    const checked = new CheckedFiles();
    const refusedWhy = (file: Buffer) => {
      try {
        loadSnapshot(file, undefined, checked);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refusedWhy(world.file)).toBeUndefined();
    expect(checked.has(checksumOf(world.file))).toBe(true);
    const damaged = resign(
      world.file,
      alter(image, (db) => db.exec("DROP TABLE recorded_calls")),
    );
    for (let i = 0; i < 2; i++) expect(refusedWhy(damaged)).toMatch(/^Invalid snapshot: /);
    expect(checked.has(checksumOf(damaged))).toBe(false);
    // the damaged bytes under the good file's checksum: refused by the checksum, before any lookup
    const forged = Buffer.from(damaged);
    world.file.copy(forged, 32, 32, 64);
    expect(refusedWhy(forged)).toBe("Invalid snapshot: damaged (its checksum does not match)");
    // what a listed checksum saves is the database check itself: listed, the damaged file would load
    checked.add(checksumOf(damaged));
    expect(refusedWhy(damaged)).toBeUndefined();
  });

  it("keeps the newest checksums only", () => {
    const checked = new CheckedFiles(2);
    for (const k of ["a", "b", "c"]) checked.add(k);
    expect(["a", "b", "c"].map((k) => checked.has(k))).toEqual([false, true, true]);
  });
});
