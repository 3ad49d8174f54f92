/**
 * Where a sandbox's database lives (docs/parallel-suites.md#storage): a file in `<db>-sandboxes/`, which
 * survives a restart and a kill -9, or memory, which costs no file work at all and ends with the
 * process. No file work runs on the event loop: the checkpointer thread writes a new file from the
 * image, makes its first write and closes it last (`holdFile`); a copy's file is a kernel copy of its
 * source's image file, written once per image, and its origin a link to that file (files.ts); files
 * are removed by libuv's threads. A memory database is the image copied into SQLite's memory; closed
 * when idle, it is kept as it is (the connection without its services) until it is opened again.
 */
import { readFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { checkpointInBackground, type HeldFile, holdFile } from "../db/checkpointer.js";
import { closeDb, type Db, openDb, walImage } from "../db/client.js";
import { commitNow, enableGroupCommit } from "../db/commit.js";
import { type GiveBack, giveBackFreedMemory } from "../db/give-back.js";
import type { Logger } from "../logger.js";
import { adoptCopy } from "../snapshots/images.js";
import { forgetImage, type Image } from "../snapshots/source-images.js";
import type { Made } from "./composition.js";
import {
  copyImageFile,
  copyMarkPath,
  databasePath,
  imageName,
  originPath,
  removeFiles,
  removeImageFile,
  writeImageFile,
} from "./files.js";

/** `file`: survives a restart; `memory`: faster, and gone when the process ends (docs/parallel-suites.md#storage). */
export type Storage = "file" | "memory";

/** Page cache of a sandbox's connection (KiB): many are open at once, each with a small working set. */
const CACHE_KIB = 4000;

/** Memory databases closed for good (bytes) before their memory is given back to the system (src/db/give-back.ts). */
const GIVE_BACK_AFTER = 16 * 1024 * 1024;

/** A sandbox's open database, as the registry keeps it. */
export interface Opened {
  db: Db;
  storage: Storage;
  /** Its file, or `:memory:`. */
  path: string;
}

/** A copy's image, and what its first open settles (adoptCopy at the source's now, `nowMs`). */
export interface Copy {
  image: Image;
  /** The sandbox id or `root` it came from; none for a loaded snapshot. */
  source?: string | undefined;
  nowMs: number;
  made: "fork" | "load";
}

/** A sandbox made and not opened yet: how it was made; a memory one's image (shared with the copies of one state). */
interface Unopened {
  made: Exclude<Made, "reopen">;
  /** A copy's now, which its first open settles it at. */
  nowMs?: number | undefined;
  image?: Image | undefined;
}

interface FileHold {
  held: HeldFile | undefined;
  stopCheckpoints: (opts?: { beforeClose?: boolean }) => Promise<void>;
}

/** An image written as a file for copies (files.ts), and the copies being made from it now. */
interface ImageFile {
  image: Image;
  file: Promise<string>;
  copies: Set<Promise<void>>;
}

/**
 * An image file let go: removed once the copies begun from it are made (no new one can begin, it is
 * no longer its source's), never under one still reading it.
 */
function dropImageFile(entry: ImageFile): void {
  void Promise.allSettled([...entry.copies])
    .then(() => entry.file)
    .then(removeImageFile)
    .catch(() => undefined);
}

export interface StorageOptions {
  /** The folder of file-backed sandboxes; undefined on a `:memory:` server (memory only). */
  folder: string | undefined;
  /** The server's settings for every database: one commit per turn, the WAL checkpointed off the request path. */
  groupCommit: boolean;
  /** A new sandbox's database: migrated, the built-in merchant seeded. */
  freshImage: () => Image;
  logger: Logger;
}

export class SandboxStorage {
  /** Memory databases of sandboxes that are closed: kept as they are until opened again. */
  private readonly parked = new Map<string, Db>();
  /** The image each memory-backed copy was made from (shared by the copies of one image). */
  private readonly origins = new Map<string, Image>();
  private readonly holds = new WeakMap<Db, FileHold>();
  /** Per source (a sandbox id, or `root`): its image as a file, which file-backed copies are made from. */
  private readonly imageFiles = new Map<string, ImageFile>();
  /** Bytes of the memory databases closed for good since memory was last given back. */
  private freed = 0;
  /** Sandboxes made and not opened yet (their first open: `open`). */
  private readonly unopened = new Map<string, Unopened>();
  /** The fresh image as a WAL-marked file's bytes, written as each new file-backed sandbox. */
  private freshFile: Buffer | undefined;
  private madeFolder: Promise<unknown> | undefined;

  constructor(private readonly o: StorageOptions) {}

  /**
   * A new sandbox's database, made and not opened (its first open opens it: docs/performance.md
   * "Sandboxes at once"): a memory one is its image until then, shared with every copy of that
   * state; a file one is written by libuv's threads (the fresh image, or a kernel copy of a copy's
   * image file), and a copy's file is marked (`-copy`), so a first open after a restart settles it too.
   */
  async make(id: string, storage: Storage, copy?: Copy): Promise<void> {
    const unopened: Unopened = copy ? { made: copy.made, nowMs: copy.nowMs } : { made: "new" };
    if (storage === "memory") {
      this.unopened.set(id, { ...unopened, image: copy?.image ?? this.o.freshImage() });
      if (copy) this.origins.set(id, copy.image);
      return;
    }
    const path = databasePath(this.folder(), id);
    // a copy's image file is asked for at once: a source let go from now on lets it go after this copy
    const imageFile = copy ? this.imageFile(copy.image, copy.source) : undefined;
    this.madeFolder ??= mkdir(this.folder(), { recursive: true });
    const made = this.madeFolder.then(async () => {
      if (!copy || !imageFile) {
        this.freshFile ??= walImage(this.o.freshImage());
        await writeFile(path, this.freshFile);
        return;
      }
      await writeFile(copyMarkPath(path), JSON.stringify({ made: copy.made, nowMs: copy.nowMs }));
      await copyImageFile(await imageFile.file, path);
    });
    imageFile?.copies.add(made);
    try {
      await made;
    } catch (err) {
      await removeFiles(path);
      throw err;
    } finally {
      imageFile?.copies.delete(made);
      // an image of no source (a snapshot file's) makes one copy: its file goes once it is made
      if (imageFile && copy?.source === undefined) dropImageFile(imageFile);
    }
    this.unopened.set(id, unopened);
  }

  /**
   * Opens a sandbox's database: one made and never opened (a copy settled first, before anything
   * runs: adoptCopy), or a closed one (`reopen`). `migrated`: its file was written by this process
   * (no migrations to check, no mark to look for).
   */
  async open(id: string, storage: Storage, migrated: boolean): Promise<{ opened: Opened; made: Made }> {
    const unopened = this.unopened.get(id);
    if (storage === "memory") {
      if (unopened?.image) return this.first(id, { db: this.memory(unopened.image), storage, path: ":memory:" }, unopened);
      const db = this.parked.get(id);
      if (!db) throw new Error(`no memory database for ${id}`);
      this.parked.delete(id);
      return { opened: { db, storage, path: ":memory:" }, made: "reopen" };
    }
    const path = databasePath(this.folder(), id);
    // made before a restart and never opened: a copy's mark says what its first open settles
    const first = unopened ?? (migrated ? undefined : await readMark(path));
    const opened = await this.file(path, { image: this.o.freshImage(), migrated: migrated || first !== undefined });
    if (!first) return { opened, made: "reopen" };
    const done = await this.first(id, opened, first);
    // settled and committed: the mark goes before anything runs in it
    if (first.nowMs !== undefined) await rm(copyMarkPath(path), { force: true });
    return done;
  }

  /** A first open: a copy is settled in its own database (what must not carry over from its source). */
  private async first(id: string, opened: Opened, unopened: Unopened): Promise<{ opened: Opened; made: Made }> {
    if (unopened.nowMs !== undefined) {
      try {
        adoptCopy(opened.db, unopened.nowMs);
        commitNow(opened.db.$client);
      } catch (err) {
        // left as it was made: a later open tries again
        const { released } = await this.close(id, opened, opened.storage === "memory");
        await released;
        throw err;
      }
    }
    this.unopened.delete(id);
    return { opened, made: unopened.made };
  }

  /**
   * After its composition closed: a file is closed (the checkpointer thread copies its WAL back and
   * closes it last, in its own time: `released`; `forGood`, a deletion, copies nothing back durably:
   * the file goes next); a memory one is kept for its next open, unless `forGood`. Its image for
   * copies is let go either way.
   */
  async close(id: string, opened: Opened, forGood: boolean): Promise<{ released: Promise<void> }> {
    forgetImage(opened.db);
    this.forgetSource(id);
    if (opened.storage === "memory") {
      if (forGood) this.closeMemory(opened.db);
      else {
        commitNow(opened.db.$client);
        // its page cache goes: the pages themselves are its memory database
        opened.db.$client.pragma("shrink_memory");
        this.parked.set(id, opened.db);
      }
      return { released: Promise.resolve() };
    }
    const hold = this.holds.get(opened.db);
    await hold?.stopCheckpoints({ beforeClose: true });
    closeDb(opened.db);
    return { released: hold?.held ? hold.held.release({ discard: forGood }) : Promise.resolve() };
  }

  /** Everything a deleted sandbox had: its files once the thread has let them go, or its memory. */
  async remove(id: string, storage: Storage, released: Promise<void> = Promise.resolve()): Promise<void> {
    this.origins.delete(id);
    this.unopened.delete(id);
    const parked = this.parked.get(id);
    if (parked) this.closeMemory(parked);
    this.parked.delete(id);
    this.forgetSource(id);
    if (storage === "file") {
      await released;
      await removeFiles(databasePath(this.folder(), id));
    }
  }

  /** The image a copy was made from, which its `reset {"snapshot": true}` goes back to (a file-backed one's is its origin file). */
  origin(id: string, storage: Storage): Image | undefined {
    if (storage === "memory") return this.origins.get(id);
    try {
      return readFileSync(originPath(databasePath(this.folder(), id)));
    } catch {
      return undefined;
    }
  }

  /** The image file of a source is let go (it changed, closed or went): copies made from it keep their links. */
  forgetSource(source: string): void {
    const had = this.imageFiles.get(source);
    if (!had) return;
    this.imageFiles.delete(source);
    dropImageFile(had);
  }

  /**
   * Once memory databases of 16 MB or more have been closed for good, their freed memory goes back
   * to the system (the registry's tick): glibc would keep it (src/db/give-back.ts). Undefined: not yet.
   */
  giveBack(): GiveBack | undefined {
    if (this.freed < GIVE_BACK_AFTER) return undefined;
    this.freed = 0;
    return giveBackFreedMemory();
  }

  /** A memory database closed for good: its size counts towards the next give-back. */
  private closeMemory(db: Db): void {
    const sqlite = db.$client;
    if (sqlite.open) {
      const pages = sqlite.pragma("page_count", { simple: true }) as number;
      this.freed += pages * (sqlite.pragma("page_size", { simple: true }) as number);
    }
    closeDb(db);
  }

  private folder(): string {
    if (this.o.folder === undefined) throw new Error("file storage on a :memory: server");
    return this.o.folder;
  }

  /** The image as a file to copy from: written once per image of a source (a load's, once). */
  private imageFile(image: Image, source: string | undefined): ImageFile {
    const had = source === undefined ? undefined : this.imageFiles.get(source);
    if (had && had.image === image) return had;
    if (source !== undefined) this.forgetSource(source);
    const entry = { image, file: writeImageFile(this.folder(), imageName(), image), copies: new Set<Promise<void>>() };
    if (source !== undefined) {
      this.imageFiles.set(source, entry);
      // a file that could not be written is not kept: the next copy writes it again
      entry.file.catch(() => this.imageFiles.get(source) === entry && this.imageFiles.delete(source));
    }
    return entry;
  }

  private memory(image: Image): Db {
    const db = openDb(":memory:", { image, cacheKiB: CACHE_KIB });
    if (this.o.groupCommit) enableGroupCommit(db.$client);
    return db;
  }

  /**
   * A file database: the checkpointer thread prepares and holds it first (written from `image` when
   * it does not exist yet), then this connection opens it; with group commit, the thread also
   * checkpoints it in the background. Without the thread, the file is opened here as before.
   */
  private async file(path: string, o: { image?: Image; migrated: boolean }): Promise<Opened> {
    const held = await holdFile(path, o.image);
    let db: Db;
    try {
      db = openDb(path, { ...(held ? {} : o.image ? { image: o.image } : {}), migrated: o.migrated, cacheKiB: CACHE_KIB });
    } catch (err) {
      void held?.release();
      throw err;
    }
    if (this.o.groupCommit) enableGroupCommit(db.$client);
    const stopCheckpoints = this.o.groupCommit ? checkpointInBackground(db, path) : async () => undefined;
    this.holds.set(db, { held, stopCheckpoints });
    return { db, storage: "file", path };
  }
}

/** A file-backed copy made before a restart and never opened: what its first open settles (its `-copy` mark), or undefined. */
async function readMark(path: string): Promise<Unopened | undefined> {
  let text: string;
  try {
    text = await readFile(copyMarkPath(path), "utf8");
  } catch {
    return undefined;
  }
  const mark = JSON.parse(text) as { made: "fork" | "load"; nowMs: number };
  return { made: mark.made, nowMs: mark.nowMs };
}
