/**
 * Database images of sandboxes (docs/snapshots.md): a running one's state as a snapshot file, a
 * copy's first open settled (what must not carry over from its source), and a copy's reset back to
 * its image. Where images come from: source-images.ts (a running sandbox's, once per state) and
 * load.ts (a snapshot file's, checked by the image thread).
 */
import type Database from "better-sqlite3";
import { appliedMigrations, type Db, inTransaction, journalImage } from "../db/client.js";
import { ClockStore } from "../db/clock-store.js";
import { Sqlite } from "../db/sqlite-driver.js";
import { setState, stateValue } from "../db/state.js";
import { inheritSecrets } from "../modules/auth/auth.service.js";
import { ManualClock, toIso } from "../platform/clock.js";
import { skipCopiedDeliveries } from "../webhooks/webhooks.repo.js";
import { snapshotFileOf } from "./image-thread.js";
import { imageOf } from "./source-images.js";

/** The migrations a database has (how far its schema is). */
export function migrationsOf(sqlite: Database.Database): number {
  return appliedMigrations(sqlite).length;
}

/** Where a copy keeps the now it was made at, which its `reset {"snapshot": true}` puts its clock back to. */
const ORIGIN_NOW_KEY = "origin_now_ms";

/**
 * A copy's first open (docs/snapshots.md): what must not carry over from its source is settled, in
 * its own database, before anything runs. Deliveries pending in the source are `skipped (copied)`,
 * never sent by the copy; the copy signs its tokens with a secret of its own and accepts those its
 * source had issued; the registry rows of other sandboxes (a copy of the root) are dropped; its clock
 * is saved at the source's now. Ids need nothing: every id handed out is time-ordered random
 * (src/platform/ids.ts), so the copy's and the source's never meet.
 */
export function adoptCopy(db: Db, nowMs: number): void {
  inTransaction(db, () => {
    skipCopiedDeliveries(db, nowMs);
    inheritSecrets(db, nowMs);
    db.$client.prepare("DELETE FROM sandboxes").run();
    new ClockStore({ db, clock: new ManualClock(nowMs) }).save();
    setState(db, ORIGIN_NOW_KEY, String(nowMs));
  });
}

/** Where a sandbox came from (docs/snapshots.md): what a snapshot of it says, and what its reset goes back to. */
export interface Lineage {
  /** `root` or its sandbox id. */
  source: string;
  /** Where its reset puts its clock (undefined: the root's start time, else its now). */
  startMs: number | undefined;
  /** The scenario document it was created with, which its reset reloads; null for none. */
  scenario: unknown;
  /** The image it was copied from, which `reset {"snapshot": true}` goes back to; undefined when it is no copy. */
  origin(): Buffer | undefined;
}

export const ROOT_LINEAGE: Lineage = { source: "root", startMs: undefined, scenario: null, origin: () => undefined };

/**
 * `GET /_sandbox/snapshot`: the sandbox's state now as a snapshot file (docs/snapshots.md#consistency):
 * its image as a copy would take it (source-images.ts), the file and its checksum made by the image
 * thread. `path` is its database file, or `:memory:`.
 */
export async function snapshotOf(
  ctx: { db: Db; lineage: Lineage; clock: { nowMs(): number } },
  path: string,
): Promise<{
  file: Buffer;
  nowMs: number;
  source: string;
}> {
  const image = await imageOf(ctx.db, path);
  // read after the image: it holds nothing later than this now
  const nowMs = ctx.clock.nowMs();
  const { source, startMs, scenario } = ctx.lineage;
  const meta = { now: toIso(nowMs), source, startMs: startMs ?? nowMs, scenario: scenario ?? null };
  const file = await snapshotFileOf({ image, nowMs, meta, migrations: migrationsOf(ctx.db.$client) });
  return { file, nowMs, source };
}

/**
 * `reset {"snapshot": true}`: every table back to what it was in `origin` (the image the copy was
 * made from), in one transaction, but the live events (whose ids only grow), the registry's rows and
 * the copy's own state (its secrets, where it was made); what the copy settled at its first open is
 * settled again. Returns the now it was made at.
 */
export function restoreImage(db: Db, origin: Buffer): number {
  const nowMs = Number(stateValue(db, ORIGIN_NOW_KEY) ?? Number.NaN);
  const src = new Sqlite(journalImage(Buffer.from(origin)));
  try {
    const tables = (
      src
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('events', 'sandboxes', 'sandbox_state', '__drizzle_migrations')",
        )
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    const sqlite = db.$client;
    inTransaction(db, () => {
      sqlite.pragma("defer_foreign_keys = ON");
      for (const table of tables) {
        sqlite.prepare(`DELETE FROM "${table}"`).run();
        const read = src.prepare(`SELECT * FROM "${table}"`).raw();
        const columns = read.columns().map((c) => `"${c.name}"`);
        const insert = sqlite.prepare(
          `INSERT INTO "${table}" (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
        );
        for (const row of read.iterate() as IterableIterator<unknown[]>) insert.run(row);
      }
      skipCopiedDeliveries(db, nowMs);
    });
    return nowMs;
  } finally {
    src.close();
  }
}
