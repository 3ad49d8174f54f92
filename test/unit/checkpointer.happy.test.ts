/**
 * The checkpointer thread (src/db/checkpointer.ts) starts only once a WAL grows past 1 MB (an
 * idle server carries no second isolate), then copies the WAL back into the database file; past
 * `restartFrames` it copies the last frames while background writes wait, so the WAL restarts.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backgroundWrites, checkpointerState, checkpointInBackground, writesPaused } from "../../src/db/checkpointer.js";
import { closeDb, openDb } from "../../src/db/client.js";
import { tempDbPath } from "../helpers/server.js";

afterEach(() => {
  vi.useRealTimers();
});

/** Waits (real time, the thread's own interval) until `done()` holds, at most 10 s. */
async function until(done: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setImmediate(r));
  }
}

describe("the checkpointer thread", () => {
  it("waits for a WAL past 1 MB, then copies it back into the database file", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const path = tempDbPath();
    const db = openDb(path);
    const stop = checkpointInBackground(db, path, 20);
    const sqlite = db.$client;
    sqlite.exec("CREATE TABLE blob_rows (b BLOB)");
    const insert = sqlite.prepare("INSERT INTO blob_rows VALUES (randomblob(4000))");
    for (let i = 0; i < 20; i++) insert.run(); // ~80 KB
    vi.advanceTimersByTime(3000);
    expect(checkpointerState()).toEqual({ started: false, files: 1 });

    for (let i = 0; i < 400; i++) insert.run(); // ~1.6 MB more
    const mainBefore = statSync(path).size;
    vi.advanceTimersByTime(1000);
    expect(checkpointerState()).toEqual({ started: true, files: 1 });
    vi.useRealTimers();
    await until(() => statSync(path).size > mainBefore + 1024 * 1024);

    await stop({ beforeClose: true });
    expect(checkpointerState().files).toBe(0);
    closeDb(db);
  });

  it.each([
    ["a background writer runs: its writes wait while the thread copies the WAL's last frames", true],
    ["requests alone write: the main connection copies the last frames itself, without a pause", false],
  ])("%s, and the WAL restarts", async (_name, background) => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const path = tempDbPath();
    const db = openDb(path);
    const stop = checkpointInBackground(db, path, 20, 100);
    const sqlite = db.$client;
    sqlite.exec("CREATE TABLE blob_rows (b BLOB)");
    const insert = sqlite.prepare("INSERT INTO blob_rows VALUES (randomblob(4000))");
    for (let i = 0; i < 420; i++) insert.run(); // past 1 MB: the thread starts (if no earlier test started it)
    vi.advanceTimersByTime(1000);
    vi.useRealTimers();
    expect(checkpointerState().started).toBe(true);
    const salts = () => {
      // the WAL header's salts (bytes 16–23) change each time the WAL restarts from the top
      const fd = openSync(`${path}-wal`, "r");
      const b = Buffer.alloc(8);
      readSync(fd, b, 0, 8, 16);
      closeSync(fd);
      return b.toString("hex");
    };
    const first = salts();
    let pauses = 0;
    let rows = 420;
    const writer = backgroundWrites(sqlite);
    if (background) writer.running(true);
    // a background writer: a few rows a turn, waiting whenever writes are paused
    const end = Date.now() + 10_000;
    while ((background && pauses === 0) || salts() === first) {
      if (Date.now() > end) throw new Error("timed out");
      const paused = writesPaused(sqlite);
      if (paused) {
        pauses++;
        await paused;
        expect(writesPaused(sqlite)).toBeUndefined();
      }
      for (let i = 0; i < 5; i++) insert.run();
      rows += 5;
      await new Promise((r) => setImmediate(r));
    }
    if (background) writer.running(false);
    if (background) expect(pauses).toBeGreaterThan(0);
    else expect(pauses).toBe(0);
    expect(sqlite.prepare("SELECT count(*) AS n FROM blob_rows").get()).toEqual({ n: rows });
    await stop({ beforeClose: true });
    expect(writesPaused(sqlite)).toBeUndefined();
    closeDb(db);
  });
});
