/**
 * The report's worker thread (docs/performance.md): reads the rows with its own read-only connection inside
 * ONE read transaction (WAL: one consistent snapshot, however long the stream, while the server
 * goes on writing) and encodes them (reports.formats.ts), so neither the reading nor the formatting
 * of a million rows runs on the server's event loop. Bytes go back to the request's thread in
 * chunks of up to 256 KB, at most WINDOW of them unacknowledged: the thread acknowledges each chunk
 * as the response takes it, so a slow client slows the reading down (backpressure) instead of
 * filling memory. Started by reports.thread.ts, one per report, ended when the report is.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { Sqlite } from "../../db/sqlite-driver.js";
import { type ReportFormat, reportEncoder } from "./reports.formats.js";
import { type ReportQuery, reportPages } from "./reports.repo.js";

export interface ReportJob {
  /** The database file (never `:memory:`: another connection cannot open that). */
  path: string;
  query: ReportQuery;
  format: ReportFormat;
}

export type WorkerMessage = { type: "chunk"; bytes: Uint8Array } | { type: "end" } | { type: "error"; message: string };

/** Chunks sent and not yet acknowledged at most: ~1 MB in flight between the threads. */
export const WINDOW = 4;

const port = parentPort;
if (!port) throw new Error("reports.worker.ts runs as a worker thread");
const job = workerData as ReportJob;

/**
 * The thread yields the CPU to the server's event loop (nice 10): on a machine with as many busy
 * threads as cores, a report then takes the time the requests leave it instead of the other way
 * round. Linux: setpriority() on a thread id moves that thread alone (/proc/thread-self names it);
 * elsewhere, or where it is refused, the thread keeps the process's priority.
 */
function yieldCpu(): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed: same priority as the server
  }
}
yieldCpu();

let unacked = 0;
let wake: (() => void) | undefined;
port.on("message", (m: { type: string }) => {
  if (m.type !== "ack") return;
  unacked--;
  wake?.();
});

/** Posts the chunks, each moved (not copied) when it owns its memory; waits while WINDOW are unacknowledged. */
async function send(chunks: Buffer[]): Promise<void> {
  for (const b of chunks) {
    // a small Buffer may be a slice of Node's shared pool: moving that would take the pool away
    const own = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b);
    port?.postMessage({ type: "chunk", bytes: own } satisfies WorkerMessage, [own.buffer as ArrayBuffer]);
    unacked++;
    while (unacked >= WINDOW) await new Promise<void>((resolve) => (wake = resolve));
  }
}

async function run(): Promise<void> {
  const db = new Sqlite(job.path, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    // a page cache of 1 MB, not better-sqlite3's 16: a report reads each page once (from the OS's
    // cache), and the b-trees' inner pages fit; a 1,000,000-row CSV: the same CPU, RSS ~20 MB lower
    db.pragma("cache_size = -1024");
    db.exec("BEGIN"); // the snapshot is taken at the first read and kept to the COMMIT
    const encoder = reportEncoder(job.format);
    for (const page of reportPages(db, job.query)) await send(encoder.push(page));
    await send(encoder.end());
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  port?.postMessage({ type: "end" } satisfies WorkerMessage);
}

run()
  .catch((err: unknown) => {
    port.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) } satisfies WorkerMessage);
  })
  .finally(() => port.close()); // the thread ends
