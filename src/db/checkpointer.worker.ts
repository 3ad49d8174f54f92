/**
 * The checkpointer thread (started by checkpointer.ts; docs/performance.md), one per process for
 * every database file (the root's and each open sandbox's): its own connection to each, a PASSIVE
 * checkpoint of each every `ms`.
 *
 * It also keeps sandbox files (`hold`, docs/performance.md "A storm of creates"): it writes a new
 * one from the image, opens it and makes its first write before the main connection opens it, and
 * it closes last, after the main connection has closed. SQLite's last connection to a file is the
 * one that checkpoints and deletes its WAL on close (two fsyncs and two unlinks), and the first
 * write of a new WAL syncs its header: with this connection held around the main one's life, the
 * event loop does neither. Its work is a queue, one task per turn: a hold before anything else (a
 * request waits for it), a release or a checkpoint pass last.
 *
 * Built, this is dist/checkpointer-worker.js (scripts/build.mjs); from src/ (tsx, vitest) the
 * TypeScript file itself (src/platform/worker-thread.ts). It imports only Node's own modules: the
 * SQLite package is the one the main thread resolved (`workerData.driver`, src/db/sqlite-driver.ts).
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";

/** What the main thread passes (checkpointer.ts startThread). */
export interface CheckpointerData {
  /** The resolved entry of the SQLite package (src/db/sqlite-driver.ts). */
  driver: string;
  /** Real ms between checkpoint passes. */
  ms: number;
  /** A held file's WAL shorter than this (bytes) is left alone by the passes. */
  startAt: number;
}

/** Messages from the main thread; `ack`, when set, is answered with `{ type: "ack", ack, error? }`. */
export type ToCheckpointer = { ack?: number } & (
  | { type: "image"; image: Uint8Array }
  | { type: "hold"; path: string; gen: number; image: boolean; restartFrames: number }
  | { type: "release"; path: string; gen: number; discard: boolean }
  | { type: "add"; path: string; restartFrames: number }
  | { type: "finish"; path: string }
  | { type: "remove"; path: string; truncate: boolean }
);

/** Messages to the main thread. */
export type FromCheckpointer =
  | { type: "ack"; ack: number; error?: string }
  | { type: "long"; path: string; restarts: number }
  | { type: "finished"; path: string };

interface File {
  db: BetterSqlite3.Database;
  held: boolean;
  gen?: number;
  restartFrames: number;
  /** The WAL's frame count at the last pass. */
  log: number;
  /** Restarts of the WAL seen so far. */
  restarts: number;
}

const port = parentPort;
if (!port) throw new Error("checkpointer.worker.ts runs as a worker thread");
const data = workerData as CheckpointerData;
const Database = createRequire(import.meta.url)(data.driver) as typeof BetterSqlite3;
const dbs = new Map<string, File>();
let image: Buffer | undefined;
const urgent: Array<() => void> = [];
const normal: Array<() => void> = [];
const background: Array<() => void> = [];
let pumping = false;

function send(m: FromCheckpointer): void {
  port?.postMessage(m);
}

/** Runs one queued task per turn, the most urgent first. */
function step(): void {
  const task = urgent.shift() ?? normal.shift() ?? background.shift();
  if (task) {
    try {
      task();
    } catch {
      // a task answers for itself (its ack carries the error); a pass that failed is tried again next time
    }
  }
  if (urgent.length + normal.length + background.length > 0) setImmediate(step);
  else pumping = false;
}

function pump(): void {
  if (!pumping) {
    pumping = true;
    setImmediate(step);
  }
}

function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

/** A PASSIVE checkpoint. A WAL's frame count only ever falls when it restarts: counted, so the main thread knows a pause paid. */
function pass(d: File): { log: number } | undefined {
  const [r] = d.db.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
  if (r && r.log < d.log) d.restarts++;
  if (r) d.log = r.log;
  return r;
}

let passing = false;
setInterval(() => {
  if (passing) return;
  passing = true;
  for (const [path, d] of dbs) {
    background.push(() => {
      if (dbs.get(path) !== d) return;
      // a held file's short WAL has nothing worth copying back yet (its release copies it)
      if (d.held && walBytes(path) < data.startAt) return;
      const r = pass(d);
      if (r && r.log >= d.restartFrames) send({ type: "long", path, restarts: d.restarts });
    });
  }
  background.push(() => {
    passing = false;
  });
  pump();
}, data.ms);

function open(path: string): BetterSqlite3.Database {
  const db = new Database(path);
  db.pragma("busy_timeout = 1000");
  return db;
}

function hold(m: Extract<ToCheckpointer, { type: "hold" }>): void {
  const had = dbs.get(m.path);
  if (had) {
    // closed and opened again before its release ran: the release is off
    had.held = true;
    had.gen = m.gen;
    return;
  }
  if (m.image && !existsSync(m.path)) writeFileSync(m.path, image as Buffer); // sent before any hold that needs it
  // no WAL yet (a new file, or one closed cleanly): no frame of an older WAL can be replayed over
  // newer pages, so its header need not be synced before frames follow (SQLite syncs it always)
  const fresh = walBytes(m.path) === 0;
  const db = open(m.path);
  db.pragma("journal_mode = WAL");
  if (fresh) db.pragma("synchronous = OFF");
  db.pragma(`user_version = ${db.pragma("user_version", { simple: true })}`);
  db.pragma("synchronous = NORMAL");
  dbs.set(m.path, { db, held: true, gen: m.gen, restartFrames: m.restartFrames, log: 0, restarts: 0 });
}

function release(m: Extract<ToCheckpointer, { type: "release" }>): void {
  const d = dbs.get(m.path);
  if (!d || d.gen !== m.gen) return;
  dbs.delete(m.path);
  if (m.discard) {
    // deleted next: the close's own checkpoint (this is the last connection) syncs nothing
    d.db.pragma("synchronous = OFF");
  } else {
    try {
      d.db.pragma("wal_checkpoint(TRUNCATE)");
    } catch {
      // the close below checkpoints what it can
    }
  }
  d.db.close();
}

function add(m: Extract<ToCheckpointer, { type: "add" }>): void {
  const d = dbs.get(m.path);
  if (d) d.restartFrames = m.restartFrames;
  else dbs.set(m.path, { db: open(m.path), held: false, restartFrames: m.restartFrames, log: 0, restarts: 0 });
}

function remove(m: Extract<ToCheckpointer, { type: "remove" }>): void {
  const d = dbs.get(m.path);
  if (!d || d.held) return; // a held file is closed by its release, after the main connection
  dbs.delete(m.path);
  // the file is about to be closed: copy the WAL back here, so the closing connection's own
  // checkpoint (page copies and an fsync on the event loop) finds nothing left to do
  if (m.truncate) {
    try {
      d.db.pragma("wal_checkpoint(TRUNCATE)");
    } catch {
      // the main connection's close checkpoints instead
    }
  }
  d.db.close();
}

port.on("message", (m: ToCheckpointer) => {
  const done = (error?: string) => {
    if (m.ack !== undefined) send(error === undefined ? { type: "ack", ack: m.ack } : { type: "ack", ack: m.ack, error });
  };
  const task = (f: () => void) => () => {
    try {
      f();
      done();
    } catch (err) {
      done(String((err as Error | undefined)?.message || err));
    }
  };
  if (m.type === "image") {
    image = Buffer.from(m.image);
  } else if (m.type === "hold") {
    urgent.push(task(() => hold(m)));
  } else if (m.type === "release") {
    background.push(task(() => release(m)));
  } else if (m.type === "add") {
    normal.push(task(() => add(m)));
  } else if (m.type === "finish") {
    // the main thread holds its background writes: copy what is left, so its next commit restarts the WAL
    normal.push(() => {
      const d = dbs.get(m.path);
      try {
        if (d) pass(d);
      } catch {
        // the main thread's next pause, or its own copy, tries again
      }
      send({ type: "finished", path: m.path });
    });
  } else if (m.type === "remove") {
    normal.push(task(() => remove(m)));
  }
  pump();
});
