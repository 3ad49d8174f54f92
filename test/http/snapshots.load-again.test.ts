/**
 * A snapshot file loaded again (docs/snapshots.md#loading-a-file-again): the server keeps what the
 * first load of a file learnt, by its checksum, and a load of the same bytes makes its sandbox from
 * it as a fork is made: nothing opened until its first request or its due work. What must hold
 * anyway: each is the file's state and apart from the others; a file-backed one survives a restart;
 * bytes that differ under a kept file's checksum are refused, and nothing is made; what is kept is
 * bounded.
 */
import { afterEach, describe, expect, it } from "vitest";
import { KeptSnapshots } from "../../src/snapshots/kept-snapshots.js";
import { checksumOf, readSnapshot, writeSnapshot } from "../../src/snapshots/snapshot-file.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { tempDbPath } from "../helpers/server.js";
import { alter, resign } from "../helpers/snapshot-damage.js";
import { closedPortUrl } from "../unit/webhooks.support.js";
import { threeDsBody } from "./payments.body.js";
import { pay, statusOf } from "./sandbox.calls.js";
import { SNAPSHOT, snapshotBytes } from "./snapshots.support.js";

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function load(server: TestServer, file: Buffer): Promise<{ id: string; base: string }> {
  const res = await server.http.post("/_sandbox/sandboxes?ttl=PT1H").set("content-type", SNAPSHOT).send(file);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, base: new URL(res.body.baseUrl).pathname };
}

/** The same state as another file: its description's `source` (a label) changed, so another checksum. */
const renamed = (file: Buffer, n: number) => {
  const snap = readSnapshot(file);
  return writeSnapshot({ ...snap, meta: { ...snap.meta, source: `${snap.meta.source}-${n}` } });
};

describe("a snapshot file loaded again", () => {
  it("opens nothing: each sandbox of it is the file's state, apart from the others, and a file one survives a restart", async () => {
    for (const storage of ["file", "memory"] as const) {
      const db = tempDbPath();
      s = makeServer({ config: { db, storage } });
      const world = await s.create({ name: "world" });
      const tx = await pay(s, world.base);
      const file = await snapshotBytes(s.http, world.base);
      await load(s, Buffer.from(file));
      const open = s.server.sandboxes.openCount;
      const a = await load(s, Buffer.from(file));
      const b = await load(s, Buffer.from(file));
      expect(s.server.sandboxes.openCount).toBe(open);
      expect(await statusOf(s, a.base, tx)).toEqual({ status: 200, tx: "SUCCEED" });
      expect(s.server.sandboxes.openCount).toBe(open + 1);
      const own = await pay(s, a.base);
      expect((await statusOf(s, b.base, own)).status).toBe(404);
      expect(await statusOf(s, b.base, tx)).toEqual({ status: 200, tx: "SUCCEED" });
      const c = await load(s, Buffer.from(file));
      await s.close();
      s = undefined;
      if (storage === "file") {
        // made and never opened before the restart: there after it, settled at its first open
        s = makeServer({ config: { db, storage } });
        expect(await statusOf(s, c.base, tx)).toEqual({ status: 200, tx: "SUCCEED" });
        expect((await statusOf(s, c.base, own)).status).toBe(404);
        expect((await statusOf(s, a.base, own)).status).toBe(200);
        await s.close();
        s = undefined;
      }
    }
  });

  it("with SANDBOX_SNAPSHOT_KEEP_MB=0 is kept nowhere: each load opens its sandbox at once", async () => {
    s = makeServer({ config: { db: tempDbPath(), snapshotKeepMb: 0 } });
    const world = await s.create({ name: "world" });
    const file = await snapshotBytes(s.http, world.base);
    const open = s.server.sandboxes.openCount;
    for (let i = 1; i <= 2; i++) {
      await load(s, Buffer.from(file));
      expect(s.server.sandboxes.openCount).toBe(open + i);
    }
  });

  it("whose work falls due is opened by it, with no request", async () => {
    for (const storage of ["file", "memory"] as const) {
      s = makeServer({ config: { db: tempDbPath(), storage }, idleMs: 86_400_000 });
      const world = await s.create({ startTime: "2027-01-01T00:00:00Z" });
      const dead = await closedPortUrl();
      // waits for the shopper: its 30-minute deadline is the file's work due
      const tx = await pay(s, world.base, threeDsBody(`${dead}/cb`));
      const file = await snapshotBytes(s.http, world.base);
      await load(s, Buffer.from(file));
      const open = s.server.sandboxes.openCount;
      const again = await load(s, Buffer.from(file));
      s.wall.advance(29 * 60_000);
      await s.server.tick();
      expect(s.server.sandboxes.openCount).toBe(open);
      s.wall.advance(2 * 60_000);
      await s.server.tick();
      expect(s.server.sandboxes.openCount).toBe(open + 1);
      await s.server.tick();
      const copied = await statusOf(s, again.base, tx);
      expect(copied.status).toBe(200);
      expect(copied.tx).not.toBe("CUSTOMER_VERIFICATION");
      await s.close();
      s = undefined;
    }
  });

  it("refuses bytes that differ under a kept file's checksum, and makes nothing", async () => {
    s = makeServer({ config: { db: tempDbPath() } });
    const world = await s.create({ name: "world" });
    await pay(s, world.base);
    const file = await snapshotBytes(s.http, world.base);
    await load(s, Buffer.from(file));
    const image = readSnapshot(file).image;
    const forged = resign(
      file,
      alter(Buffer.from(image), (db) => db.exec("DELETE FROM transactions")),
    );
    file.copy(forged, 32, 32, 64);
    expect(checksumOf(forged)).toBe(checksumOf(file));
    const listed = (await s.http.get("/_sandbox/sandboxes")).body;
    for (let i = 0; i < 2; i++) {
      const res = await s.http.post("/_sandbox/sandboxes").set("content-type", SNAPSHOT).send(forged);
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toBe("Invalid snapshot: damaged (its checksum does not match)");
    }
    expect((await s.http.get("/_sandbox/sandboxes")).body).toEqual(listed);
    // the file itself still loads
    await load(s, Buffer.from(file));
  });

  it("is kept within its bound, the least recently loaded let go first", async () => {
    s = makeServer({ config: { db: tempDbPath() } });
    const world = await s.create({ name: "world" });
    const file = await snapshotBytes(s.http, world.base);
    const [a, b, c] = [1, 2, 3].map((n) => renamed(file, n)) as [Buffer, Buffer, Buffer];
    const forgot: string[] = [];
    const kept = new KeptSnapshots(a.length + b.length + 100, (checksum) => forgot.push(checksum));
    const first = await kept.load(Buffer.from(a));
    await kept.load(Buffer.from(b));
    // `a` loaded again: the one kept, and now the most recently loaded
    expect(await kept.load(Buffer.from(a))).toBe(first);
    await kept.load(Buffer.from(c));
    expect([a, b, c].map((f) => kept.has(checksumOf(f)))).toEqual([true, false, true]);
    expect(forgot).toEqual([checksumOf(b)]);
    expect(kept.keptBytes).toBe(a.length + c.length);
    // a file larger than the bound is loaded, and not kept
    const small = new KeptSnapshots(a.length - 1);
    expect((await small.load(Buffer.from(a))).nowMs).toBe(first.nowMs);
    expect(small.has(checksumOf(a))).toBe(false);
  });
});
