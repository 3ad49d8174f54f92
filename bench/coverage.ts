/**
 * The coverage report's read at scale (docs/coverage.md, docs/performance.md): a sandbox whose event
 * log holds 100,000 events (50,000 transactions of every kind, statuses and decline codes mixed, a
 * tenth with 3DS, each with its status event and one webhook attempt's event), written with one SQL
 * statement each into a db file as the server writes them, then the built server started on that
 * file the README way, and `GET /_sandbox/coverage` timed:
 * - cold: the first read of a log never folded (a database from before coverage): folds all 100,000 once;
 * - warm: reads with nothing left to fold;
 * - with a full tail, the read the target is about: before each read, FOLD_AT − 1 card payments
 *   (one event each, each needing its row's facts: the most a read ever folds, since the server folds
 *   in the background from FOLD_AT on).
 * Beside the times, the server's CPU (/proc): a warm read's, and the fold's per event (a read with a
 * full tail less a warm one, over the events it folded): what the background fold costs each event
 * a sandbox writes, a card payment's one or two.
 * Target: a read ≤ 50 ms (p99 with a full tail). Run with `npx tsx bench/coverage.ts` after
 * `node scripts/build.mjs` (`--events N` for another size). Prints one JSON line
 * {"bench":"coverage-read","events","coldMs","warmP50","warmP99","p50","p99","warmCpuMs","foldUsPerEvent","target","pass"}.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { FOLD_AT } from "../src/coverage/coverage.service.js";
import { openDb } from "../src/db/client.js";
import { BUILTIN_MERCHANT } from "../src/platform/fixtures.js";
import { emit, merchantToken, paymentBody, percentile, processCpuMs, startSandbox } from "./lib.js";

const eventsArg = process.argv.indexOf("--events");
const EVENTS = eventsArg >= 0 ? Number(process.argv[eventsArg + 1]) : 100_000;
const TXS = Math.floor(EVENTS / 2);
const TARGET_MS = 50;
const WARM_READS = 50;
const ROUNDS = 10;
const START = Date.UTC(2026, 0, 1);
const KEY = BUILTIN_MERCHANT.merchantKey;
const MID = BUILTIN_MERCHANT.mid;

/** TXS transactions and 2 × TXS events (a status event and a webhook attempt each), in one statement each. */
function seed(path: string): number {
  const t0 = performance.now();
  const db = openDb(path);
  const kind = `CASE i % 7 WHEN 0 THEN 'card_payment' WHEN 1 THEN 'card_charge' WHEN 2 THEN 'subscription_charge'
    WHEN 3 THEN 'refund' WHEN 4 THEN 'card_payout' WHEN 5 THEN 'apm_payment' ELSE 'apm_payout' END`;
  const status = "CASE WHEN i % 10 = 9 THEN 'FAILED' WHEN i % 13 = 5 THEN 'PENDING' ELSE 'SUCCEED' END";
  db.$client.exec(`
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${TXS - 1})
    INSERT INTO transactions (id, merchant_key, kind, status, decline_code, parent_id, payment_method, three_ds,
      order_currency, order_amount, processed_currency, processed_amount, conversion_rate, created_at, updated_at)
    SELECT printf('tx_cov%08d', i), '${KEY}', ${kind}, ${status}, CASE WHEN i % 10 = 9 THEN 1 + i % 18 END,
      CASE WHEN i % 7 = 3 THEN printf('tx_cov%08d', i - 3) END,
      CASE WHEN i % 7 >= 5 THEN CASE i % 3 WHEN 0 THEN 'UPI_QR' WHEN 1 THEN 'SMART_E_WALLET' ELSE 'APPLE_PAY' END END,
      CASE WHEN i % 10 = 4 THEN 1 ELSE 0 END,
      'USD', 2000, CASE WHEN i % 11 = 0 THEN 'EUR' ELSE 'USD' END, 2000, '1', ${START} + i * 1000, ${START} + i * 1000
    FROM n;
    WITH RECURSIVE n(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM n WHERE j < ${2 * TXS - 1}),
      e(i, webhook) AS (SELECT j / 2, j % 2 FROM n)
    INSERT INTO events (type, transaction_id, merchant, data)
    SELECT CASE webhook WHEN 1 THEN 'webhook' ELSE 'transaction' END, printf('tx_cov%08d', i), '${MID}',
      CASE webhook WHEN 1 THEN
        printf('{"deliveryId":"wh_cov%08d","transactionId":"tx_cov%08d","url":"http://127.0.0.1:9/hooks?paymentMethod=card","attempt":%d,"httpStatus":%d,"at":"%s"}',
          i, i, 1 + i % 3, CASE WHEN i % 17 = 0 THEN 503 ELSE 200 END, strftime('%Y-%m-%dT%H:%M:%fZ', (${START} + i * 1000) / 1000.0, 'unixepoch'))
      ELSE
        printf('{"transactionId":"tx_cov%08d","kind":"%s","merchant":"${MID}","status":"%s","declineCode":%s,"at":"%s"}',
          i, ${kind}, ${status}, CASE WHEN i % 10 = 9 THEN 1 + i % 18 ELSE 'null' END,
          strftime('%Y-%m-%dT%H:%M:%fZ', (${START} + i * 1000) / 1000.0, 'unixepoch'))
      END
    FROM e ORDER BY i, webhook;`);
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  db.$client.close();
  return (performance.now() - t0) / 1000;
}

const dir = mkdtempSync(join(tmpdir(), "paysandbox-coverage-"));
const path = join(dir, "sandbox.db");
console.log(`seeding ${TXS} transactions and ${2 * TXS} events...`);
console.log(`seeded in ${seed(path).toFixed(1)} s`);
const server = await startSandbox({ dbPath: path });
const agent = new Agent({ connections: 32 });
try {
  const read = async (): Promise<{ ms: number; seen: number; succeed: number }> => {
    const t0 = performance.now();
    const res = await undiciFetch(`${server.url}/_sandbox/coverage`, { dispatcher: agent });
    const body = (await res.json()) as { seen: number; behaviours: Array<{ id: string; count: number }> };
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`GET /_sandbox/coverage answered ${res.status}`);
    return { ms, seen: body.seen, succeed: body.behaviours.find((b) => b.id === "card.payment.succeed")?.count ?? 0 };
  };
  const cold = await read();
  console.log(`cold read (folds ${2 * TXS} events): ${cold.ms.toFixed(1)} ms, ${cold.seen} behaviours seen`);
  const warm: number[] = [];
  const cpu = () => processCpuMs(server.pid) ?? 0;
  const warmCpu0 = cpu();
  for (let i = 0; i < WARM_READS; i++) warm.push((await read()).ms);
  const warmCpuMs = (cpu() - warmCpu0) / WARM_READS;

  const token = await merchantToken(server.url);
  let n = 0;
  const pay = async () => {
    const res = await undiciFetch(`${server.url}/api/v1/payments/card`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json", authorization: token },
      body: paymentBody(`cov-${++n}`),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`payment answered ${res.status}`);
  };
  const tail: number[] = [];
  let tailCpu = 0;
  let last = cold;
  for (let round = 0; round < ROUNDS; round++) {
    // FOLD_AT - 1 events after the last read: the background fold has not started, the read folds them all
    let left = FOLD_AT - 1;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (left > 0) {
          left--;
          await pay();
        }
      }),
    );
    const cpu0 = cpu();
    last = await read();
    tailCpu += cpu() - cpu0;
    tail.push(last.ms);
  }
  // the server's CPU of a read that folds FOLD_AT - 1 events, less a warm read's: the fold's, per event
  const foldUsPerEvent = Math.round((((tailCpu / ROUNDS - warmCpuMs) * 1000) / (FOLD_AT - 1)) * 10) / 10;
  const round1 = (x: number) => Math.round(x * 10) / 10;
  const p99 = round1(percentile(tail, 99));
  console.log(
    `warm reads p50 ${round1(percentile(warm, 50))} ms, p99 ${round1(percentile(warm, 99))} ms; ` +
      `reads after ${FOLD_AT - 1} unfolded payments p50 ${round1(percentile(tail, 50))} ms, p99 ${p99} ms ` +
      `(card.payment.succeed counted ${last.succeed} times); server CPU a warm read ${warmCpuMs.toFixed(1)} ms, ` +
      `the fold ${foldUsPerEvent} µs an event`,
  );
  emit("coverage-read", {
    events: 2 * TXS,
    coldMs: round1(cold.ms),
    warmP50: round1(percentile(warm, 50)),
    warmP99: round1(percentile(warm, 99)),
    p50: round1(percentile(tail, 50)),
    p99,
    warmCpuMs: Math.round(warmCpuMs * 10) / 10,
    foldUsPerEvent,
    target: `p99 ≤ ${TARGET_MS} ms`,
    pass: p99 <= TARGET_MS,
  });
} finally {
  await agent.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
