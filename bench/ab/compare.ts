/**
 * A/B of two builds of the server, interleaved (every hot-path change is measured this
 * way): rounds of A then B then B then A ..., each round a fresh warm-up and a measured run of card
 * payments with a callback at 32 connections (CONNECTIONS=1: one request at a time, timed to
 * 0.01 ms by bench/lib.ts sequentialLatency), each server on its own fresh database. Prints the
 * medians of req/s, p99 and server CPU µs per request (the figure that moves least with noise).
 *
 *   git worktree add /tmp/ab-a HEAD~1 && (cd /tmp/ab-a && npm ci && node scripts/build.mjs)
 *   node scripts/build.mjs && npx tsx bench/ab/compare.ts /tmp/ab-a .   [ROUNDS=4 SECONDS=5 NOCB=1 CONNECTIONS=32]
 *
 * Node or V8 flags per side: ARGS_A / ARGS_B (space-separated), e.g. the same build twice with
 * `ARGS_B=--max-semi-space-size=32 npx tsx bench/ab/compare.ts . .`. WARMUP=s (default 2): a fresh
 * server's first ~3 s of payments with a callback cost about twice the CPU of later ones (V8 still
 * compiling), so a longer warm-up gives figures closer to a long-running server's.
 */
import { resolve } from "node:path";
import { load, median, merchantToken, paymentBody, sequentialLatency, startCountingReceiver, startSandbox } from "../lib.js";

const [rootA, rootB] = process.argv.slice(2).map((r) => resolve(r));
if (!rootA || !rootB) throw new Error("usage: compare.ts <rootA> <rootB>");
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const SECONDS = Number(process.env.SECONDS ?? 5);
const WARMUP = Number(process.env.WARMUP ?? 2);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const PATH = process.env.ROUTE ?? "/api/v1/payments/card";

const receiver = await startCountingReceiver();
const callback = process.env.NOCB ? undefined : receiver.url;

const argsOf = (v: string | undefined) => (v ?? "").split(" ").filter(Boolean);
const ARGS = { A: argsOf(process.env.ARGS_A), B: argsOf(process.env.ARGS_B) };

async function round(root: string, n: number, nodeArgs: string[]) {
  const s = await startSandbox({ main: `${root}/dist/main.js`, nodeArgs });
  try {
    const auth = await merchantToken(s.url);
    const run = (duration: number, tag: string) =>
      (CONNECTIONS === 1 ? sequentialLatency : load)({
        url: s.url,
        method: "POST",
        path: PATH,
        headers: { authorization: auth },
        bodyFor: (i) => paymentBody(`${tag}-${n}-${i}`, callback),
        connections: CONNECTIONS,
        duration,
        pid: s.pid,
      });
    await run(WARMUP, "warm");
    return await run(SECONDS, "run");
  } finally {
    await s.stop();
  }
}

const results: Record<"A" | "B", Array<{ rps: number; p99: number; cpu: number }>> = { A: [], B: [] };
for (let r = 0; r < ROUNDS; r++) {
  const order: Array<"A" | "B"> = r % 2 === 0 ? ["A", "B"] : ["B", "A"];
  for (const which of order) {
    const res = await round(which === "A" ? rootA : rootB, r, ARGS[which]);
    results[which].push({ rps: res.rps, p99: res.p99, cpu: res.cpuUsPerReq ?? 0 });
    console.log(
      `round ${r + 1} ${which}: ${res.rps} req/s, p99 ${res.p99} ms, ${res.cpuUsPerReq} µs CPU/req, ${res.non2xx} non-2xx`,
    );
  }
}
receiver.stop();
for (const which of ["A", "B"] as const) {
  const xs = results[which];
  console.log(
    `${which} (${which === "A" ? rootA : rootB} ${ARGS[which].join(" ")}): median ${median(xs.map((x) => x.rps))} req/s, p99 ${median(xs.map((x) => x.p99))} ms, ${median(xs.map((x) => x.cpu))} µs CPU/req`,
  );
}
