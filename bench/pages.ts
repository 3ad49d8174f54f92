/**
 * The pages a card payment writes (docs/performance.md "The pages a payment writes"): one request at
 * a time against the built server on a real file, each payment its own commit, and after each one
 * (with a webhook: after its delivery is settled) the WAL frames written since the one before, read
 * from the WAL file itself (each frame is one page) and named by the b-tree that owns the page
 * (SQLite's `dbstat`; page 1 is the file's header and the schema). Without a callback and with one
 * to a local receiver, BENCH_PAYMENTS each (default 300) after a warm-up of as many, each with a
 * random UUID as its requestId (where a key lands in its index decides how often a page splits).
 *
 * Run with `npx tsx bench/pages.ts` after `node scripts/build.mjs` (BENCH_MAIN=/other/dist/main.js
 * counts another build's). Prints the frames and commits a payment, and the pages a payment by
 * table and index; then {"bench":"pages","callback":…,"framesPerPayment":…,"commitsPerPayment":…}.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type BetterSqlite3 from "better-sqlite3";
import { emit, merchantToken, paymentBody, type Row, startCountingReceiver, startSandbox, tempDir } from "./lib.js";

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 300);
const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;

interface Frame {
  page: number;
  /** The database's size in pages after the commit on a commit's last frame, else 0. */
  commitSize: number;
}

/** The valid frames of the WAL at `path` (those of its current salt), in order. */
function walFrames(path: string): { salt: string; frames: Frame[] } {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { salt: "", frames: [] };
  }
  if (size < 32) return { salt: "", frames: [] };
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(32);
    readSync(fd, head, 0, 32, 0);
    const pageSize = head.readUInt32BE(8);
    const salt = head.subarray(16, 24).toString("hex");
    const frames: Frame[] = [];
    const fh = Buffer.alloc(24);
    for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
      readSync(fd, fh, 0, 24, at);
      if (fh.subarray(8, 16).toString("hex") !== salt) break;
      frames.push({ page: fh.readUInt32BE(0), commitSize: fh.readUInt32BE(4) });
    }
    return { salt, frames };
  } finally {
    closeSync(fd);
  }
}

const receiver = await startCountingReceiver();
const out: Row[] = [];
try {
  for (const callback of [false, true]) {
    const dbPath = join(tempDir(), "pages.db");
    const server = await startSandbox({
      dbPath,
      ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
    });
    const reader = new Sqlite(dbPath, { readonly: true });
    try {
      const token = await merchantToken(server.url);
      const settled = reader.prepare(
        "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' OR in_flight_since IS NOT NULL",
      );
      const owners = reader.prepare("SELECT name, pageno FROM dbstat");
      const pay = async (requestId: string) => {
        const res = await fetch(`${server.url}/api/v1/payments/card`, {
          method: "POST",
          headers: { authorization: token, "content-type": "application/json" },
          body: paymentBody(requestId, callback ? receiver.url : undefined),
        });
        if (res.status !== 200) throw new Error(`payment answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        // with a webhook, the payment's pages include its delivery's: wait until it is settled
        for (let i = 0; callback && (settled.get() as { n: number }).n > 0; i++) {
          if (i > 2000) throw new Error("the delivery was not settled in 10 s");
          await delay(5);
        }
      };
      for (let i = 0; i < PAYMENTS; i++) await pay(randomUUID());
      const byOwner = new Map<string, number>();
      let frames = 0;
      let commits = 0;
      let counted = 0;
      for (let i = 0; i < PAYMENTS; i++) {
        const before = walFrames(`${dbPath}-wal`);
        await pay(randomUUID());
        const after = walFrames(`${dbPath}-wal`);
        // a checkpoint restarted the WAL meanwhile: the payment's frames are partly gone, skip it
        if (after.salt !== before.salt || after.frames.length < before.frames.length) continue;
        const mine = after.frames.slice(before.frames.length);
        const names = new Map<number, string>();
        for (const r of owners.all() as Array<{ name: string; pageno: number }>) names.set(r.pageno, r.name);
        for (const f of mine) {
          const name = f.page === 1 ? "page 1 (header, schema)" : (names.get(f.page) ?? "free page");
          byOwner.set(name, (byOwner.get(name) ?? 0) + 1);
          if (f.commitSize) commits++;
        }
        frames += mine.length;
        counted++;
      }
      const per = (n: number) => Math.round((n / counted) * 100) / 100;
      console.log(
        `${callback ? "with a webhook" : "no callback"}: ${per(frames)} WAL frames and ${per(commits)} commits a payment (${counted} payments counted)`,
      );
      for (const [name, n] of [...byOwner].sort((a, b) => b[1] - a[1]))
        console.log(`  ${per(n).toFixed(2).padStart(6)}  ${name}`);
      out.push({
        callback,
        payments: counted,
        framesPerPayment: per(frames),
        commitsPerPayment: per(commits),
        byOwner: JSON.stringify(Object.fromEntries([...byOwner].map(([k, v]) => [k, per(v)]))),
      });
    } finally {
      reader.close();
      await server.stop();
      rmSync(dirname(dbPath), { recursive: true, force: true });
    }
  }
} finally {
  receiver.stop();
}
for (const o of out) emit("pages", o);
