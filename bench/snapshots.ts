/**
 * Snapshots and forks (docs/snapshots.md), against the built server on a file database. The world: a
 * sandbox holding 10,000 card payments, 500 card tokens and 200 monthly subscriptions (each with its
 * first charge), built in this process through the services' HTTP surface (`createApp` on `:memory:`,
 * no network: a few seconds), saved with `GET /_sandbox/snapshot` and loaded into the server as the
 * source. Then, on that server:
 *
 * 1. size: the snapshot file's bytes;
 * 2. fork: p50/p99 ms of `POST /_sandbox/sandboxes {"from": <source>}` (60 one after another on one
 *    keep-alive connection, after 5 discarded; each deleted after, untimed). Targets p50 ≤ 20 ms,
 *    p99 ≤ 60 ms;
 * 3. load: p50 ms of `POST /_sandbox/sandboxes` with the file as the body (20, after 2 discarded).
 *    Target ≤ 50 ms;
 * 4. 100 forks at once from 16 clients, while `GET /_sandbox/health` is probed one at a time (5 ms
 *    between answers): health p99 (target ≤ 50 ms) and the forks' p50/p99;
 * 5. RSS per idle fork: the server's RSS before the 100 forks and once they are idle and closed
 *    (the server closes a sandbox 30 s after its last request, beyond the 64 it keeps open at once):
 *    the difference / 100. Target ≤ 1 MB.
 *
 * 6. a suite of 32 test files that each fork a prepared world vs the same 32 files that each build it
 *    with API calls (the fixture pattern of docs/snapshots.md), each way on a fresh server. The
 *    suite's world: a sandbox at 2026-01-15T12:00Z with 20 card payments, 5 saved cards, 3 monthly
 *    subscriptions on them, the clock advanced P2M (two charges in each) and a refund of 5.00 pending
 *    (31 API calls and an advance); a test file: a sandbox with that world, its test (a full refund
 *    of the second payment and a status read), its sandbox deleted. `build`: each file builds the
 *    world in a new sandbox; `snapshot`: the world built once and saved (counted in the total), each
 *    file starts from the file; `from`: the world built once in a sandbox, each file forks it.
 *    32 files, BENCH_SUITE_PARALLEL (default 4) at once, after 2 warm-up files: the suite's total
 *    wall time, the server's CPU over it (/proc), each file's p50/p99, and the speed-ups over `build`.
 *
 * Run with `npm run bench -- snapshots`, or `npx tsx bench/snapshots.ts` after `node scripts/build.mjs`;
 * BENCH_WORLD_FILE=/tmp/world.paysandbox keeps the world's snapshot there for the next run.
 * JSON lines {"bench":"snapshot-size"|"snapshot-fork"|"snapshot-load"|"snapshot-fork-storm"|"snapshot-idle-rss",...}
 * and {"bench":"snapshot-suite-build"|"snapshot-suite-snapshot"|"snapshot-suite-from",...}.
 * Exit code 1 only for wrong answers; a missed target is printed as MISSED.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { createApp } from "../src/app.js";
import { defaultConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { ManualClock } from "../src/platform/clock.js";
import {
  type Answer,
  BENCH_BILLING,
  timedCall as call,
  emit,
  healthProbe,
  merchantToken,
  paymentBody,
  percentile,
  processCpuMs,
  type Running,
  startSandbox,
} from "./lib.js";

const PAYMENTS = 10_000;
const TOKENS = 500;
const SUBSCRIPTIONS = 200;
const FORKS = 60;
const LOADS = 20;
const STORM = 100;
const CLIENTS = 16;
const SNAPSHOT = "application/vnd.paysandbox.snapshot";

let wrong = 0;
const check = (what: string, a: Answer, status = 201) => {
  if (a.status !== status) {
    wrong++;
    console.error(`${what}: ${a.status} ${a.body.slice(0, 200)}`);
  }
  return a;
};
const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
const round = (n: number) => Number(n.toFixed(2));

/** The world, in this process: its snapshot file. */
async function buildWorld(): Promise<Buffer> {
  const t0 = performance.now();
  const ctx = createContext({
    config: defaultConfig({ publicUrl: "http://bench.test" }),
    clock: new ManualClock(Date.UTC(2026, 0, 15, 12)),
  });
  const app = createApp(ctx);
  const send = async (method: string, path: string, body?: string, auth?: string) => {
    const res = await app.fetch(
      new Request(`http://bench.test${path}`, {
        method,
        headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
        ...(body === undefined ? {} : { body }),
      }),
    );
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const auth = (
    (await (
      await send(
        "POST",
        "/api/v1/auth",
        JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
      )
    ).json()) as { token: string }
  ).token;
  for (let i = 0; i < PAYMENTS; i++) await send("POST", "/api/v1/payments/card", paymentBody(`world-pay-${i}`), auth);
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    const body = JSON.stringify({
      requestId: `world-tok-${i}`,
      merchantId: 1001,
      card: { number: "4111111111111111", expMonth: "12", expYear: "2099", cvv: "737" },
      billingDetails: BENCH_BILLING,
    });
    tokens.push(((await (await send("POST", "/api/v1/payments/card/tokenize", body, auth)).json()) as { token: string }).token);
  }
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const body = JSON.stringify({
      requestId: `world-sub-${i}`,
      mid: "sandbox-mid-001",
      cardToken: tokens[i],
      plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-01-15" },
      order: { orderId: `world-sub-${i}` },
      device: { ip: "203.0.113.7", userAgent: "bench" },
      // nothing listens there: each subscription's first callback is pending in the world (a copy skips it)
      callbackUrl: "http://127.0.0.1:9/hooks",
      successRedirectUrl: "https://shop.example/ok",
      failureRedirectUrl: "https://shop.example/ko",
    });
    await send("POST", "/api/v1/payments/card/recurring", body, auth);
  }
  const snap = await app.fetch(new Request("http://bench.test/_sandbox/snapshot"));
  const file = Buffer.from(await snap.arrayBuffer());
  await ctx.work.idle();
  await ctx.webhooks.close();
  ctx.db.$client.close();
  console.log(
    `world built in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${PAYMENTS} payments, ${TOKENS} tokens, ${SUBSCRIPTIONS} subscriptions`,
  );
  return file;
}

/** POST a snapshot file, timed to the last byte of the answer. */
function postFile(agent: Agent, url: string, file: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = httpRequest(
      url,
      { method: "POST", agent, headers: { "content-type": SNAPSHOT, "content-length": file.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }),
        );
      },
    );
    req.on("error", reject);
    req.end(file);
  });
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;

/** BENCH_WORLD_FILE=<path>: the world's snapshot is read from there when it exists, else built and written there. */
const worldFile = process.env.BENCH_WORLD_FILE;
const file = worldFile && existsSync(worldFile) ? readFileSync(worldFile) : await buildWorld();
if (worldFile && !existsSync(worldFile)) writeFileSync(worldFile, file);
emit("snapshot-size", { bytes: file.length, mb: round(file.length / 1024 / 1024), transactions: PAYMENTS + SUBSCRIPTIONS });
console.log(`snapshot of the world: ${(file.length / 1024 / 1024).toFixed(1)} MB`);

const server = await startSandbox();
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const sandboxes = `${server.url}/_sandbox/sandboxes`;
try {
  const source = JSON.parse(check("load the world", await postFile(agent, `${sandboxes}?name=world&ttl=P1D`, file)).body) as {
    id: string;
  };

  // 2. forks one after another
  const forkMs: number[] = [];
  for (let i = 0; i < FORKS + 5; i++) {
    const a = check("fork", await call(agent, "POST", sandboxes, { from: source.id, ttl: "PT10M" }));
    if (i >= 5) forkMs.push(a.ms);
    const { id } = JSON.parse(a.body) as { id: string };
    check("delete", await call(agent, "DELETE", `${sandboxes}/${id}?force=true`), 204);
  }
  const fork = { p50: round(percentile(forkMs, 50)), p99: round(percentile(forkMs, 99)) };
  console.log(
    `fork of the world: p50 ${fork.p50} ms, p99 ${fork.p99} ms (targets 20 / 60): ${verdict(fork.p50 <= 20 && fork.p99 <= 60)}`,
  );
  emit("snapshot-fork", { ...fork, target: "p50<=20 p99<=60", pass: fork.p50 <= 20 && fork.p99 <= 60 });

  // 3. loads of the file
  const loadMs: number[] = [];
  for (let i = 0; i < LOADS + 2; i++) {
    const a = check("load", await postFile(agent, `${sandboxes}?ttl=PT10M`, file));
    if (i >= 2) loadMs.push(a.ms);
    const { id } = JSON.parse(a.body) as { id: string };
    check("delete", await call(agent, "DELETE", `${sandboxes}/${id}?force=true`), 204);
  }
  const load = { p50: round(percentile(loadMs, 50)), p99: round(percentile(loadMs, 99)) };
  console.log(`load of its snapshot: p50 ${load.p50} ms, p99 ${load.p99} ms (target 50): ${verdict(load.p50 <= 50)}`);
  emit("snapshot-load", { ...load, target: "p50<=50", pass: load.p50 <= 50 });

  // 4. 100 forks at once from 16 clients, health probed
  await delay(1_500);
  const rssBefore = rssMb(server.pid);
  const probe = healthProbe(server.url);
  const stormMs: number[] = [];
  let next = 0;
  const client = async () => {
    const own = new Agent({ keepAlive: true, maxSockets: 1 });
    while (next < STORM) {
      next++;
      stormMs.push(check("fork (storm)", await call(own, "POST", sandboxes, { from: source.id, ttl: "PT10M" })).ms);
    }
    own.destroy();
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const wall = performance.now() - t0;
  const health = await probe.end();
  const storm = { p50: round(percentile(stormMs, 50)), p99: round(percentile(stormMs, 99)), healthP99: health.p99 };
  console.log(
    `${STORM} forks at once from ${CLIENTS} clients in ${wall.toFixed(0)} ms: fork p50 ${storm.p50} ms, p99 ${storm.p99} ms; health p99 ${health.p99} ms over ${health.probes} probes (target 50): ${verdict(health.p99 <= 50)}`,
  );
  emit("snapshot-fork-storm", { ...storm, target: "healthP99<=50", pass: health.p99 <= 50 });

  // 5. RSS per idle fork: once the server has closed them (30 s idle, the tick once a second)
  await delay(36_000);
  const rssAfter = rssMb(server.pid);
  const perFork = (rssAfter - rssBefore) / STORM;
  console.log(
    `RSS ${rssBefore.toFixed(1)} MB before the ${STORM} forks, ${rssAfter.toFixed(1)} MB once idle: ${perFork.toFixed(2)} MB each (target 1): ${verdict(perFork <= 1)}`,
  );
  emit("snapshot-idle-rss", {
    before: round(rssBefore),
    after: round(rssAfter),
    mbPerFork: round(perFork),
    target: "<=1 MB",
    pass: perFork <= 1,
  });
} finally {
  agent.destroy();
  await server.stop();
}
// 6. the suite comparison, each way on a fresh server
const SUITE_FILES = 32;
const SUITE_WARMUP = 2;
const SUITE_PARALLEL = Number(process.env.BENCH_SUITE_PARALLEL ?? 4);
const SUITE_START = "2026-01-15T12:00:00Z";
type SuiteWay = "build" | "snapshot" | "from";
/** The size of the world's snapshot file. */
let suiteWorldBytes: number | undefined;

async function suiteCall<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const binary = body instanceof Uint8Array;
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": binary ? SNAPSHOT : "application/json" }), ...headers },
    ...(body === undefined
      ? {}
      : { body: binary ? new Uint8Array(body) : typeof body === "string" ? body : JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return (res.status === 204 ? {} : await res.json()) as T;
}

/** The suite's world (see the header, 6.) in the sandbox at `base`; the second payment's id, which the test refunds. */
async function suiteWorld(base: string): Promise<string> {
  const auth = { authorization: await merchantToken(base) };
  const paid: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await suiteCall<{ transactionId: string }>("POST", `${base}/api/v1/payments/card`, paymentBody(`pay-${i}`), auth);
    paid.push(r.transactionId);
  }
  for (let i = 0; i < 5; i++) {
    const { token } = await suiteCall<{ token: string }>(
      "POST",
      `${base}/api/v1/payments/card/tokenize`,
      {
        requestId: `tok-${i}`,
        merchantId: 1001,
        card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cvv: "123" },
        billingDetails: BENCH_BILLING,
      },
      auth,
    );
    if (i >= 3) continue;
    await suiteCall(
      "POST",
      `${base}/api/v1/payments/card/recurring`,
      {
        requestId: `sub-${i}`,
        mid: "sandbox-mid-001",
        cardToken: token,
        plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: SUITE_START.slice(0, 10) },
        order: { orderId: `plan-${i}` },
        device: { ip: "203.0.113.7", userAgent: "bench" },
        // nothing listens there: its deliveries fail at once and wait for their retries (a copy skips them)
        callbackUrl: "http://127.0.0.1:9/hooks",
        successRedirectUrl: "https://shop.example/ok",
        failureRedirectUrl: "https://shop.example/ko",
      },
      auth,
    );
  }
  await suiteCall("POST", `${base}/_sandbox/clock/advance`, { by: "P2M" });
  // a token lives 30 virtual days: a new one after the advance
  auth.authorization = await merchantToken(base);
  await suiteCall(
    "POST",
    `${base}/v1/refunds/card`,
    { requestId: "refund-world", mid: "sandbox-mid-001", transactionId: paid[0], amount: "5.00", reason: "bench" },
    auth,
  );
  return paid[1] as string;
}

/** A test file's test: the full refund of the world's second payment, then its status. */
async function suiteTest(base: string, orderId: string): Promise<void> {
  const auth = { authorization: await merchantToken(base) };
  const refund = await suiteCall<{ transactionStatus: string }>(
    "POST",
    `${base}/v1/refunds/card`,
    { requestId: crypto.randomUUID(), mid: "sandbox-mid-001", transactionId: orderId, amount: "20.50", reason: "bench" },
    auth,
  );
  if (refund.transactionStatus !== "PENDING") throw new Error(`refund is ${refund.transactionStatus}`);
  await suiteCall("GET", `${base}/api/v1/payments/card/status/${orderId}`, undefined, auth);
}

interface SuitePrepared {
  /** How a file gets its sandbox with the world; the order it refunds. */
  create(name: string): Promise<{ id: string; base: string; orderId: string }>;
}

async function suitePrepare(server: Running, way: SuiteWay): Promise<SuitePrepared> {
  const sandboxes = `${server.url}/_sandbox/sandboxes`;
  const baseOf = (id: string) => `${server.url}/sandboxes/${id}`;
  if (way === "build") {
    return {
      async create(name) {
        const { id } = await suiteCall<{ id: string }>("POST", sandboxes, { name, startTime: SUITE_START });
        return { id, base: baseOf(id), orderId: await suiteWorld(baseOf(id)) };
      },
    };
  }
  const world = await suiteCall<{ id: string }>("POST", sandboxes, { name: "world", startTime: SUITE_START });
  const orderId = await suiteWorld(baseOf(world.id));
  if (way === "from") {
    return {
      async create(name) {
        const { id } = await suiteCall<{ id: string }>("POST", sandboxes, { from: world.id, name });
        return { id, base: baseOf(id), orderId };
      },
    };
  }
  const res = await fetch(`${baseOf(world.id)}/_sandbox/snapshot`);
  if (!res.ok) throw new Error(`GET /_sandbox/snapshot answered ${res.status}`);
  const file = new Uint8Array(await res.arrayBuffer());
  suiteWorldBytes = file.length;
  await suiteCall("DELETE", `${sandboxes}/${world.id}`);
  return {
    async create(name) {
      const { id } = await suiteCall<{ id: string }>("POST", `${sandboxes}?name=${encodeURIComponent(name)}`, file);
      return { id, base: baseOf(id), orderId };
    },
  };
}

/** `n` files, SUITE_PARALLEL at once; each file's ms. */
async function suiteFiles(server: Running, prepared: SuitePrepared, n: number, tag: string): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const t0 = performance.now();
      const { id, base, orderId } = await prepared.create(`${tag}-${i}`);
      await suiteTest(base, orderId);
      await suiteCall("DELETE", `${server.url}/_sandbox/sandboxes/${id}`);
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SUITE_PARALLEL, n) }, worker));
  return times;
}

async function suiteMeasure(way: SuiteWay): Promise<{ totalMs: number; cpuMs: number; p50: number; p99: number }> {
  const server = await startSandbox();
  try {
    // warm-up: the server's JIT and the first sandboxes' files, on a world of its own
    await suiteFiles(server, await suitePrepare(server, way), SUITE_WARMUP, "warmup");
    const cpu0 = processCpuMs(server.pid) ?? 0;
    const t0 = performance.now();
    const prepared = await suitePrepare(server, way);
    const times = await suiteFiles(server, prepared, SUITE_FILES, way);
    const totalMs = performance.now() - t0;
    const cpuMs = (processCpuMs(server.pid) ?? 0) - cpu0;
    return { totalMs, cpuMs, p50: percentile(times, 50), p99: percentile(times, 99) };
  } finally {
    await server.stop();
  }
}

async function suiteComparison(): Promise<void> {
  const results = new Map<SuiteWay, Awaited<ReturnType<typeof suiteMeasure>>>();
  for (const way of ["build", "snapshot", "from"] as const) {
    try {
      results.set(way, await suiteMeasure(way));
    } catch (err) {
      wrong++;
      console.error(`snapshot-suite ${way}: ${(err as Error).message}`);
    }
  }
  const build = results.get("build");
  for (const [way, r] of results) {
    const speedup =
      build && way !== "build"
        ? { speedupTime: +(build.totalMs / r.totalMs).toFixed(2), speedupCpu: +(build.cpuMs / r.cpuMs).toFixed(2) }
        : {};
    console.log(
      `snapshot-suite ${way.padEnd(8)} ${SUITE_FILES} files, ${SUITE_PARALLEL} at once: total ${r.totalMs.toFixed(0)} ms, server CPU ${r.cpuMs.toFixed(0)} ms, ` +
        `a file p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms` +
        ("speedupTime" in speedup ? ` (×${speedup.speedupTime} faster, ×${speedup.speedupCpu} less server CPU than build)` : ""),
    );
    emit(`snapshot-suite-${way}`, {
      files: SUITE_FILES,
      parallel: SUITE_PARALLEL,
      totalMs: Math.round(r.totalMs),
      serverCpuMs: Math.round(r.cpuMs),
      p50: +r.p50.toFixed(1),
      p99: +r.p99.toFixed(1),
      ...speedup,
      ...(way === "snapshot" && suiteWorldBytes !== undefined ? { worldBytes: suiteWorldBytes } : {}),
    });
  }
}

await suiteComparison();

if (wrong > 0) {
  console.error(`${wrong} wrong answer(s)`);
  process.exit(1);
}
