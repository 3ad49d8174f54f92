/**
 * A snapshot file as an image this build opens (docs/snapshots.md): read and checked, an older
 * schema brought up to date, or a 400 saying why not. Pure work on bytes, proportional to the file:
 * the image thread runs it (image-thread.ts), never the event loop.
 */
import type Database from "better-sqlite3";
import { appliedMigrations, journalImage, migrationHashes, openDb } from "../db/client.js";
import { Sqlite } from "../db/sqlite-driver.js";
import { badRequest } from "../platform/errors.js";
import { readSnapshot, type Snapshot, type SnapshotMeta } from "./snapshot-file.js";

/** A snapshot's state: its database image (rollback-journal marked, as a memory database opens it) and its clock's now. */
export interface LoadedSnapshot {
  image: Buffer;
  nowMs: number;
  meta: SnapshotMeta;
}

const refused = (why: string) => badRequest(`Invalid snapshot: ${why}`);

/**
 * A snapshot file as a state this build opens, or a 400 saying why not: an older schema is migrated
 * (the migrations it lacks run on it), a newer one or a database that is not ours is refused. The
 * image is written into `alloc(length)` (shared memory, from the image thread).
 */
export function loadSnapshot(bytes: Buffer, alloc: (length: number) => Buffer = Buffer.allocUnsafe): LoadedSnapshot {
  const snap: Snapshot = readSnapshot(bytes);
  const ours = migrationHashes();
  if (snap.migrations > ours.length) {
    throw refused(`made by a newer paysandbox (its database has ${snap.migrations} migrations, this server ${ours.length})`);
  }
  let image = alloc(snap.image.length);
  snap.image.copy(image);
  journalImage(image);
  let sqlite: Database.Database;
  try {
    sqlite = new Sqlite(image);
  } catch {
    throw refused("its database is not a SQLite database");
  }
  try {
    let applied: string[];
    try {
      applied = appliedMigrations(sqlite);
    } catch {
      throw refused("its database is not a SQLite database");
    }
    if (applied.length !== snap.migrations || applied.some((h, i) => h !== ours[i])) {
      throw refused("its database is not a paysandbox database (its migrations differ from this server's)");
    }
  } finally {
    sqlite.close();
  }
  if (snap.migrations < ours.length) {
    // an older schema: the migrations it lacks run over it
    const db = openDb(":memory:", { image, migrated: false });
    const migrated = db.$client.serialize();
    db.$client.close();
    image = alloc(migrated.length);
    migrated.copy(image);
    journalImage(image);
  }
  return { image, nowMs: snap.nowMs, meta: snap.meta };
}
