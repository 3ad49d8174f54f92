/**
 * Issue 13 item 2 targets: during one clock advance that charges N due subscriptions (default
 * 100,000; BENCH_SIZE=n), `GET /_sandbox/health` keeps answering (p99 ≤ 50 ms), and the advance's
 * time and the server's peak RSS are reported (1,000,000 in ≤ 100 s with ≤ 300 MB is the target
 * for the largest size). Against the built server on a database seeded before it starts; the
 * callbacks go to a local receiver answering 200 (in its own process).
 * Run alone: `npm run build && npx tsx bench/advance.ts`.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { ManualClock } from "../src/platform/clock.js";
import { emit, freePort, percentile, ROOT, startCountingReceiver } from "./lib.js";

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const NOW = Date.UTC(2026, 2, 1, 0, 0, 0); // every seeded subscription is due at 2026-03-01T00:00Z

const dir = mkdtempSync(join(tmpdir(), "paysandbox-bench-advance-"));
const dbPath = join(dir, "sandbox.db");
const receiver = await startCountingReceiver("/cb");

// migrate and seed through a context, then close it: the server opens the same file
{
  const ctx = createContext({ config: defaultConfig({ db: dbPath }), clock: new ManualClock(NOW) });
  const profile = ctx.outcomes.profileFor("4111111111111111");
  const sqlite = ctx.db.$client;
  const insToken = sqlite.prepare(
    `INSERT INTO card_tokens (token, merchant_key, request_id, card_bin, card_last4, exp_month, exp_year, card_brand,
      card_profile, expiration_date, billing_details, created_at) VALUES (?, ?, ?, '411111', '1111', '12', '2030', 'VISA', ?, '2026-05-30', ?, ?)`,
  );
  const insSub = sqlite.prepare(
    `INSERT INTO subscriptions (id, merchant_key, request_id, card_token, status, amount, currency, frequency, interval,
      start_date, next_charge_date, next_charge_at, failure_count, charge_count, max_retries, skip_first_charge,
      callback_url, success_redirect_url, failure_redirect_url, billing_details, order_data, device, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'ACTIVE', 999, 'USD', 'MONTHLY', 1, '2026-02-01', '2026-03-01', ?, 0, 1, 3, 0, ?, ?, ?, ?, '{}', ?, ?, ?)`,
  );
  const billing = JSON.stringify({ firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", country: "GB" });
  const device = JSON.stringify({ ip: "203.0.113.7", userAgent: "bench" });
  const key = "sandbox_merchant_key";
  sqlite.transaction(() => {
    for (let i = 0; i < SIZE; i++) {
      const tok = `tok_bench${String(i).padStart(11, "0")}`;
      insToken.run(tok, key, `t${i}`, profile, billing, NOW - 86_400_000);
      insSub.run(
        `sub_bench${String(i).padStart(11, "0")}`,
        key,
        `s${i}`,
        tok,
        NOW,
        receiver.url,
        receiver.url,
        receiver.url,
        billing,
        device,
        NOW - 1,
        NOW - 1,
      );
    }
  })();
  sqlite.close();
}

const port = await freePort();
const main = join(ROOT, "dist/main.js");
if (!existsSync(main)) throw new Error("dist/main.js is missing: run `npm run build`");
const proc = spawn(
  process.execPath,
  [
    main,
    "start",
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    "--db",
    dbPath,
    "--start-time",
    new Date(NOW - 3_600_000).toISOString(),
  ],
  {
    env: { ...process.env, LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  },
);
const url = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${url}/_sandbox/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const t0 = performance.now();
  let done = false;
  const advance = fetch(`${url}/_sandbox/clock/advance`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ by: "PT2H" }),
  }).then(async (r) => {
    done = true;
    return (await r.json()) as { ran: { charges: number; deliveries: number } };
  });
  const health: number[] = [];
  while (!done) {
    const s = performance.now();
    await fetch(`${url}/_sandbox/health`);
    health.push(performance.now() - s);
    await new Promise((r) => setTimeout(r, 5));
  }
  const ran = await advance;
  const seconds = (performance.now() - t0) / 1000;
  const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
  const peakRssMb = Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  const pct = (p: number) => Number(percentile(health, p).toFixed(1));
  const received = await receiver.received();
  console.log(
    `advance over ${SIZE} due subscriptions: ${ran.ran.charges} charges, ${ran.ran.deliveries} deliveries (receiver got ${received}) in ${seconds.toFixed(1)} s; ` +
      `health during it: ${health.length} calls, p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms (target p99 ≤ 50 ms: ${pct(99) <= 50 ? "met" : "MISSED"}); server peak RSS ${peakRssMb} MB`,
  );
  emit("advance", {
    size: SIZE,
    seconds: Number(seconds.toFixed(2)),
    charges: ran.ran.charges,
    healthP50Ms: pct(50),
    healthP99Ms: pct(99),
    peakRssMb,
  });
} finally {
  proc.kill("SIGTERM");
  receiver.stop();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
