/**
 * The recurring scheduler's throughput: seed N due subscriptions straight into a
 * temp WAL database (tokens + subscriptions bulk-inserted in one transaction), then time the
 * scheduler runs (one batch of 500 each, as the runner calls them) that charge them all through the card payment path with their callbacks
 * enqueued (to a closed port: enqueued, never delivered). One JSON line per size.
 *
 * Targets: 10,000 in ≤ 3 s; 100,000 in ≤ 30 s with peak RSS ≤ 300 MB.
 * Each size runs in its own child process, so its peak RSS is its own.
 * Run alone with `npx tsx bench/subscriptions.ts` (or one size: `... --size 10000`, or BENCH_SIZE=10000).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { openDb } from "../src/db/client.js";
import { ManualClock } from "../src/platform/clock.js";
import { SubscriptionScheduler } from "../src/scheduler/subscriptions.js";
import { eachSizeInChild, emit, freePort, seedDueSubscriptions } from "./lib.js";

const TARGETS: Record<number, { seconds: number; rssMb?: number }> = {
  10000: { seconds: 3 },
  100000: { seconds: 30, rssMb: 300 },
};
const NOW = Date.UTC(2026, 2, 1, 0, 0, 0); // 2026-03-01T00:00Z: every seeded row is due now

async function measure(size: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-bench-subs-"));
  try {
    const dbPath = join(dir, "sandbox.db");
    const db = openDb(dbPath);
    const clock = new ManualClock(NOW);
    const ctx = createContext({ config: defaultConfig({ db: dbPath }), clock, db });
    const closedPort = await freePort(); // nothing listens there
    const profile = ctx.outcomes.profileFor("4111111111111111");

    const t0 = performance.now();
    const sqlite = db.$client;
    seedDueSubscriptions(sqlite, { size, profile, now: NOW, callbackUrl: `http://127.0.0.1:${closedPort}/cb`, createdAt: NOW });
    const seedSeconds = (performance.now() - t0) / 1000;

    const scheduler = new SubscriptionScheduler({ subscriptions: ctx.billing, clock });
    const t1 = performance.now();
    // as the runner does: one batch per run() while charges are due (it yields to requests between)
    let charges = 0;
    while ((scheduler.nextDueAt() ?? Number.POSITIVE_INFINITY) <= clock.nowMs()) charges += scheduler.run(clock.nowMs()).charges;
    const seconds = (performance.now() - t1) / 1000;
    const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);

    const count = (sql: string) => (sqlite.prepare(sql).get() as { n: number }).n;
    const enqueued = count("SELECT count(*) AS n FROM webhook_deliveries WHERE kind = 'subscription_charge'");
    const charged = count("SELECT count(*) AS n FROM transactions WHERE kind = 'subscription_charge' AND status = 'SUCCEED'");
    const moved = count("SELECT count(*) AS n FROM subscriptions WHERE next_charge_date = '2026-04-01'");
    const correct = charges === size && enqueued === size && charged === size && moved === size;
    const target = TARGETS[size];
    const pass = correct && (!target || (seconds <= target.seconds && (target.rssMb === undefined || peakRssMb <= target.rssMb)));
    console.log(
      `${size} subscriptions: seeded in ${seedSeconds.toFixed(2)} s; one run charged ${charges} in ${seconds.toFixed(2)} s ` +
        `(${Math.round((seconds * 1e6) / size)} µs each), ${enqueued} callbacks enqueued, peak RSS ${peakRssMb} MB` +
        (target
          ? `; target ≤ ${target.seconds} s${target.rssMb ? `, ≤ ${target.rssMb} MB` : ""}: ${pass ? "met" : "MISSED"}`
          : ""),
    );
    emit("subscription-run", {
      size,
      seconds: Number(seconds.toFixed(3)),
      usPerCharge: Math.round((seconds * 1e6) / size),
      peakRssMb,
      seedSeconds: Number(seedSeconds.toFixed(2)),
      charges,
      enqueued,
      target: target ? `<=${target.seconds}s${target.rssMb ? `,<=${target.rssMb}MB` : ""}` : undefined,
      pass,
    });
    db.$client.close();
    if (!pass) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sizeArg = process.argv.indexOf("--size");
const size = sizeArg >= 0 ? process.argv[sizeArg + 1] : process.env.BENCH_SIZE;
if (size) await measure(Number(size));
else if (!(await eachSizeInChild(import.meta.url, [10_000, 100_000]))) process.exitCode = 1;
