/**
 * Card payments per second (issue 3 item 12): POST /api/v1/payments/card with 4111111111111111, no
 * 3DS, a fresh requestId per request and a callbackUrl on a local receiver (so every payment also
 * costs a signed webhook delivery), against the real built server on a WAL SQLite file; beside it,
 * in the same run, the floor: a bare @hono/node-server app doing one better-sqlite3 INSERT per POST.
 *
 * Targets: ≥ 40% of the floor's req/s, p99 ≤ 10 ms, at 32 connections.
 * Run with `npx tsx bench/card-payments.ts` after `node scripts/build.mjs` (BENCH_DURATION=s).
 * Prints one JSON line: {"bench":"card-payment","rps","p50","p99","floorRps","ratio",...}.
 */
import { emit, load, paymentBody, startBareFloor, startCountingReceiver, startSandbox } from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 32;

const receiver = await startCountingReceiver();
const floor = await startBareFloor("insert");
const sandbox = await startSandbox();
try {
  const auth = await fetch(`${sandbox.url}/api/v1/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
  });
  const token = ((await auth.json()) as { token: string }).token;
  let run = 0;
  const payments = (duration: number) => {
    const prefix = `bench-${++run}-`;
    return load({
      url: sandbox.url,
      method: "POST",
      path: "/api/v1/payments/card",
      headers: { authorization: token },
      bodyFor: (i) => paymentBody(`${prefix}${i}`, receiver.url),
      connections: CONNECTIONS,
      duration,
    });
  };
  const inserts = (duration: number) =>
    load({
      url: floor.url,
      method: "POST",
      path: "/",
      bodyFor: (i) => paymentBody(`floor-${i}`, receiver.url),
      connections: CONNECTIONS,
      duration,
    });

  await inserts(WARMUP);
  const f = await inserts(DURATION);
  await payments(WARMUP);
  const p = await payments(DURATION);
  const ratio = f.rps > 0 ? p.rps / f.rps : 0;
  const pass = ratio >= 0.4 && p.p99 <= 10 && p.errors === 0 && p.non2xx === 0;
  console.log(`floor (bare hono + 1 INSERT): ${f.rps} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms`);
  console.log(
    `card payments: ${p.rps} req/s, p50 ${p.p50} ms, p99 ${p.p99} ms, ${p.errors} errors, ${p.non2xx} non-2xx; ` +
      `${(ratio * 100).toFixed(0)}% of the floor (targets ≥ 40% and p99 ≤ 10 ms: ${pass ? "met" : "MISSED"}); ` +
      `webhooks received so far: ${await receiver.received()}`,
  );
  emit("card-payment", {
    rps: p.rps,
    p50: p.p50,
    p99: p.p99,
    floorRps: f.rps,
    ratio: Number(ratio.toFixed(3)),
    errors: p.errors,
    non2xx: p.non2xx,
    pass,
  });
} finally {
  await sandbox.stop();
  await floor.stop();
  receiver.stop();
}
