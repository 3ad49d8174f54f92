/**
 * The servers the benches measure and compare with, each in a child process: the built sandbox
 * (`node dist/main.js start`) and the bare floors (docs/performance.md "The floors").
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { get as httpGet } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { closeDb, openDb } from "../../src/db/client.js";
import { paymentBody } from "./bodies.js";

/** The project root (benchmarks run the built server in dist/, as `npm run bench` builds it first). */
export const ROOT = new URL("../../", import.meta.url).pathname;
export const MAIN = join(ROOT, "dist/main.js");

export interface Running {
  url: string;
  port: number;
  /** The server's process id: pass it to load() to get the server's CPU time per request. */
  pid: number;
  /** SIGTERM, wait for the exit, remove the temp db folder. */
  stop(): Promise<void>;
  /** What it printed so far (the first 20,000 characters), and how it ended if it did: to say why it died. */
  output(): string;
}

/** A port that was free a moment ago (the OS picks it), for `--port`. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "paysandbox-bench-"));
}

/** One GET with a fresh connection (node:http: lighter than fetch, so polling steals little CPU). */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpGet(url, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}

/** Polls `url` every 5 ms until it answers 200; resolves with the ms since `t0` (performance.now()). */
export async function firstOk(
  url: string,
  t0: number,
  proc: ChildProcess,
  output: () => string,
  timeoutMs = 15_000,
): Promise<number> {
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`server exited (${proc.exitCode}):\n${output()}`);
    if ((await getStatus(url)) === 200) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`no 200 from ${url} within ${timeoutMs} ms:\n${output()}`);
    await delay(5);
  }
}

export function spawnNode(args: string[], env: Record<string, string>, cwd = ROOT) {
  const proc = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (d: Buffer) => {
    if (out.length < 20_000) out += d.toString();
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const kill = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGTERM");
      const forced = setTimeout(() => proc.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(forced);
    }
  };
  return { proc, output: () => out, kill };
}

/** Once `ready` resolves, a Running that stops the process and removes its folder; on failure, the same cleanup. */
async function whenReady(
  ready: Promise<unknown>,
  p: { url: string; port: number; proc: ChildProcess; kill: () => Promise<void>; dir: string; output: () => string },
): Promise<Running> {
  const stop = async () => {
    await p.kill();
    rmSync(p.dir, { recursive: true, force: true });
  };
  try {
    await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  const output = () => {
    const { exitCode, signalCode } = p.proc;
    const ended = exitCode !== null || signalCode !== null ? `\n[exited: code ${exitCode}, signal ${signalCode}]` : "";
    return `${p.output()}${ended}`;
  };
  return { url: p.url, port: p.port, pid: p.proc.pid ?? 0, stop, output };
}

/**
 * Starts the built server the README way (`node dist/main.js start`) on a free port with a fresh
 * SQLite file (or `dbPath`), LOG_LEVEL=warn (no per-request log line), and waits for /_sandbox/health.
 */
export async function startSandbox(
  opts: {
    env?: Record<string, string>;
    args?: string[];
    /** An existing (seeded) SQLite file instead of a fresh one. */
    dbPath?: string;
    /** Node flags before the script, e.g. `--cpu-prof` (NODE_OPTIONS refuses it). */
    nodeArgs?: string[];
    /** Another build's main.js (A/B runs: bench/ab/compare.ts). */
    main?: string;
  } = {},
): Promise<Running> {
  const main = opts.main ?? MAIN;
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` (npm run bench does)`);
  const dir = tempDir();
  const port = await freePort();
  const { proc, output, kill } = spawnNode(
    [
      ...(opts.nodeArgs ?? []),
      main,
      "start",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--db",
      opts.dbPath ?? join(dir, "sandbox.db"),
      ...(opts.args ?? []),
    ],
    { LOG_LEVEL: "warn", ...opts.env },
  );
  const url = `http://127.0.0.1:${port}`;
  return whenReady(firstOk(`${url}/_sandbox/health`, performance.now(), proc, output), { url, port, proc, kill, dir, output });
}

// The floors: the least any Node HTTP server on this machine can do, to compare the sandbox with.
const FLOOR_SOURCE = `
import { serve } from "@hono/node-server";
import { Hono } from "hono";
const kind = process.env.FLOOR_KIND;
const app = new Hono();
if (kind === "hello") {
  app.get("/health", (c) => c.json({ status: "ok" }));
} else if (kind === "stub") {
  // a stateless stub: the body read and a canned answer, nothing kept
  let n = 0;
  app.post("/", async (c) => {
    await c.req.text();
    return c.json({ transactionId: "tx_" + ++n, transactionStatus: "SUCCEED" }, 201);
  });
} else {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(process.env.FLOOR_DB);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  if (kind === "insert") {
    db.exec("create table if not exists t (id integer primary key, body text not null)");
    const insert = db.prepare("insert into t (body) values (?)");
    app.post("/", async (c) => {
      const id = insert.run(await c.req.text()).lastInsertRowid;
      return c.json({ id: Number(id) }, 201);
    });
  } else {
    // rows: what the sandbox keeps of a card payment without a callback, and nothing else, on
    // the sandbox's own migrated schema (FLOOR_DB is a copy of it): the idempotency look-up and
    // row, the transaction row, its event and its recorded call, each request in a savepoint of
    // one transaction per turn of the event loop, answered once it is committed (as src/db/commit.ts)
    const s = (sql) => db.prepare(sql);
    const find = s("SELECT body_hash, response FROM idempotency_keys WHERE merchant_key = ? AND operation = ? AND request_id = ?").raw();
    const idem = s("INSERT INTO idempotency_keys (merchant_key, operation, request_id, body_hash, http_status, response, created_at) VALUES (?, ?, ?, ?, 200, ?, ?)");
    const tx = s("INSERT INTO transactions (id, merchant_key, kind, request_id, status, card_bin, card_last4, card_length, card_exp_month, card_exp_year, card_holder, card_brand, card_profile, order_currency, order_amount, processed_currency, processed_amount, conversion_rate, three_ds, lang, billing_details, order_data, device, created_at, updated_at) VALUES (?, 'mk', 'card_payment', ?, 'SUCCEED', '411111', '1111', 16, ?, ?, ?, 'VISA', 'success', ?, 2050, ?, 2050, '1', 0, ?, ?, ?, ?, ?, ?)");
    const ev = s("INSERT INTO events (type, transaction_id, merchant, data) VALUES ('transaction', ?, 'mid', ?)");
    const rec = s("INSERT INTO recorded_calls (at, kind, method, path, merchant_key, body, status, response, webhooks_up_to) VALUES (?, 'request', 'POST', '/api/v1/payments/card', 'mk', ?, 200, ?, 0)");
    const [begin, commit, savepoint, release] = ["BEGIN IMMEDIATE", "COMMIT", 'SAVEPOINT "tx"', 'RELEASE "tx"'].map(s);
    let done;
    let n = 0;
    app.post("/", async (c) => {
      const text = await c.req.text();
      const b = JSON.parse(text);
      if (!db.inTransaction) {
        begin.run();
        done = new Promise((resolve) => setImmediate(() => (commit.run(), resolve())));
      }
      const now = Date.now();
      const id = "tx_" + now + "_" + ++n;
      const answer = JSON.stringify({ transactionId: id, transactionStatus: "SUCCEED" });
      savepoint.run();
      if (find.get("mk", "card_payment", b.requestId)) throw new Error("duplicate");
      tx.run(id, b.requestId, b.card.expMonth, b.card.expYear, b.card.cardHolderName, b.currency, b.currency, b.lang, JSON.stringify(b.billingDetails), JSON.stringify(b.order), JSON.stringify(b.device), now, now);
      idem.run("mk", "card_payment", b.requestId, "0".repeat(64), answer, now);
      ev.run(id, answer);
      rec.run(now, text, answer);
      release.run();
      await done;
      return c.body(answer, 200, { "content-type": "application/json" });
    });
  }
}
serve({ fetch: app.fetch, port: Number(process.env.FLOOR_PORT), hostname: "127.0.0.1" });
`;

/** An empty database file with every migration of this tree (the rows floor's schema); removed with the process's temp dirs. */
export function migratedDbFile(): string {
  const path = join(tempDir(), "schema.db");
  closeDb(openDb(path));
  return path;
}

/**
 * A bare @hono/node-server app in a child process: `hello` answers GET /health `{"status":"ok"}`,
 * `insert` does one better-sqlite3 INSERT (WAL, synchronous=NORMAL, as the sandbox) per POST /,
 * `stub` answers a POST with a canned JSON and keeps nothing (where a stateless stub stands), `rows`
 * writes what the sandbox keeps of a card payment without a callback (the idempotency look-up and
 * row, the transaction, its event, its recorded call) in the sandbox's own schema and group commit,
 * and nothing else: the ceiling of a payment that keeps those rows (docs/performance.md "The cost account").
 * `schemaDb`: for `rows`, a migrated empty database file to copy (migratedDbFile()).
 */
export async function startBareFloor(kind: "hello" | "insert" | "stub" | "rows", schemaDb?: string): Promise<Running> {
  const dir = tempDir();
  const port = await freePort();
  const dbFile = join(dir, "floor.db");
  if (kind === "rows") {
    if (!schemaDb) throw new Error("the rows floor needs a migrated database (migratedDbFile())");
    copyFileSync(schemaDb, dbFile);
  }
  const { proc, output, kill } = spawnNode(["--input-type=module", "-e", FLOOR_SOURCE], {
    FLOOR_KIND: kind,
    FLOOR_PORT: String(port),
    FLOOR_DB: dbFile,
  });
  const url = `http://127.0.0.1:${port}`;
  const probe =
    kind === "hello"
      ? firstOk(`${url}/health`, performance.now(), proc, output)
      : (async () => {
          for (let i = 0; i < 5000; i++) {
            if (proc.exitCode !== null) throw new Error(`floor exited:\n${output()}`);
            try {
              const res = await fetch(url, { method: "POST", body: paymentBody(`floor-probe-${i}`) });
              await res.arrayBuffer();
              if (res.ok) return;
            } catch {
              // not listening yet
            }
            await delay(2);
          }
          throw new Error(`${kind} floor did not start:\n${output()}`);
        })();
  return whenReady(probe, { url, port, proc, kill, dir, output });
}

/**
 * Runs the calling script (`scriptUrl`: its import.meta.url) again once per size, one after the
 * other, each in a process of its own with BENCH_SIZE set (so each size's peak RSS and JIT are its
 * own); true when every one exited 0.
 */
export async function eachSizeInChild(scriptUrl: string, sizes: readonly number[]): Promise<boolean> {
  let ok = true;
  for (const size of sizes) {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ["--import", "tsx", new URL(scriptUrl).pathname], {
        cwd: ROOT,
        env: { ...process.env, BENCH_SIZE: String(size) },
        stdio: "inherit",
      });
      child.on("close", resolve);
    });
    if (code !== 0) ok = false;
  }
  return ok;
}
