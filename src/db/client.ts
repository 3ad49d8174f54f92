import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { type MigrationMeta, readMigrationFiles } from "drizzle-orm/migrator";
import { commitNow, committed, inSqliteTransaction } from "./commit.js";
import * as schema from "./schema/index.js";
import { SQLITE_DRIVER, Sqlite } from "./sqlite-driver.js";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** In src/ this is src/db/migrations; the build copies it next to dist/main.js. */
const MIGRATIONS = fileURLToPath(new URL("./migrations", import.meta.url));

export interface OpenOptions {
  /** The checked-in migrations (tests point elsewhere). */
  migrationsFolder?: string;
  /**
   * A database image (`serialize()` of a migrated database) to start from: written as the file (or
   * loaded as `:memory:`) when there is none yet, so a new sandbox skips building its schema.
   */
  image?: Buffer;
  /** Page cache in KiB (default 32 MB: the root; a sandbox among many takes less). */
  cacheKiB?: number;
  /**
   * The file is known to have every migration of this build (written from its image in this process);
   * `false` runs the migrations even over an image (a snapshot of an older version, docs/snapshots.md).
   */
  migrated?: boolean;
}

/** Migrations read once per folder: each open of a sandbox's file would read and hash every file again. */
const MIGRATIONS_READ = new Map<string, MigrationMeta[]>();

function migrations(folder: string): MigrationMeta[] {
  let m = MIGRATIONS_READ.get(folder);
  if (!m) {
    m = readMigrationFiles({ migrationsFolder: folder });
    MIGRATIONS_READ.set(folder, m);
  }
  return m;
}

/** The hashes of this build's migrations, oldest first (a snapshot's database must have a prefix of them). */
export function migrationHashes(folder = MIGRATIONS): string[] {
  return migrations(folder).map((m) => m.hash);
}

/** The hashes of the migrations a database has, oldest first (none for a database drizzle never migrated). */
export function appliedMigrations(sqlite: Database.Database): string[] {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return [];
  return (sqlite.prepare("SELECT hash FROM __drizzle_migrations ORDER BY id").all() as Array<{ hash: string }>).map(
    (r) => r.hash,
  );
}

/**
 * Opens (creating the folder of) the SQLite file or `:memory:`, in WAL mode with
 * synchronous=NORMAL (a committed transaction survives a process crash), and applies the
 * checked-in drizzle-kit migrations (a no-op on a database that has them all).
 */
export function openDb(path: string, opts: OpenOptions | string = {}): Db {
  const o = typeof opts === "string" ? { migrationsFolder: opts } : opts;
  const memory = path === ":memory:";
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  // a database started from an image has every migration of this build already
  let fromImage = (memory && o.image !== undefined) || o.migrated === true;
  if (!memory && o.image && !existsSync(path)) {
    writeFileSync(path, walImage(o.image));
    fromImage = true;
  }
  if (o.migrated === false) fromImage = false;
  const sqlite = memory && o.image ? new Sqlite(o.image) : new Sqlite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  // hot pages stay in memory (32 MB page cache) and temp b-trees never touch disk
  sqlite.pragma(`cache_size = -${o.cacheKiB ?? 32000}`);
  sqlite.pragma("temp_store = MEMORY");
  const db = drizzle({ client: sqlite, schema }) as Db;
  if (!fromImage) {
    const folder = o.migrationsFolder ?? MIGRATIONS;
    (db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown, c: object): void } }).dialect.migrate(
      migrations(folder),
      (db as unknown as { session: unknown }).session,
      { migrationsFolder: folder },
    );
  }
  return db;
}

/**
 * An image as a file already in WAL mode (header bytes 18 and 19 = 2, the SQLite file format's
 * WAL marker), so opening it does not rewrite the header to switch journal modes.
 */
export function walImage(image: Buffer, inPlace = false): Buffer {
  if (image[18] === 2 && image[19] === 2) return image;
  const copy = inPlace ? image : Buffer.from(image);
  copy[18] = 2;
  copy[19] = 2;
  return copy;
}

/**
 * An image as a rollback-journal file (header bytes 18 and 19 = 1): the form `new Database(image)`
 * opens in memory (a WAL-marked image does not open there). A file database's `serialize()` is WAL-marked.
 */
export function journalImage(image: Buffer): Buffer {
  if (image[18] !== 2 && image[19] !== 2) return image;
  image[18] = 1;
  image[19] = 1;
  return image;
}

/**
 * A synchronous transaction (better-sqlite3 transactions cannot be async; keep I/O out); a
 * savepoint inside another one or inside a group-commit batch (src/db/commit.ts).
 */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return inSqliteTransaction(db.$client, fn);
}

/** Commits what a group-commit batch still holds, then closes the file (shutdown, tests). */
export function closeDb(db: Db): void {
  if (!db.$client.open) return;
  commitNow(db.$client);
  db.$client.close();
}

/**
 * The checkpointer thread, one per process for every database file (the root's and each open
 * sandbox's): its own connection to each, a PASSIVE checkpoint of each every `ms`.
 *
 * It also keeps sandbox files (`holdFile`, docs/performance.md "A storm of creates"): it writes a
 * new one from the image, opens it and makes its first write before the main connection opens it,
 * and it closes last, after the main connection has closed. SQLite's last connection to a file is
 * the one that checkpoints and deletes its WAL on close (two fsyncs and two unlinks), and the first
 * write of a new WAL syncs its header: with this connection held around the main one's life, the
 * event loop does neither. Its work is a queue, one task per turn: a hold before anything else (a
 * request waits for it), a release or a checkpoint pass last.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require("node:worker_threads");
const { statSync, writeFileSync, existsSync } = require("node:fs");
const Database = require(workerData.driver);
const dbs = new Map();
let image;
const urgent = [], normal = [], background = [];
let pumping = false;
const step = () => {
  const task = urgent.shift() ?? normal.shift() ?? background.shift();
  if (task) { try { task(); } catch {} }
  if (urgent.length + normal.length + background.length > 0) setImmediate(step);
  else pumping = false;
};
const pump = () => { if (!pumping) { pumping = true; setImmediate(step); } };
const walBytes = (path) => { try { return statSync(path + "-wal").size; } catch { return 0; } };
// a WAL's frame count only ever falls when it restarts: counted, so the main thread knows a pause paid
const pass = (d) => {
  const [r] = d.db.pragma("wal_checkpoint(PASSIVE)");
  if (r && r.log < d.log) d.restarts++;
  if (r) d.log = r.log;
  return r;
};
let passing = false;
setInterval(() => {
  if (passing) return;
  passing = true;
  for (const [path, d] of dbs) {
    background.push(() => {
      if (dbs.get(path) !== d) return;
      // a held file's short WAL has nothing worth copying back yet (its release copies it)
      if (d.held && walBytes(path) < workerData.startAt) return;
      const r = pass(d);
      if (r && r.log >= d.restartFrames) parentPort.postMessage({ type: "long", path, restarts: d.restarts });
    });
  }
  background.push(() => { passing = false; });
  pump();
}, workerData.ms);
const open = (path) => {
  const db = new Database(path);
  db.pragma("busy_timeout = 1000");
  return db;
};
const hold = (m) => {
  const had = dbs.get(m.path);
  if (had) {
    // closed and opened again before its release ran: the release is off
    had.held = true;
    had.gen = m.gen;
    return;
  }
  if (m.image && !existsSync(m.path)) writeFileSync(m.path, image);
  // no WAL yet (a new file, or one closed cleanly): no frame of an older WAL can be replayed over
  // newer pages, so its header need not be synced before frames follow (SQLite syncs it always)
  const fresh = walBytes(m.path) === 0;
  const db = open(m.path);
  db.pragma("journal_mode = WAL");
  if (fresh) db.pragma("synchronous = OFF");
  db.pragma("user_version = " + db.pragma("user_version", { simple: true }));
  db.pragma("synchronous = NORMAL");
  dbs.set(m.path, { db, held: true, gen: m.gen, restartFrames: m.restartFrames, log: 0, restarts: 0 });
};
const release = (m) => {
  const d = dbs.get(m.path);
  if (!d || d.gen !== m.gen) return;
  dbs.delete(m.path);
  try { d.db.pragma("wal_checkpoint(TRUNCATE)"); } catch {}
  d.db.close();
};
parentPort.on("message", (m) => {
  const done = (extra) => { if (m.ack !== undefined) parentPort.postMessage({ type: "ack", ack: m.ack, ...extra }); };
  const task = (f) => () => {
    try { f(); done({}); } catch (err) { done({ error: String(err && err.message || err) }); }
  };
  if (m.type === "image") {
    image = Buffer.from(m.image);
  } else if (m.type === "hold") {
    urgent.push(task(() => hold(m)));
  } else if (m.type === "release") {
    background.push(task(() => release(m)));
  } else if (m.type === "add") {
    normal.push(task(() => {
      const d = dbs.get(m.path);
      if (d) d.restartFrames = m.restartFrames;
      else dbs.set(m.path, { db: open(m.path), held: false, restartFrames: m.restartFrames, log: 0, restarts: 0 });
    }));
  } else if (m.type === "finish") {
    // the main thread holds its background writes: copy what is left, so its next commit restarts the WAL
    normal.push(() => {
      const d = dbs.get(m.path);
      try { if (d) pass(d); } catch {}
      parentPort.postMessage({ type: "finished", path: m.path });
    });
  } else if (m.type === "remove") {
    normal.push(task(() => {
      const d = dbs.get(m.path);
      if (!d || d.held) return; // a held file is closed by its release, after the main connection
      dbs.delete(m.path);
      // the file is about to be closed: copy the WAL back here, so the closing connection's own
      // checkpoint (page copies and an fsync on the event loop) finds nothing left to do
      if (m.truncate) { try { d.db.pragma("wal_checkpoint(TRUNCATE)"); } catch {} }
      d.db.close();
    }));
  }
  pump();
});
`;

interface Checkpointed {
  sqlite: Database.Database;
  restartFrames: number;
  stopping: boolean;
  /** A copy of the WAL's last frames waits for the open batch's COMMIT. */
  copyQueued?: boolean;
  /** Settles when the thread has copied the WAL's last frames (background writes wait: `writesPaused`). */
  paused?: Promise<void>;
  resume?: () => void;
  /** Pauses since the WAL last restarted (a write that came in during the copy defeats one). */
  misses: number;
  /** The thread's count of restarts it saw, when last told. */
  restarts: number;
}

/** Pauses in a row that did not restart the WAL before the main connection copies the last frames itself. */
const MAX_MISSES = 2;

const ENTRIES = new WeakMap<Database.Database, Checkpointed>();

/**
 * While the checkpointer thread copies the WAL's last frames so that it restarts (a few to tens of
 * ms of page copies and two fsyncs), a promise that settles when it is done: background writers (the
 * due-work runner, the webhook dispatcher's recording of results) wait on it instead of writing
 * frames the copy would miss. Undefined when no copy is under way. Requests are not held: a write
 * of theirs only means the WAL restarts a little later.
 */
export function writesPaused(sqlite: Database.Database): Promise<void> | undefined {
  return ENTRIES.get(sqlite)?.paused;
}

/** A background writer as the database sees it (the due-work runner: src/scheduler/due-work.ts). */
export interface BackgroundWrites {
  /** While the WAL restarts: a promise to wait for before writing on. */
  paused(): Promise<void> | undefined;
  /** The writer started (true) or ended (false) a run of writes. */
  running(on: boolean): void;
}

/** Runs of background writes under way per connection (the due-work runner's: `backgroundWrites`). */
const RUNNING = new WeakMap<Database.Database, number>();

/**
 * A background writer's handle (the due-work runner): `running` says when it writes, `paused` when
 * to wait. The WAL's last frames are left to the thread (a pause) only while such a run is under
 * way: with requests alone writing, a pause would never restart the WAL (their writes go on), and
 * the WAL grew three pauses long between restarts (one-connection card payments: p99 4 → 8–9 ms).
 */
export function backgroundWrites(sqlite: Database.Database): BackgroundWrites {
  return {
    paused: () => writesPaused(sqlite),
    running: (on) => {
      RUNNING.set(sqlite, Math.max(0, (RUNNING.get(sqlite) ?? 0) + (on ? 1 : -1)));
    },
  };
}

function resume(f: Checkpointed): void {
  const go = f.resume;
  f.paused = undefined;
  f.resume = undefined;
  go?.();
}

/** A WAL this long (bytes) starts the thread; until then SQLite has nothing worth copying back. */
const START_AT_WAL_BYTES = 1024 * 1024;

interface Checkpointer {
  /** Started when some file's WAL first passes START_AT_WAL_BYTES, and unref'd (it never keeps a process alive). */
  worker: Worker | undefined;
  files: Map<string, Checkpointed>;
  /** Answers awaited from the thread, by ack number (a message with `error` failed there). */
  acks: Map<number, (m: { error?: string } | undefined) => void>;
  /** The image the thread writes new sandbox files from (sent once). */
  image?: Buffer;
  /** Holds of one file so far: a release names the hold it ends. */
  gens: number;
  next: number;
  watch: NodeJS.Timeout | undefined;
}

/**
 * The one thread for every file. It starts only once a WAL grows (an idle or lightly
 * used server does not carry a second V8 isolate, ~12 MB, and a start does not boot it): until
 * then a once-a-second look at each WAL's size, with SQLite's own checkpoints off as before, so the
 * WAL can only grow for about a second past the mark before the thread copies it back.
 */
let thread: Checkpointer | undefined;

function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

function checkpointer(ms: number): Checkpointer {
  if (thread) return thread;
  const t: Checkpointer = { worker: undefined, files: new Map(), acks: new Map(), next: 0, watch: undefined, gens: 0 };
  t.watch = setInterval(() => {
    for (const file of t.files.keys()) {
      if (walBytes(file) < START_AT_WAL_BYTES) continue;
      startThread(t, ms);
      return;
    }
  }, 1000);
  t.watch.unref();
  thread = t;
  return t;
}

function startThread(t: Checkpointer, ms: number): void {
  clearInterval(t.watch);
  const worker = new Worker(CHECKPOINTER, { eval: true, workerData: { driver: SQLITE_DRIVER, ms, startAt: START_AT_WAL_BYTES } });
  worker.unref();
  t.worker = worker;
  for (const [path, f] of t.files) worker.postMessage({ type: "add", path, restartFrames: f.restartFrames });
  // Under steady writes the thread never copies the very last frames, and the WAL restarts from
  // the top only once wholly copied: past `restartFrames`, the main connection holds its background
  // writes while the thread copies those last frames, so that its next commit restarts it. Copied
  // on the main thread instead (page copies and two fsyncs on the event loop: 10–30 ms during a
  // long advance) only when pauses keep missing (requests writing meanwhile).
  worker.on("message", (m: { type: string; path?: string; ack?: number; restarts?: number; error?: string }) => {
    if (m.type === "ack") {
      t.acks.get(m.ack as number)?.(m);
      t.acks.delete(m.ack as number);
      if (t.acks.size === 0) worker.unref();
      return;
    }
    const f = t.files.get(m.path as string);
    if (m.type === "finished") {
      if (f) resume(f);
      return;
    }
    if (!f || f.stopping || !f.sqlite.open || f.paused) return;
    if (m.restarts !== f.restarts) {
      f.restarts = m.restarts ?? 0;
      f.misses = 0;
    }
    const copy = () => {
      f.copyQueued = false;
      if (f.stopping || !f.sqlite.open || f.sqlite.inTransaction || f.paused) return;
      if (f.misses >= MAX_MISSES || !(RUNNING.get(f.sqlite) ?? 0)) {
        f.misses = 0;
        f.sqlite.pragma("wal_checkpoint(PASSIVE)");
        return;
      }
      f.misses++;
      f.paused = new Promise<void>((resolve) => {
        f.resume = resolve;
      });
      worker.postMessage({ type: "finish", path: m.path });
    };
    if (!f.sqlite.inTransaction) copy();
    else if (!f.copyQueued) {
      // inside an open group-commit batch: right after its COMMIT, before the next batch begins.
      // Under a long run of batches (a clock advance) the main connection is almost always inside
      // one when the thread asks, and the WAL never restarted (680 MB after 100,000
      // charges, each page read searching its whole index); else the thread asks again while the
      // WAL stays long
      const done = committed(f.sqlite);
      if (done) {
        f.copyQueued = true;
        done.then(copy, () => {
          f.copyQueued = false;
        });
      }
    }
  });
  // if the thread dies, SQLite checkpoints inside commits again, as it does by default
  worker.on("error", () => undefined);
  worker.on("exit", () => {
    for (const f of t.files.values()) {
      resume(f);
      if (!f.stopping && f.sqlite.open) f.sqlite.pragma("wal_autocheckpoint = 1000");
    }
    for (const ack of t.acks.values()) ack(undefined);
    if (thread === t) thread = undefined;
  });
}

/** Whether the checkpointer thread runs, and for how many files (tests). */
export function checkpointerState(): { started: boolean; files: number } {
  return { started: thread?.worker !== undefined, files: thread?.files.size ?? 0 };
}

/**
 * For the long-running server (main.ts, and each open sandbox): SQLite would checkpoint the WAL
 * inside whichever commit crosses 1000 pages (page copies and an fsync on a request's path, every
 * ~50 card payments); instead one worker thread with its own connections checkpoints every file
 * every `ms` (PASSIVE: it never blocks a writer). Durability is unchanged (docs/performance.md: a commit is
 * durable once in the WAL). Returns the stopper (call it before closing the database; with
 * `beforeClose`, the thread first checkpoints the whole WAL, so the close itself is cheap).
 */
export function checkpointInBackground(
  db: Db,
  path: string,
  ms = 250,
  restartFrames = 4000,
): (opts?: { beforeClose?: boolean }) => Promise<void> {
  if (path === ":memory:") return async () => undefined;
  const sqlite = db.$client;
  sqlite.pragma("wal_autocheckpoint = 0");
  // after a burst, a restarted WAL file is cut back to 64 MB
  sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  const t = checkpointer(ms);
  const file = resolve(path);
  const entry: Checkpointed = { sqlite, restartFrames, stopping: false, misses: 0, restarts: 0 };
  t.files.set(file, entry);
  ENTRIES.set(sqlite, entry);
  t.worker?.postMessage({ type: "add", path: file, restartFrames });
  return async (opts: { beforeClose?: boolean } = {}) => {
    if (entry.stopping) return;
    entry.stopping = true;
    resume(entry);
    if (t.files.get(file) === entry) t.files.delete(file);
    const worker = t.worker;
    if (!worker) return; // no thread yet: it holds no connection to the file
    const ack = ++t.next;
    // the thread closes its connection before the caller closes (or deletes) the file
    await new Promise<void>((done) => {
      t.acks.set(ack, () => done());
      worker.ref(); // until the answer: a stopping process waits for it
      worker.postMessage({ type: "remove", path: file, ack, truncate: opts.beforeClose === true });
    });
  };
}

/** One request to the thread, answered when done: undefined when it failed there or the thread is gone. */
function ask(t: Checkpointer, worker: Worker, message: Record<string, unknown>): Promise<boolean> {
  const ack = ++t.next;
  return new Promise<boolean>((done) => {
    t.acks.set(ack, (m) => done(m !== undefined && m.error === undefined));
    worker.ref(); // until the answer
    worker.postMessage({ ...message, ack });
  });
}

/** A sandbox file the checkpointer thread holds open around the main connection's life (`holdFile`). */
export interface HeldFile {
  /**
   * After the main connection closed: the thread copies the WAL back and closes last (deleting the
   * WAL), in its own time; resolves once it has (or once a new hold of the file took it over).
   */
  release(): Promise<void>;
}

/**
 * Before the main connection opens `path` (a sandbox's file): the checkpointer thread (started if
 * it was not) writes it from `image` when it does not exist, opens it and makes its WAL's first
 * write, and keeps it open until `release()`. Then opening it here, writing and closing it do no
 * fsync, no file creation and no unlink on the event loop (docs/performance.md "A storm of
 * creates"). Undefined when the thread could not (the caller opens the file itself, as before).
 */
export async function holdFile(path: string, image: Buffer | undefined, restartFrames = 4000): Promise<HeldFile | undefined> {
  mkdirSync(dirname(path), { recursive: true });
  const t = checkpointer(250);
  if (!t.worker) startThread(t, 250);
  const worker = t.worker;
  if (!worker) return undefined;
  if (image && t.image !== image) {
    t.image = image;
    worker.postMessage({ type: "image", image: walImage(image) });
  }
  const file = resolve(path);
  const gen = ++t.gens;
  if (!(await ask(t, worker, { type: "hold", path: file, gen, image: image !== undefined, restartFrames }))) return undefined;
  return {
    release: async () => {
      if (t.worker === worker) await ask(t, worker, { type: "release", path: file, gen });
    },
  };
}

export { schema };
