/**
 * Where a sandbox lives (docs/parallel-suites.md): its base path, and for a file-backed one its files in
 * `<db>-sandboxes/`: its database (with SQLite's -wal and -shm) and, for a copy, the image it was made
 * from (docs/snapshots.md), which its `reset {"snapshot": true}` reads. Every write and removal here
 * runs on libuv's threads (node:fs/promises), never on the event loop.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, link, mkdir, open, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

export const basePathOf = (id: string) => `/sandboxes/${id}`;

/** A file-backed sandbox's database file in `folder`. */
export const databasePath = (folder: string, id: string) => join(folder, `${id}.db`);

/** Where a file-backed copy keeps the image it was made from, beside its database. */
export const originPath = (path: string) => `${path}-origin`;

/**
 * A file-backed copy made and not opened yet keeps here what its first open settles (storage.ts), so
 * that a first open after a restart settles it too; removed once it is settled.
 */
export const copyMarkPath = (path: string) => `${path}-copy`;

/** The folder of the images copies are made from (removed at start: nothing outlives the process there). */
const imagesFolder = (folder: string) => join(folder, "images");

/** The SQLite file format's header: bytes 18 and 19 say the journal mode (1 rollback, 2 WAL). */
const HEADER = 100;

/**
 * An image written as a database file in WAL mode (so opening it does not rewrite its header), for
 * copies to be made from: the image itself is shared and never written, so its header goes apart.
 */
export async function writeImageFile(folder: string, name: string, image: Buffer): Promise<string> {
  const dir = imagesFolder(folder);
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.db`);
  const head = Buffer.from(image.subarray(0, HEADER));
  head[18] = 2;
  head[19] = 2;
  const file = await open(path, "w");
  try {
    await file.writev([head, image.subarray(HEADER)]);
  } finally {
    await file.close();
  }
  return path;
}

/**
 * A copy's database and its origin, from the image file: the database a kernel copy of it (a
 * reflink where the file system has them), the origin a second link to it (a copy where links are
 * not to be had): one image written, whatever the number of copies.
 */
export async function copyImageFile(imageFile: string, path: string): Promise<void> {
  await copyFile(imageFile, path, constants.COPYFILE_FICLONE);
  try {
    await link(imageFile, originPath(path));
  } catch {
    await copyFile(imageFile, originPath(path), constants.COPYFILE_FICLONE);
  }
}

/** Everything a file-backed sandbox had on disk. */
export async function removeFiles(path: string): Promise<void> {
  await Promise.all(["", "-wal", "-shm", "-origin", "-copy"].map((suffix) => rm(`${path}${suffix}`, { force: true })));
}

/** An image file of the folder, once no copy is made from it any more (the copies' links keep theirs). */
export async function removeImageFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/** This process's image files are named `<RUN>-<n>.db`. */
const RUN = randomBytes(6).toString("hex");
let serial = 0;

/** A name for an image file of this process. */
export const imageName = () => `${RUN}-${++serial}`;

/** At start: the image files an earlier process left (copies made from them keep their own links). */
export async function clearImageFiles(folder: string): Promise<void> {
  const dir = imagesFolder(folder);
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => !n.startsWith(RUN)).map((n) => rm(join(dir, n), { force: true })));
}
