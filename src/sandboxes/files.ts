/**
 * Where a sandbox lives (docs/parallel-suites.md): its base path, and on a file database its files in
 * `<db>-sandboxes/`: its database (with SQLite's -wal and -shm) and, for a copy, the image it was made
 * from (docs/snapshots.md), which its `reset {"snapshot": true}` reads.
 */
import { rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { walImage } from "../db/client.js";

export const basePathOf = (id: string) => `/sandboxes/${id}`;

/** A sandbox's database file in `folder`, or `:memory:`. */
export const databasePath = (folder: string | undefined, id: string) =>
  folder === undefined ? ":memory:" : join(folder, `${id}.db`);

/** Where a file-backed copy keeps the image it was made from, beside its database. */
export const originPath = (path: string) => `${path}-origin`;

/** A copy's database and its origin, written from its image off the event loop. */
export async function writeCopy(path: string, image: Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await Promise.all([writeFile(path, walImage(Buffer.from(image))), writeFile(originPath(path), image)]);
}

/** Everything a sandbox had on disk. */
export function removeFiles(path: string): void {
  if (path === ":memory:") return;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  rmSync(originPath(path), { force: true });
}
