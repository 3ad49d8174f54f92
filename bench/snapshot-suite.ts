/**
 * A suite that forks a prepared world vs the same suite building it with API calls (docs/snapshots.md,
 * the fixture pattern), against the built server on a file database, a fresh server for each way:
 *
 * - the world: a sandbox at 2026-01-15T12:00Z with 20 card payments, 5 saved cards (tokenize),
 *   3 monthly subscriptions on them, the clock advanced P2M (two charges in each), a refund of 5.00
 *   pending: 31 API calls and an advance;
 * - a test file: a sandbox with that world, then its test (a full refund of the second payment and
 *   a status read), then its sandbox deleted;
 * - `build`: each of the 32 files creates a sandbox and builds the world in it;
 * - `snapshot`: the world is built once and saved (`GET /_sandbox/snapshot`, counted in the total);
 *   each file starts its sandbox from the file (`POST /_sandbox/sandboxes` with it as the body);
 * - `from`: the world is built once in a sandbox; each file forks it (`{"from": id}`).
 *
 * 32 files, BENCH_SUITE_PARALLEL (default 4) at once, as a test runner's workers, after 2 warm-up
 * files. Figures: the suite's total wall time, the server's CPU time over it (/proc), and each
 * file's p50/p99 ms; the fork ways' speed-up over `build` (total time and server CPU).
 *
 * Run with `npm run bench -- snapshot-suite`, or `npx tsx bench/snapshot-suite.ts` after
 * `node scripts/build.mjs`. JSON lines {"bench":"snapshot-suite-build|snapshot|from",...}. Exit 1
 * only for a wrong answer (a call that fails, a refund not PENDING).
 */
import { emit, merchantToken, paymentBody, percentile, processCpuMs, type Running, startSandbox } from "./lib.js";

const FILES = 32;
const WARMUP = 2;
const PARALLEL = Number(process.env.BENCH_SUITE_PARALLEL ?? 4);
const START = "2026-01-15T12:00:00Z";
const SNAPSHOT_TYPE = "application/vnd.paysandbox.snapshot";
type Way = "build" | "snapshot" | "from";
/** The size of the world's snapshot file. */
let worldBytes: number | undefined;

async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const binary = body instanceof Uint8Array;
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": binary ? SNAPSHOT_TYPE : "application/json" }), ...headers },
    ...(body === undefined
      ? {}
      : { body: binary ? new Uint8Array(body) : typeof body === "string" ? body : JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return (res.status === 204 ? {} : await res.json()) as T;
}

/** The world (see the header) in the sandbox at `base`; the second payment's id, which the test refunds. */
async function buildWorld(base: string): Promise<string> {
  const auth = { authorization: await merchantToken(base) };
  const paid: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await call<{ transactionId: string }>("POST", `${base}/api/v1/payments/card`, paymentBody(`pay-${i}`), auth);
    paid.push(r.transactionId);
  }
  for (let i = 0; i < 5; i++) {
    const { token } = await call<{ token: string }>(
      "POST",
      `${base}/api/v1/payments/card/tokenize`,
      {
        requestId: `tok-${i}`,
        merchantId: 1001,
        card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cvv: "123" },
        billingDetails: {
          firstName: "Bench",
          lastName: "Mark",
          address1: "1 Load St",
          city: "London",
          state: "LDN",
          country: "GB",
          postalCode: "N1 9GU",
          email: "bench@example.com",
          dateOfBirth: "1990-01-31",
        },
      },
      auth,
    );
    if (i >= 3) continue;
    await call(
      "POST",
      `${base}/api/v1/payments/card/recurring`,
      {
        requestId: `sub-${i}`,
        mid: "sandbox-mid-001",
        cardToken: token,
        plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: START.slice(0, 10) },
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
  await call("POST", `${base}/_sandbox/clock/advance`, { by: "P2M" });
  // a token lives 30 virtual days: a new one after the advance
  auth.authorization = await merchantToken(base);
  await call(
    "POST",
    `${base}/v1/refunds/card`,
    { requestId: "refund-world", mid: "sandbox-mid-001", transactionId: paid[0], amount: "5.00", reason: "bench" },
    auth,
  );
  return paid[1] as string;
}

/** A test file's test: the full refund of the world's second payment, then its status. */
async function test(base: string, orderId: string): Promise<void> {
  const auth = { authorization: await merchantToken(base) };
  const refund = await call<{ transactionStatus: string }>(
    "POST",
    `${base}/v1/refunds/card`,
    { requestId: crypto.randomUUID(), mid: "sandbox-mid-001", transactionId: orderId, amount: "20.50", reason: "bench" },
    auth,
  );
  if (refund.transactionStatus !== "PENDING") throw new Error(`refund is ${refund.transactionStatus}`);
  await call("GET", `${base}/api/v1/payments/card/status/${orderId}`, undefined, auth);
}

interface Prepared {
  /** How a file gets its sandbox with the world; the order it refunds. */
  create(name: string): Promise<{ id: string; base: string; orderId: string }>;
}

async function prepare(server: Running, way: Way): Promise<Prepared> {
  const sandboxes = `${server.url}/_sandbox/sandboxes`;
  const baseOf = (id: string) => `${server.url}/sandboxes/${id}`;
  if (way === "build") {
    return {
      async create(name) {
        const { id } = await call<{ id: string }>("POST", sandboxes, { name, startTime: START });
        return { id, base: baseOf(id), orderId: await buildWorld(baseOf(id)) };
      },
    };
  }
  const world = await call<{ id: string }>("POST", sandboxes, { name: "world", startTime: START });
  const orderId = await buildWorld(baseOf(world.id));
  if (way === "from") {
    return {
      async create(name) {
        const { id } = await call<{ id: string }>("POST", sandboxes, { from: world.id, name });
        return { id, base: baseOf(id), orderId };
      },
    };
  }
  const res = await fetch(`${baseOf(world.id)}/_sandbox/snapshot`);
  if (!res.ok) throw new Error(`GET /_sandbox/snapshot answered ${res.status}`);
  const file = new Uint8Array(await res.arrayBuffer());
  worldBytes = file.length;
  await call("DELETE", `${sandboxes}/${world.id}`);
  return {
    async create(name) {
      const { id } = await call<{ id: string }>("POST", `${sandboxes}?name=${encodeURIComponent(name)}`, file);
      return { id, base: baseOf(id), orderId };
    },
  };
}

/** `n` files, PARALLEL at once; each file's ms. */
async function runFiles(server: Running, prepared: Prepared, n: number, tag: string): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const t0 = performance.now();
      const { id, base, orderId } = await prepared.create(`${tag}-${i}`);
      await test(base, orderId);
      await call("DELETE", `${server.url}/_sandbox/sandboxes/${id}`);
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, n) }, worker));
  return times;
}

async function measure(way: Way): Promise<{ totalMs: number; cpuMs: number; p50: number; p99: number }> {
  const server = await startSandbox();
  try {
    // warm-up: the server's JIT and the first sandboxes' files, on a world of its own
    await runFiles(server, await prepare(server, way), WARMUP, "warmup");
    const cpu0 = processCpuMs(server.pid) ?? 0;
    const t0 = performance.now();
    const prepared = await prepare(server, way);
    const times = await runFiles(server, prepared, FILES, way);
    const totalMs = performance.now() - t0;
    const cpuMs = (processCpuMs(server.pid) ?? 0) - cpu0;
    return { totalMs, cpuMs, p50: percentile(times, 50), p99: percentile(times, 99) };
  } finally {
    await server.stop();
  }
}

const results = new Map<Way, Awaited<ReturnType<typeof measure>>>();
let failed = false;
for (const way of ["build", "snapshot", "from"] as const) {
  try {
    results.set(way, await measure(way));
  } catch (err) {
    failed = true;
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
    `snapshot-suite ${way.padEnd(8)} ${FILES} files, ${PARALLEL} at once: total ${r.totalMs.toFixed(0)} ms, server CPU ${r.cpuMs.toFixed(0)} ms, ` +
      `a file p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms` +
      ("speedupTime" in speedup ? ` (×${speedup.speedupTime} faster, ×${speedup.speedupCpu} less server CPU than build)` : ""),
  );
  emit(`snapshot-suite-${way}`, {
    files: FILES,
    parallel: PARALLEL,
    totalMs: Math.round(r.totalMs),
    serverCpuMs: Math.round(r.cpuMs),
    p50: +r.p50.toFixed(1),
    p99: +r.p99.toFixed(1),
    ...speedup,
    ...(way === "snapshot" && worldBytes !== undefined ? { worldBytes } : {}),
  });
}
process.exit(failed ? 1 : 0);
