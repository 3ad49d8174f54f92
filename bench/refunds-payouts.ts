/**
 * Refunds and card payouts per second, beside the floor and the card payment, in
 * one run against the real built server: POST /v1/refunds/card (0.01 of one of 2,000 SUCCEED
 * payments, round robin, each with a callbackUrl) and POST /v1/payouts/card (4111…, a callbackUrl).
 *
 * Target: refund and payout creation each ≥ the card payment's req/s in the same run (they do less).
 * The three are interleaved in rotated rounds (the database grows during the run).
 * Run with `npx tsx bench/refunds-payouts.ts` after `node scripts/build.mjs` (BENCH_DURATION=s).
 */
import {
  emit,
  load,
  merchantToken,
  paymentBody,
  paymentLoad,
  startBareFloor,
  startCountingReceiver,
  startSandbox,
} from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 32;
const PARENTS = 2_000;
const ROUNDS = 3;

const receiver = await startCountingReceiver();
const floor = await startBareFloor("insert");
const sandbox = await startSandbox();
try {
  const token = await merchantToken(sandbox.url);
  const post = (path: string, bodyFor: (i: number, item: string) => string, duration: number, cycle?: string[]) =>
    load({
      url: sandbox.url,
      method: "POST",
      path,
      headers: { authorization: token },
      bodyFor,
      ...(cycle ? { cycle } : {}),
      connections: CONNECTIONS,
      duration,
    });

  // the payments to refund: big enough for every 0.01 refund of the run
  const parents: string[] = [];
  for (let i = 0; i < PARENTS; i++) {
    const body = JSON.parse(paymentBody(`parent-${i}`, receiver.url)) as Record<string, unknown>;
    body.amount = "100000.00";
    const res = await fetch(`${sandbox.url}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify(body),
    });
    parents.push(((await res.json()) as { transactionId: string }).transactionId);
  }

  let run = 0;
  const payments = (d: number) =>
    paymentLoad(sandbox, { token, callbackUrl: receiver.url, connections: CONNECTIONS, duration: d });
  const refunds = (d: number) => {
    const prefix = `rf-${++run}-`;
    return post(
      "/v1/refunds/card",
      (i, parent) =>
        JSON.stringify({
          requestId: `${prefix}${i}`,
          mid: "sandbox-mid-001",
          transactionId: parent,
          amount: "0.01",
          reason: "bench",
          callbackUrl: receiver.url,
        }),
      d,
      parents,
    );
  };
  const payouts = (d: number) => {
    const prefix = `po-${++run}-`;
    return post(
      "/v1/payouts/card",
      (i) =>
        JSON.stringify({
          requestId: `${prefix}${i}`,
          mid: "sandbox-mid-001",
          userEmail: "bench@example.com",
          amount: "20.50",
          card: { number: "4111111111111111", cardHolder: "Bench Mark", expMonth: "12", expYear: "2099" },
          callbackUrl: receiver.url,
        }),
      d,
    );
  };
  const inserts = (d: number) => paymentLoad(floor, { callbackUrl: receiver.url, connections: CONNECTIONS, duration: d });

  await inserts(WARMUP);
  const f = await inserts(DURATION);
  // The database grows as the run goes on, so the three are interleaved: ROUNDS rounds, each in a
  // rotated order, and each figure is the mean of its rounds (p99: the worst round).
  const kinds = { payments, refunds, payouts };
  const results: Record<keyof typeof kinds, Array<Awaited<ReturnType<typeof payments>>>> = {
    payments: [],
    refunds: [],
    payouts: [],
  };
  const names = Object.keys(kinds) as Array<keyof typeof kinds>;
  for (const name of names) await kinds[name](WARMUP);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length] as keyof typeof kinds;
      results[name].push(await kinds[name](Math.max(1, Math.round(DURATION / ROUNDS))));
    }
  }
  const merged = (xs: Array<Awaited<ReturnType<typeof payments>>>) => ({
    rps: Math.round(xs.reduce((a, x) => a + x.rps, 0) / xs.length),
    p50: Math.max(...xs.map((x) => x.p50)),
    p99: Math.max(...xs.map((x) => x.p99)),
    errors: xs.reduce((a, x) => a + x.errors, 0),
    non2xx: xs.reduce((a, x) => a + x.non2xx, 0),
    loader: xs[0]?.loader,
  });
  const p = merged(results.payments);
  const r = merged(results.refunds);
  const o = merged(results.payouts);
  const line = (name: string, x: typeof p) =>
    `${name}: ${x.rps} req/s, p50 ${x.p50} ms, p99 ${x.p99} ms, ${x.errors} errors, ${x.non2xx} non-2xx`;
  console.log(`floor (bare hono + 1 INSERT): ${f.rps} req/s`);
  console.log(line("card payments", p));
  console.log(`${line("refunds", r)} (${r.rps >= p.rps ? "≥" : "<"} card payments: target ${r.rps >= p.rps ? "met" : "MISSED"})`);
  console.log(
    `${line("card payouts", o)} (${o.rps >= p.rps ? "≥" : "<"} card payments: target ${o.rps >= p.rps ? "met" : "MISSED"})`,
  );
  for (const [name, x] of [
    ["refund", r],
    ["card-payout", o],
  ] as const) {
    emit(name, {
      rps: x.rps,
      p50: x.p50,
      p99: x.p99,
      floorRps: f.rps,
      paymentRps: p.rps,
      errors: x.errors,
      non2xx: x.non2xx,
      loader: x.loader,
      pass: x.rps >= p.rps && x.errors === 0 && x.non2xx === 0,
    });
  }
} finally {
  await sandbox.stop();
  await floor.stop();
  receiver.stop();
}
