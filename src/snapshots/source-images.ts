/**
 * One image per state (docs/snapshots.md#consistency): the image of a sandbox's database now, taken
 * once and shared by every copy made while the database does not change, so a suite's 100 forks of
 * one world are one image. A change is any row its connection writes (`total_changes()`: the only
 * connection that writes to it). What it acknowledged is committed first (a group-commit batch stays
 * open across a turn, src/db/commit.ts): nothing acknowledged is missing. A file database's image is
 * read by the image thread, never on the event loop; a memory one's is `serialize()`, a copy in memory.
 */
import type Database from "better-sqlite3";
import { type Db, journalImage } from "../db/client.js";
import { commitNow } from "../db/commit.js";
import { fileImage } from "./image-thread.js";

/** A database's image at one state: rollback-journal marked (as a memory database opens it), in shared memory, never written. */
export type Image = Buffer;

interface Cached {
  changes: number;
  image: Promise<Image>;
}

const CACHE = new WeakMap<Database.Database, Cached>();
const CHANGES = new WeakMap<Database.Database, Database.Statement>();

/** Rows written by this connection since it opened (rolled back ones too: a change may be one). */
function changesOf(sqlite: Database.Database): number {
  let s = CHANGES.get(sqlite);
  if (!s) {
    s = sqlite.prepare("SELECT total_changes()").pluck();
    CHANGES.set(sqlite, s);
  }
  return s.get() as number;
}

/**
 * The image of `db` (the file `path`, or `:memory:`) as it is now, the same one as last time when it
 * has not changed since. Read the clock after it settles: the image holds nothing later than that.
 */
export function imageOf(db: Db, path: string): Promise<Image> {
  const sqlite = db.$client;
  commitNow(sqlite);
  const changes = changesOf(sqlite);
  const cached = CACHE.get(sqlite);
  if (cached && cached.changes === changes) return cached.image;
  const image = path === ":memory:" ? Promise.resolve(memoryImage(sqlite)) : fileImage(path);
  const entry = { changes, image };
  CACHE.set(sqlite, entry);
  // a failure is not kept: the next copy asks again
  image.catch(() => CACHE.get(sqlite) === entry && CACHE.delete(sqlite));
  return image;
}

/** A memory database's image, in shared memory (the image thread reads it without a copy). */
function memoryImage(sqlite: Database.Database): Image {
  const bytes = sqlite.serialize();
  const image = Buffer.from(new SharedArrayBuffer(bytes.length));
  bytes.copy(image);
  return journalImage(image);
}

/** The image kept for `db` is let go (it closes): its memory goes with the last copy that shares it. */
export function forgetImage(db: Db): void {
  CACHE.delete(db.$client);
}
