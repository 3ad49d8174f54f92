/**
 * Where a card payment's server CPU goes (docs/performance.md): runs the built server under `--cpu-prof`, loads
 * it with card payments (with a callback unless NOCB=1) and prints self time by package and by
 * function, then who calls the functions named in WHO (default: the SQLite and socket hot spots).
 *
 *   node scripts/build.mjs && npx tsx bench/ab/profile.ts   [SECONDS=8 CONNECTIONS=32 NOCB=1 WHO=run,get]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load, merchantToken, paymentBody, startCountingReceiver, startSandbox } from "../lib.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const dir = mkdtempSync(join(tmpdir(), "paysandbox-prof-"));
const receiver = await startCountingReceiver();
const sandbox = await startSandbox({ nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
let payments = 0;
try {
  const token = await merchantToken(sandbox.url);
  const r = await load({
    url: sandbox.url,
    method: "POST",
    path: "/api/v1/payments/card",
    headers: { authorization: token },
    bodyFor: (i) => paymentBody(`p-${i}`, process.env.NOCB ? undefined : receiver.url),
    connections: Number(process.env.CONNECTIONS ?? 32),
    duration: Number(process.env.SECONDS ?? 8),
    pid: sandbox.pid,
  });
  payments = r.total;
  console.log(JSON.stringify(r), `webhooks received: ${await receiver.received()}`);
} finally {
  await sandbox.stop();
  receiver.stop();
}

// the main thread's (CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0), not a worker's
const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
const file = files.find((f) => f.split(".")[4] === "0") ?? files[0];
if (!file) throw new Error("no .cpuprofile written");
const prof = JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile;
rmSync(dir, { recursive: true, force: true });

const selfUs = new Map<number, number>();
prof.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const parent = new Map<number, ProfileNode>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n);
const where = (n: ProfileNode) => `${n.callFrame.functionName || "(anonymous)"}:${n.callFrame.lineNumber}`;
const pkg = (url: string) =>
  url.includes("node_modules/")
    ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, "$1")
    : url.includes("/dist/")
      ? "dist"
      : url;

/** The bundle's `// src/x.ts` and `// node_modules/x/...` markers: a dist line's original file. */
const markers = new Map<string, Array<[number, string]>>();
function bundledFile(url: string, line: number): string {
  if (!url.includes("/dist/")) return pkg(url);
  let m = markers.get(url);
  if (!m) {
    m = [];
    const lines = readFileSync(url.startsWith("file:") ? new URL(url).pathname : url, "utf8").split("\n");
    lines.forEach((text, i) => {
      const f = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text)?.[1];
      if (f) m?.push([i, f.replace(/^node_modules\/((@[^/]+\/)?[^/]+).*/, "$1")]);
    });
    markers.set(url, m);
  }
  let found = "dist";
  for (const [at, f] of m) {
    if (at > line) break;
    found = f;
  }
  return found;
}
const fileOf = (n: ProfileNode) =>
  n.callFrame.url ? bundledFile(n.callFrame.url, n.callFrame.lineNumber) : n.callFrame.functionName;

function table(title: string, key: (n: ProfileNode) => string | undefined, rows: number) {
  const sums = new Map<string, number>();
  for (const n of prof.nodes) {
    const k = key(n);
    if (k !== undefined) sums.set(k, (sums.get(k) ?? 0) + (selfUs.get(n.id) ?? 0));
  }
  console.log(`\n== ${title}`);
  for (const [k, us] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    // beside the share, µs a payment (the whole run's samples, the warm-up's included, over its payments)
    console.log(
      `${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / Math.max(1, payments)).toFixed(1).padStart(7)} µs  ${k}`,
    );
  }
}

/**
 * The part of a payment's path a profile node belongs to (docs/performance.md "The cost account"):
 * SQLite's native time shows as its JavaScript caller's, so the storage part holds the statements'
 * own time; the idempotency hash is told from the look-up in the same file by its functions.
 */
const HASH_FUNCTIONS = new Set(["hashedForm", "sortKeys", "quotedKey", "hash", "sha256Hex"]);
function partOf(n: ProfileNode): string {
  const file = fileOf(n);
  const fn = n.callFrame.functionName;
  if (HASH_FUNCTIONS.has(fn) || file === "node:internal/crypto/hash") return "idempotency hash";
  if (file.startsWith("src/db/") || ["drizzle-orm", "better-sqlite3"].includes(file)) return "storage (SQLite's time included)";
  if (file === "src/modules/idempotency/idempotency.service.ts") return "storage (SQLite's time included)";
  if (file.startsWith("src/recording/")) return "recording";
  if (file.startsWith("src/events/")) return "event log";
  if (file.startsWith("src/webhooks/") || fn === "postMessage") return "webhooks (main thread)";
  if (file.startsWith("src/http/") || file === "hono" || file.startsWith("@hono/")) return "hono, the adapter and our middleware";
  if (
    /^node:(_http|net|internal\/(streams|stream_base|http|url))|^node:(events|buffer)$/.test(file) ||
    ["writev", "utf8Slice"].includes(file)
  )
    return "node:http and the socket";
  if (file.startsWith("src/")) return "the services and their helpers";
  if (file.startsWith("RegExp: ")) return "regular expressions";
  if (["(idle)"].includes(file)) return "(idle)";
  if (["(garbage collector)", "(program)", "runMicrotasks"].includes(file) || file.startsWith("node:internal/process"))
    return "V8 and the event loop (GC, microtasks, ticks)";
  return "other";
}

table("self time by part of the path", partOf, 20);
table("of which other", (n) => (partOf(n) === "other" ? fileOf(n) : undefined), 8);
table("self time by package", (n) => pkg(n.callFrame.url) || n.callFrame.functionName, 20);
table("self time by source file (the bundle's parts by their markers)", fileOf, 30);
table("self time by function", (n) => `${where(n)} ${fileOf(n)}`, 40);
for (const fn of (process.env.WHO ?? "sqliteTransaction,run,get,writev").split(",")) {
  table(
    `callers of ${fn}`,
    (n) => {
      if (n.callFrame.functionName !== fn) return undefined;
      const chain: string[] = [];
      for (let p = parent.get(n.id); p && chain.length < 5; p = parent.get(p.id)) chain.push(where(p));
      return chain.join(" < ");
    },
    6,
  );
}
