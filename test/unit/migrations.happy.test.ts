/**
 * The checked-in migrations (src/db/migrations, docs/developing.md): drizzle's migrator runs the
 * ones whose journal time is after the newest one a database has applied, so a journal time that
 * is not after the one before is a migration that existing databases (and older snapshots) never
 * get. `db:generate` stamps a new entry with the machine's clock, which can be behind an earlier
 * entry's: this keeps that from being committed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { migrationHashes, openDb } from "../../src/db/client.js";

const FOLDER = new URL("../../src/db/migrations/", import.meta.url);
const journal = JSON.parse(readFileSync(new URL("meta/_journal.json", FOLDER), "utf8")) as {
  entries: Array<{ idx: number; when: number; tag: string }>;
};

describe("the migrations' journal", () => {
  it("names each SQL file once, in order, each later than the one before", () => {
    const files = readdirSync(FOLDER)
      .filter((f) => f.endsWith(".sql"))
      .sort();
    expect(journal.entries.map((e) => `${e.tag}.sql`)).toEqual(files);
    expect(journal.entries.map((e) => e.idx)).toEqual(files.map((_, i) => i));
    for (let i = 1; i < journal.entries.length; i++) {
      const [before, entry] = [journal.entries[i - 1], journal.entries[i]];
      expect(entry?.when, `${entry?.tag} is not after ${before?.tag}`).toBeGreaterThan(before?.when ?? 0);
    }
  });

  it("brings a database that has all but the newest up to date", () => {
    const all = migrationHashes().length;
    const db = openDb(":memory:", { migrations: all - 1 });
    try {
      const image = db.$client.serialize();
      const again = openDb(":memory:", { image, migrated: false });
      try {
        const applied = again.$client.prepare("SELECT count(*) FROM __drizzle_migrations").pluck().get();
        expect(applied).toBe(all);
      } finally {
        again.$client.close();
      }
    } finally {
      db.$client.close();
    }
  });
});
