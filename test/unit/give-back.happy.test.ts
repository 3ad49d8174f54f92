/**
 * Memory-backed sandboxes give their memory back when deleted (src/db/give-back.ts, storage.ts):
 * closing a memory database frees its image to glibc, which keeps freed blocks of a few MB in the
 * process; once 16 MB of them have been closed for good, the registry's tick hands their pages back
 * to the system (malloc_trim). What RSS does is measured in bench/sandbox-storm.ts, not here.
 */
import { describe, expect, it } from "vitest";
import { journalImage } from "../../src/db/client.js";
import { giveBackFreedMemory } from "../../src/db/give-back.js";
import { Sqlite } from "../../src/db/sqlite-driver.js";
import { createLogger } from "../../src/logger.js";
import { SandboxStorage } from "../../src/sandboxes/storage.js";

/** An image of a database of about `mb` MB. */
function imageOf(mb: number): Buffer {
  const db = new Sqlite(":memory:");
  db.exec("CREATE TABLE t (x BLOB)");
  const insert = db.prepare("INSERT INTO t VALUES (randomblob(1000))");
  for (let i = 0; i < mb * 1000; i++) insert.run();
  const image = journalImage(Buffer.from(db.serialize()));
  db.close();
  return image;
}

function storage(image = imageOf(1)): SandboxStorage {
  return new SandboxStorage({
    folder: undefined,
    groupCommit: false,
    freshImage: () => image,
    logger: createLogger("silent"),
  });
}

describe.runIf(process.platform === "linux")("memory given back to the system", () => {
  it("reaches glibc's malloc_trim and releases freed pages", () => {
    const image = imageOf(4);
    // big blocks among small live ones: freed, they are holes inside the heap, which glibc keeps
    const big = Array.from({ length: 8 }, () => new Sqlite(image));
    const small = Array.from({ length: 8 }, () => new Sqlite(":memory:"));
    for (const db of big) db.close();
    expect(giveBackFreedMemory()).toBe("released");
    for (const db of small) db.close();
  });

  it("gives back once 16 MB of memory databases were deleted, at the next call", async () => {
    const s = storage(imageOf(4));
    const pin: InstanceType<typeof Sqlite>[] = [];
    const ids = Array.from({ length: 5 }, (_, i) => `sbx_${i}`);
    const opened = [];
    for (const id of ids) {
      await s.make(id, "memory");
      opened.push((await s.open(id, "memory", true)).opened);
      pin.push(new Sqlite(":memory:"));
    }
    // one deleted: 4 MB, not yet
    await s.close(ids[0] as string, opened[0] as never, true);
    await s.remove(ids[0] as string, "memory");
    expect(s.giveBack()).toBeUndefined();
    // closed idle (kept), then deleted: counted too
    await s.close(ids[1] as string, opened[1] as never, false);
    await s.remove(ids[1] as string, "memory");
    for (let i = 2; i < ids.length; i++) {
      await s.close(ids[i] as string, opened[i] as never, true);
      await s.remove(ids[i] as string, "memory");
    }
    expect(s.giveBack()).toBe("released");
    // counted from zero again
    expect(s.giveBack()).toBeUndefined();
    for (const db of pin) db.close();
  });
});
