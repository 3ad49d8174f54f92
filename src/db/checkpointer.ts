/**
 * The checkpointer thread's main-thread side (docs/performance.md): one worker thread
 * (checkpointer.worker.ts) per process, for every database file (the root's and each open
 * sandbox's), with its own connection to each and a PASSIVE checkpoint of each every `ms`; and the
 * sandbox files it holds open around the main connection's life (`holdFile`, docs/performance.md
 * "A storm of creates"). Background writers wait on `writesPaused` while it restarts a WAL.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { startWorker } from "../platform/worker-thread.js";
import type { CheckpointerData, FromCheckpointer, ToCheckpointer } from "./checkpointer.worker.js";
import { type Db, walImage } from "./client.js";
import { committed } from "./commit.js";
import { SQLITE_DRIVER } from "./sqlite-driver.js";

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
  const workerData: CheckpointerData = { driver: SQLITE_DRIVER, ms, startAt: START_AT_WAL_BYTES };
  const worker = startWorker(
    import.meta.url,
    { built: "./checkpointer-worker.js", source: "./checkpointer.worker.ts" },
    { workerData: { ...workerData } },
  );
  worker.unref();
  t.worker = worker;
  for (const [path, f] of t.files) tell(worker, { type: "add", path, restartFrames: f.restartFrames });
  // Under steady writes the thread never copies the very last frames, and the WAL restarts from
  // the top only once wholly copied: past `restartFrames`, the main connection holds its background
  // writes while the thread copies those last frames, so that its next commit restarts it. Copied
  // on the main thread instead (page copies and two fsyncs on the event loop: 10–30 ms during a
  // long advance) only when pauses keep missing (requests writing meanwhile).
  worker.on("message", (m: FromCheckpointer) => {
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
      tell(worker, { type: "finish", path: m.path });
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
  if (t.worker) tell(t.worker, { type: "add", path: file, restartFrames });
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
      tell(worker, { type: "remove", path: file, ack, truncate: opts.beforeClose === true });
    });
  };
}

/** A message to the thread (checkpointer.worker.ts). */
function tell(worker: Worker, m: ToCheckpointer): void {
  worker.postMessage(m);
}

/** One request to the thread, answered when done: undefined when it failed there or the thread is gone. */
function ask(t: Checkpointer, worker: Worker, message: ToCheckpointer): Promise<boolean> {
  const ack = ++t.next;
  return new Promise<boolean>((done) => {
    t.acks.set(ack, (m) => done(m !== undefined && m.error === undefined));
    worker.ref(); // until the answer
    tell(worker, { ...message, ack });
  });
}

/** A sandbox file the checkpointer thread holds open around the main connection's life (`holdFile`). */
export interface HeldFile {
  /**
   * After the main connection closed: the thread copies the WAL back and closes last (deleting the
   * WAL), in its own time; resolves once it has (or once a new hold of the file took it over). With
   * `discard` the file is deleted next: nothing is copied back durably (no checkpoint of its own, no
   * fsync in the close's).
   */
  release(opts?: { discard?: boolean }): Promise<void>;
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
    tell(worker, { type: "image", image: walImage(image) });
  }
  const file = resolve(path);
  const gen = ++t.gens;
  if (!(await ask(t, worker, { type: "hold", path: file, gen, image: image !== undefined, restartFrames }))) return undefined;
  return {
    release: async (opts = {}) => {
      if (t.worker === worker) await ask(t, worker, { type: "release", path: file, gen, discard: opts.discard === true });
    },
  };
}
