/**
 * Where a sandbox lives (docs/parallel-suites.md): its base path, and on a file database its files in
 * `<db>-sandboxes/`: its database (with SQLite's -wal and -shm) and, for a copy, the image it was made
 * from (docs/snapshots.md), which its `reset {"snapshot": true}` reads.
 */
import { rmSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { walImage } from "../db/client.js";

export const basePathOf = (id: string) => `/sandboxes/${id}`;

/** A sandbox's database file in `folder`, or `:memory:`. */
export const databasePath = (folder: string | undefined, id: string) =>
  folder === undefined ? ":memory:" : join(folder, `${id}.db`);

/** Where a file-backed copy keeps the image it was made from, beside its database. */
export const originPath = (path: string) => `${path}-origin`;

/**
 * A copy's database and its origin, written from its image (which this takes over) off the event
 * loop: the database once, the origin as a copy of that file (in the kernel: writing the image a
 * second time cost twice as much).
 */
export async function writeCopy(path: string, image: Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, walImage(image, true));
  await copyFile(path, originPath(path));
}

/** Everything a sandbox had on disk. */
export function removeFiles(path: string): void {
  if (path === ":memory:") return;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  rmSync(originPath(path), { force: true });
}
