/**
 * The image thread (started by image-thread.ts; docs/performance.md "Sandboxes at once"): the work on a
 * sandbox's image that grows with its size, off the server's event loop. A file database's image is
 * read through a connection of its own (`serialize()` in one read transaction: what the server's
 * connection had committed, consistent); a snapshot file is checked and brought up to date
 * (load.ts), or only verified (a file loaded before: kept-snapshots.ts): compared with that file's
 * bytes, else against its checksum; a
 * snapshot file is written from an image (its checksum). Each image goes back in
 * shared memory, and a file in memory handed over, so the event loop copies nothing.
 *
 * Built, this is dist/images-worker.js (scripts/build.mjs); from src/ (tsx, vitest) the TypeScript
 * file itself (src/platform/worker-thread.ts).
 */
import { parentPort } from "node:worker_threads";
import { journalImage } from "../db/client.js";
import { Sqlite } from "../db/sqlite-driver.js";
import { type ErrorCode, type FieldProblem, SandboxError } from "../platform/errors.js";
import { loadSnapshot } from "./load.js";
import { readSnapshot, type SnapshotMeta, writeSnapshot } from "./snapshot-file.js";

/** A job for the thread; `id` names its answer. */
export type ToImageThread = { id: number } & (
  | { type: "serialize"; path: string }
  | { type: "load"; bytes: Uint8Array }
  | { type: "verify"; bytes: Uint8Array; kept: Uint8Array }
  | { type: "file"; image: Uint8Array; nowMs: number; meta: SnapshotMeta; migrations: number }
);

/**
 * The thread's answer: an image in shared memory (with a snapshot's clock and description; none for
 * a file verified), or why not.
 */
export type FromImageThread = { id: number } & (
  | {
      ok: true;
      image?: SharedArrayBuffer | ArrayBuffer;
      /** A loaded snapshot's: where its image is in `image`, its file (load.ts), its clock and description. */
      at?: { offset: number; length: number };
      file?: SharedArrayBuffer;
      nowMs?: number;
      meta?: SnapshotMeta;
    }
  | { ok: false; code: ErrorCode | undefined; message: string; problems?: readonly FieldProblem[] }
);

const port = parentPort;
if (!port) throw new Error("images.worker.ts runs as a worker thread");

const shared = (length: number) => Buffer.from(new SharedArrayBuffer(length));

/** A file database's image now, rollback-journal marked (as a memory database opens it), in shared memory. */
function serialize(path: string): Buffer {
  const db = new Sqlite(path, { readonly: true, fileMustExist: true });
  try {
    const bytes = db.serialize();
    const image = shared(bytes.length);
    bytes.copy(image);
    return journalImage(image);
  } finally {
    db.close();
  }
}

/** A snapshot file of an image (its checksum over the whole image), in memory of its own to hand over. */
function file(m: Extract<ToImageThread, { type: "file" }>): ArrayBuffer {
  const image = Buffer.from(m.image.buffer, m.image.byteOffset, m.image.byteLength);
  const bytes = writeSnapshot({ migrations: m.migrations, nowMs: m.nowMs, meta: m.meta, image });
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
  return Uint8Array.prototype.slice.call(bytes).buffer as ArrayBuffer;
}

function answer(m: ToImageThread): FromImageThread {
  try {
    if (m.type === "serialize") return { id: m.id, ok: true, image: serialize(m.path).buffer as SharedArrayBuffer };
    if (m.type === "file") return { id: m.id, ok: true, image: file(m) };
    const bytes = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
    if (m.type === "verify") {
      // a file kept by its checksum (kept-snapshots.ts): the same bytes, or its checksum says
      const kept = Buffer.from(m.kept.buffer, m.kept.byteOffset, m.kept.byteLength);
      if (!bytes.equals(kept)) readSnapshot(bytes);
      return { id: m.id, ok: true };
    }
    const loaded = loadSnapshot(bytes, shared);
    const { image, nowMs, meta } = loaded;
    const at = { offset: image.byteOffset, length: image.byteLength };
    const kept = loaded.file.buffer as SharedArrayBuffer;
    return { id: m.id, ok: true, image: image.buffer as SharedArrayBuffer, at, file: kept, nowMs, meta };
  } catch (err) {
    if (err instanceof SandboxError) return { id: m.id, ok: false, code: err.code, message: err.message, problems: err.problems };
    return { id: m.id, ok: false, code: undefined, message: String((err as Error | undefined)?.message ?? err) };
  }
}

port.on("message", (m: ToImageThread) => {
  const a = answer(m);
  // a file goes back without a copy (its memory is its own); a shared image needs none
  port.postMessage(a, a.ok && a.image instanceof ArrayBuffer ? [a.image] : []);
});
