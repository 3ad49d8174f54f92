/**
 * Where a sandbox keeps its database (docs/parallel-suites.md#storage): `file` (the default on a
 * database file) or `memory` (the only one on `:memory:`), asked per create, fork or load, and said
 * in every summary. A memory-backed sandbox leaves no file and no row behind, so a restart does not
 * know it; a file-backed one is there after it. Copies are isolated whatever their storage, and a
 * copy taken after its source changed holds the change (one image per state, never a stale one).
 */
import { existsSync, readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "./payments.body.js";
import { SNAPSHOT, snapshotBytes } from "./snapshots.support.js";

let s: TestServer | undefined;
let t: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await t?.close();
  s = undefined;
  t = undefined;
});

const files = (db: string) =>
  existsSync(`${db}-sandboxes`) ? readdirSync(`${db}-sandboxes`).filter((f) => f.endsWith(".db")) : [];

async function pay(server: TestServer, base: string, requestId: string): Promise<string> {
  const token = await server.token(base);
  const res = await server.http
    .post(`${base}/api/v1/payments/card`)
    .set("authorization", token)
    .send(cardPaymentBody({ requestId }));
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

async function status(server: TestServer, base: string, tx: string): Promise<number> {
  const token = await server.token(base);
  return (await server.http.get(`${base}/api/v1/payments/card/status/${tx}`).set("authorization", token)).status;
}

describe("storage: file or memory", () => {
  it("on a database file: file by default, memory when asked; the list says which; a restart knows only the file-backed one", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db } });
    const onFile = await s.create({ name: "on-file" });
    const inMemory = await s.create({ name: "in-memory", storage: "memory" });
    expect(onFile).toMatchObject({ storage: "file" });
    expect(inMemory).toMatchObject({ storage: "memory" });
    const txFile = await pay(s, onFile.base, "f-1");
    const txMemory = await pay(s, inMemory.base, "m-1");
    const list = await s.http.get("/_sandbox/sandboxes");
    expect(list.body.map((x: { name: string; storage: string }) => [x.name, x.storage])).toEqual([
      ["on-file", "file"],
      ["in-memory", "memory"],
    ]);
    expect((await s.http.get(`/_sandbox/sandboxes/${inMemory.id}`)).body.storage).toBe("memory");
    // the memory-backed one has no file
    expect(files(db)).toEqual([`${onFile.id}.db`]);
    expect(await status(s, inMemory.base, txMemory)).toBe(200);
    await s.close();
    s = undefined;

    t = makeServer({ config: { db } });
    expect((await t.http.get("/_sandbox/sandboxes")).body.map((x: { id: string }) => x.id)).toEqual([onFile.id]);
    expect(await status(t, onFile.base, txFile)).toBe(200);
    expect((await t.http.get(`${inMemory.base}/_sandbox/clock`)).status).toBe(404);
  });

  it("SANDBOX_STORAGE=memory makes memory the default on a database file; a create can still ask for a file", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db, storage: "memory" } });
    expect(await s.create()).toMatchObject({ storage: "memory" });
    const onFile = await s.create({ storage: "file" });
    expect(onFile).toMatchObject({ storage: "file" });
    expect(files(db)).toEqual([`${onFile.id}.db`]);
  });

  it("forks across storages are copies: each holds the source's payment, and what one does the others never see", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db } });
    const world = await s.create({ name: "world" });
    const tx = await pay(s, world.base, "w-1");
    const memoryCopy = await s.create({ from: world.id, storage: "memory" });
    const fileCopy = await s.create({ from: memoryCopy.id });
    expect([memoryCopy.storage, fileCopy.storage]).toEqual(["memory", "file"]);
    for (const c of [memoryCopy, fileCopy]) expect(await status(s, c.base, tx)).toBe(200);
    const own = await pay(s, memoryCopy.base, "m-own");
    expect(await status(s, memoryCopy.base, own)).toBe(200);
    for (const other of [world, fileCopy]) expect(await status(s, other.base, own)).toBe(404);
  });

  it("a copy made after its source changed holds the change; two copies of an unchanged source hold the same", async () => {
    for (const storage of ["file", "memory"] as const) {
      const db = tempDbPath();
      s = makeServer({ config: { db, storage }, groupCommit: true });
      const world = await s.create({ name: "world" });
      const first = await pay(s, world.base, "w-1");
      const a = await s.create({ from: world.id });
      const b = await s.create({ from: world.id });
      for (const c of [a, b]) expect(await status(s, c.base, first)).toBe(200);
      const second = await pay(s, world.base, "w-2");
      const c = await s.create({ from: world.id });
      expect(await status(s, c.base, second)).toBe(200);
      expect(await status(s, a.base, second)).toBe(404);
      // and the root, forked twice around a change of its own
      const rootTx = await pay(s, "", "r-1");
      const r = await s.create({ from: "root" });
      expect(await status(s, r.base, rootTx)).toBe(200);
      await s.close();
      s = undefined;
    }
  });

  it("a memory-backed sandbox closed when idle opens again with its data", async () => {
    s = makeServer({ config: { db: tempDbPath() }, idleMs: 1_000, maxOpen: 1 });
    const a = await s.create({ storage: "memory", startTime: "2027-01-01T00:00:00Z" });
    const tx = await pay(s, a.base, "m-1");
    await s.create({ storage: "memory" });
    s.wall.advance(5_000);
    await s.server.tick();
    expect(s.server.sandboxes.openCount).toBe(0);
    expect(await status(s, a.base, tx)).toBe(200);
    expect((await s.http.get(`${a.base}/_sandbox/clock`)).body.now).toBe("2027-01-01T00:00:05.000Z");
  });

  it("a snapshot loads into the storage its query names, and each goes back to it on reset", async () => {
    const db = tempDbPath();
    s = makeServer({ config: { db } });
    const world = await s.create();
    const tx = await pay(s, world.base, "w-1");
    const file = await snapshotBytes(s.http, world.base);
    const loaded: Record<string, { id: string; base: string }> = {};
    for (const query of ["?storage=memory", ""]) {
      const res = await s.http.post(`/_sandbox/sandboxes${query}`).set("content-type", SNAPSHOT).send(file);
      expect(res.status).toBe(201);
      const base = new URL(res.body.baseUrl).pathname;
      loaded[res.body.storage] = { id: res.body.id, base };
      expect(await status(s, base, tx)).toBe(200);
      const own = await pay(s, base, "own-1");
      expect((await s.http.post(`${base}/_sandbox/reset`).send({ snapshot: true })).status).toBe(200);
      expect(await status(s, base, own)).toBe(404);
      expect(await status(s, base, tx)).toBe(200);
    }
    expect(Object.keys(loaded).sort()).toEqual(["file", "memory"]);
    expect(files(db).sort()).toEqual([`${loaded.file?.id}.db`, `${world.id}.db`].sort());
  });

  it("file on a :memory: server, or a storage it does not know, is a 400 naming the field, and nothing is made", async () => {
    s = makeServer();
    const onMemory = "file needs the server on a database file (SANDBOX_DB); this one runs on :memory:";
    for (const [body, reason] of [
      [{ storage: "file" }, onMemory],
      [{ storage: "file", from: "root" }, onMemory],
      [{ storage: "disk" }, undefined],
    ] as const) {
      const res = await s.http.post("/_sandbox/sandboxes").send(body);
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toBe("Invalid field: storage");
      if (reason) expect(res.body.errors).toEqual([{ field: "storage", message: reason }]);
    }
    const load = await s.http
      .post("/_sandbox/sandboxes?storage=disk")
      .set("content-type", SNAPSHOT)
      .send(await snapshotBytes(s.http, ""));
    expect(load.status).toBe(400);
    expect(load.body.errorMessage).toContain("storage");
    expect((await s.http.get("/_sandbox/sandboxes")).body).toEqual([]);
  });
});
