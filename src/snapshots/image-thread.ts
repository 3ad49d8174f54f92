/**
 * The image thread's main-thread side (images.worker.ts; docs/performance.md "Sandboxes at once"): one
 * worker thread per process, started on its first job and never keeping the process alive, for the
 * work on an image that grows with a sandbox's size: a file database's image, a snapshot file
 * checked and brought up to date, and one written. The event loop only posts the job and takes the
 * answer, an image in shared memory (or a file's bytes handed over).
 */
import type { Worker } from "node:worker_threads";
import { SandboxError } from "../platform/errors.js";
import { startWorker } from "../platform/worker-thread.js";
import type { FromImageThread, ToImageThread } from "./images.worker.js";
import type { LoadedSnapshot } from "./load.js";
import type { SnapshotMeta } from "./snapshot-file.js";

/** A small young generation: the thread's own objects are few; the images live in shared memory. */
const LIMITS = { maxYoungGenerationSizeMb: 8 };

interface Thread {
  worker: Worker;
  waiting: Map<number, (m: FromImageThread) => void>;
  next: number;
}

let thread: Thread | undefined;

function start(): Thread {
  const worker = startWorker(
    import.meta.url,
    { built: "./images-worker.js", source: "./images.worker.ts" },
    { workerData: {}, resourceLimits: LIMITS },
  );
  const t: Thread = { worker, waiting: new Map(), next: 0 };
  worker.unref();
  worker.on("message", (m: FromImageThread) => {
    const done = t.waiting.get(m.id);
    t.waiting.delete(m.id);
    if (t.waiting.size === 0) worker.unref();
    done?.(m);
  });
  const gone = (why: string) => {
    if (thread === t) thread = undefined;
    for (const done of t.waiting.values()) done({ id: -1, ok: false, code: undefined, message: why });
    t.waiting.clear();
  };
  worker.on("error", (err) => gone(`the image thread failed: ${err.message}`));
  worker.on("exit", () => gone("the image thread stopped"));
  return t;
}

type Job = ToImageThread extends infer J ? (J extends { id: number } ? Omit<J, "id"> : never) : never;

/** One job, answered with its image; its 400 (a snapshot refused) thrown as it was thrown there. */
async function ask(job: Job, transfer: ArrayBuffer[] = []): Promise<Extract<FromImageThread, { ok: true }>> {
  thread ??= start();
  const t = thread;
  const id = ++t.next;
  const answer = await new Promise<FromImageThread>((resolve) => {
    t.waiting.set(id, resolve);
    t.worker.ref(); // until the answer
    try {
      t.worker.postMessage({ ...job, id } as ToImageThread, transfer);
    } catch {
      // memory Node will not hand over (a pooled buffer's): copied instead
      t.worker.postMessage({ ...job, id } as ToImageThread);
    }
  });
  if (answer.ok) return answer;
  if (answer.code !== undefined) throw new SandboxError(answer.code, answer.message, answer.problems);
  throw new Error(answer.message);
}

/**
 * The image of the database file at `path` as its committed state is now (read by a connection of
 * the thread's own), rollback-journal marked, in shared memory. The server's connection must have
 * committed what it acknowledged (commitNow) before asking.
 */
export async function fileImage(path: string): Promise<Buffer> {
  return Buffer.from(imageIn(await ask({ type: "serialize", path })));
}

function imageIn(answer: Extract<FromImageThread, { ok: true }>): SharedArrayBuffer | ArrayBuffer {
  if (answer.image === undefined) throw new Error("the image thread answered without an image");
  return answer.image;
}

/** The snapshot file of an image (snapshot-file.ts): its checksum computed by the thread. */
export async function snapshotFileOf(s: {
  image: Buffer;
  nowMs: number;
  meta: SnapshotMeta;
  migrations: number;
}): Promise<Buffer> {
  const image = new Uint8Array(s.image.buffer, s.image.byteOffset, s.image.byteLength);
  const answer = await ask({ type: "file", image, nowMs: s.nowMs, meta: s.meta, migrations: s.migrations });
  return Buffer.from(imageIn(answer));
}

/**
 * A snapshot file as a state this build opens (load.ts), or its 400. `bytes` is handed over to the
 * thread (transferred when it owns its memory, else copied): do not use it afterwards.
 */
export async function checkedSnapshot(bytes: Buffer): Promise<LoadedSnapshot> {
  const answer = await ask({ type: "load", bytes: handedOver(bytes) }, transferOf(bytes));
  const { nowMs, meta, at, file } = answer;
  if (nowMs === undefined || meta === undefined || at === undefined || file === undefined)
    throw new Error("the image thread answered a load without its state");
  return { image: Buffer.from(imageIn(answer), at.offset, at.length), nowMs, meta, file: Buffer.from(file) };
}

/**
 * Whether `bytes` are the snapshot file `kept` (a file loaded before, in shared memory): the same
 * bytes, or bytes verified against the checksum in their header (SHA-256 over the whole file), else
 * the 400 saying why not (snapshot-file.ts). The caller found `kept` by that checksum. `bytes` is
 * handed over as by checkedSnapshot.
 */
export async function verifiedSnapshot(bytes: Buffer, kept: Buffer): Promise<void> {
  const view = new Uint8Array(kept.buffer, kept.byteOffset, kept.byteLength);
  await ask({ type: "verify", bytes: handedOver(bytes), kept: view }, transferOf(bytes));
}

const handedOver = (bytes: Buffer) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Memory a buffer owns whole is transferred (no copy); a view into other memory is copied. */
const transferOf = (bytes: Buffer): ArrayBuffer[] =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    ? [bytes.buffer]
    : [];
