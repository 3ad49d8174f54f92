/**
 * A snapshot file as an image this build opens (docs/snapshots.md): read and checked, an older
 * schema brought up to date, or a 400 saying why not. Pure work on bytes, proportional to the file:
 * the image thread runs it (image-thread.ts), never the event loop.
 */
import { type Db, journalCopy, journalImage, migrationHashes, openDb } from "../db/client.js";
import { badRequest } from "../platform/errors.js";
import { checkImage, checkMeta } from "./check.js";
import { checksumOf, readSnapshot, type Snapshot, type SnapshotMeta } from "./snapshot-file.js";

/** A snapshot's state: its database image (rollback-journal marked, as a memory database opens it) and its clock's now. */
export interface LoadedSnapshot {
  image: Buffer;
  nowMs: number;
  meta: SnapshotMeta;
  /**
   * The file as it was loaded (a copy of its bytes; the image a view into it unless it was migrated
   * or WAL-marked): a later file of its checksum is verified by comparing them.
   */
  file: Buffer;
}

const refused = (why: string) => badRequest(`Invalid snapshot: ${why}`);

/**
 * Files whose database passed the check, by their checksum (verified against their bytes before it is
 * looked up: a SHA-256 over the whole file, so the same checksum is the same bytes, and the same
 * check's answer). A suite whose every test file loads one fixture pays the database check once: on
 * the 10,000-payment world it is most of a load (docs/performance.md "Sandboxes at once"). The
 * newest `keep` (256) are kept, 64 hex characters each.
 */
export class CheckedFiles {
  private readonly keys = new Set<string>();
  constructor(private readonly keep = 256) {}
  has(checksum: string): boolean {
    return this.keys.has(checksum);
  }
  add(checksum: string): void {
    this.keys.delete(checksum);
    this.keys.add(checksum);
    if (this.keys.size > this.keep) this.keys.delete(this.keys.values().next().value as string);
  }
}

/** This process's (the image thread's): its check is this build's. */
const checkedHere = new CheckedFiles();

/**
 * A snapshot file as a state this build opens, or a 400 saying why not: the file's header and
 * checksum (src/snapshots/snapshot-file.ts), then its database (src/snapshots/check.ts) unless a
 * file of that checksum passed it before (`checked`); an older
 * schema is migrated (the migrations it lacks run on it), a newer one refused. The
 * file is copied into `alloc(length)` (shared memory, from the image thread), and its image with it
 * (a migrated one into memory of its own).
 */
export function loadSnapshot(
  bytes: Buffer,
  alloc: (length: number) => Buffer = Buffer.allocUnsafe,
  checked: CheckedFiles = checkedHere,
): LoadedSnapshot {
  const snap: Snapshot = readSnapshot(bytes);
  const checksum = checksumOf(bytes);
  const ours = migrationHashes();
  if (snap.migrations > ours.length) {
    throw refused(`made by a newer paysandbox (its database has ${snap.migrations} migrations, this server ${ours.length})`);
  }
  const file = alloc(bytes.length);
  bytes.copy(file);
  // a WAL-marked image is marked in a copy of its own, so that the file's bytes stay as they were
  let image = journalCopy(file.subarray(file.length - snap.image.length), alloc);
  if (!checked.has(checksum)) {
    const problem = checkMeta(snap.meta) ?? checkImage(image, snap.migrations);
    if (problem !== undefined) throw refused(problem);
    checked.add(checksum);
  }
  if (snap.migrations < ours.length) {
    // an older schema: the migrations it lacks run over it
    let db: Db | undefined;
    let migrated: Buffer;
    try {
      db = openDb(":memory:", { image, migrated: false });
      migrated = db.$client.serialize();
    } catch (err) {
      throw refused(`its database could not be migrated to this server's schema (${(err as Error).message})`);
    } finally {
      db?.$client.close();
    }
    image = alloc(migrated.length);
    migrated.copy(image);
    journalImage(image);
  }
  return { image, nowMs: snap.nowMs, meta: snap.meta, file };
}
