/**
 * The checkpointer thread (src/db/client.ts) starts only once a WAL grows past 1 MB (issue 19: an
 * idle server carries no second isolate), then copies the WAL back into the database file.
 */
import { statSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkpointerState, checkpointInBackground, closeDb, openDb } from "../../src/db/client.js";
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
});
