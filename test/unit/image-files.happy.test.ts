/**
 * File-backed copies are made from an image file per source (src/sandboxes/storage.ts, files.ts): the
 * file is let go when its source changes, closes or goes, or, for a loaded snapshot's, once its one
 * copy is made. A copy still reading it then must finish first: the file is removed after every copy
 * begun from it, never under one (a copy whose file vanished failed with ENOENT, a 500 on the fork).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { databasePath, originPath } from "../../src/sandboxes/files.js";
import { type Copy, SandboxStorage } from "../../src/sandboxes/storage.js";

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

function storage(): { st: SandboxStorage; folder: string } {
  const folder = mkdtempSync(join(tmpdir(), "paysandbox-image-files-"));
  folders.push(folder);
  const st = new SandboxStorage({
    folder,
    groupCommit: false,
    freshImage: () => {
      throw new Error("only copies here");
    },
    logger: createLogger("silent"),
  });
  return { st, folder };
}

/** An image's bytes: what matters here is that each copy gets its own source's, whole. */
const image = (fill: number) => Buffer.alloc(256 * 1024, fill);
const copyOf = (img: Buffer, source?: string): Copy => ({ image: img, source, nowMs: 0, made: source ? "fork" : "load" });

/** The copy's origin file, past the header the image file rewrites (bytes 18 and 19). */
const originBody = (folder: string, id: string) => readFileSync(originPath(databasePath(folder, id))).subarray(100);

/** Image files in the folder, once as few as `expected` (removals run on libuv's threads) or after 2 s of looking. */
async function imageFilesLeft(folder: string, expected = 0): Promise<string[]> {
  const dir = join(folder, "images");
  const list = () => (existsSync(dir) ? readdirSync(dir) : []);
  for (let i = 0; i < 200 && list().length > expected; i++) await new Promise((r) => setTimeout(r, 10));
  return list();
}

describe("image files of copies", () => {
  it("a source that changes while copies of its last images are being made: every copy made, each of its own image", async () => {
    // the source changes between each copy and the next: each copy's image file is let go at once,
    // its removal on libuv's threads beside the copy (which lost the race about one round in four)
    for (let round = 0; round < 6; round++) {
      const { st, folder } = storage();
      const images = Array.from({ length: 32 }, (_, i) => image(i + 1));
      const made = await Promise.allSettled(images.map((img, i) => st.make(`c${i}`, "file", copyOf(img, "root"))));
      expect(made.filter((m) => m.status === "rejected")).toEqual([]);
      for (const [i, img] of images.entries()) expect(originBody(folder, `c${i}`).equals(img.subarray(100))).toBe(true);
      // every image's file went once its copy was made but the last, the source's current one
      expect(await imageFilesLeft(folder, 1)).toHaveLength(1);
    }
  });

  it("a source let go while copies of it are being made: every copy made, then its file removed", async () => {
    const { st, folder } = storage();
    const img = image(3);
    const copies = ["a", "b", "c"].map((id) => st.make(id, "file", copyOf(img, "src")));
    st.forgetSource("src");
    await Promise.all(copies);
    for (const id of ["a", "b", "c"]) expect(originBody(folder, id).equals(img.subarray(100))).toBe(true);
    expect(await imageFilesLeft(folder)).toHaveLength(0);
  });

  it("an image file that could not be written is written again by the next copy of the same image", async () => {
    const { st, folder } = storage();
    const img = image(5);
    // the images' folder cannot be made while a file stands in its place
    writeFileSync(join(folder, "images"), "");
    await expect(st.make("a", "file", copyOf(img, "root"))).rejects.toThrow();
    expect(existsSync(databasePath(folder, "a"))).toBe(false);
    rmSync(join(folder, "images"));
    await st.make("b", "file", copyOf(img, "root"));
    expect(originBody(folder, "b").equals(img.subarray(100))).toBe(true);
  });

  it("a loaded snapshot's image file goes once its one copy is made", async () => {
    const { st, folder } = storage();
    await st.make("a", "file", copyOf(image(4)));
    expect(await imageFilesLeft(folder)).toHaveLength(0);
  });
});
