/**
 * A fresh server's first requests (docs/performance.md): what a CI suite of a few hundred requests
 * feels. Starts the built server the README way on a fresh database (spawn → first 200 of
 * /_sandbox/health timed), then sends 1,000 card payments one at a time (each with a callbackUrl
 * to a local receiver, on one keep-alive socket, a Node client) and times them, then 1,000 more:
 * the same work on the warmed server, in the same run, so the ratio says what the warm-up costs
 * whatever else the machine is doing. Fresh server each round, RUNS rounds (default 3), medians;
 * NOCB=1 leaves the callbackUrl out, BENCH_N=n sends n instead of 1,000, ONLY_FIRST=1 skips the warm
 * half (a profile of the cold one), BENCH_IDLE_MS=ms waits that long after health (a CI suite's own
 * start) before the first payment.
 *
 * Target: the first 1,000 in ≤ 1.0 s (docs/performance.md), with start → healthy still fast.
 * Run alone: `npm run build && npx tsx bench/warmup.ts`; BENCH_MAIN=/other/dist/main.js runs another
 * build (A/B), BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p" profiles the server.
 */
import { Agent, request } from "node:http";
import { emit, median, paymentBody, processCpuMs, startCountingReceiver, startSandbox } from "./lib.js";

const RUNS = Number(process.env.RUNS ?? 3);
const N = Number(process.env.BENCH_N ?? 1000);

/** One POST on the shared keep-alive socket; resolves with its status. */
function post(agent: Agent, url: string, path: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: "POST", agent, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const receiver = await startCountingReceiver("/cb");
const rounds: Array<{
  startMs: number;
  firstMs: number;
  nextMs: number;
  firstP50: number;
  nextP50: number;
  first100: number;
  next100: number;
  firstCpuMs: number;
  nextCpuMs: number;
  firstClientCpuMs: number;
  nextClientCpuMs: number;
}> = [];
try {
  for (let round = 0; round < RUNS; round++) {
    const t0 = performance.now();
    const server = await startSandbox({
      ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
      nodeArgs: process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [],
    });
    const startMs = performance.now() - t0;
    // BENCH_IDLE_MS: the pause a CI suite's own start leaves between the server's health and its first request
    if (process.env.BENCH_IDLE_MS) await new Promise((r) => setTimeout(r, Number(process.env.BENCH_IDLE_MS)));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const auth = await new Promise<string>((resolve, reject) => {
        const req = request(
          `${server.url}/api/v1/auth`,
          { method: "POST", agent, headers: { "content-type": "application/json" } },
          (res) => {
            let text = "";
            res.on("data", (d: Buffer) => {
              text += d.toString();
            });
            res.on("end", () => resolve((JSON.parse(text) as { token: string }).token));
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }));
      });
      const phase = async (from: number) => {
        const each: number[] = [];
        const cpu0 = processCpuMs(server.pid) ?? 0;
        const client0 = process.cpuUsage();
        const p0 = performance.now();
        for (let i = from; i < from + N; i++) {
          const s = performance.now();
          const body = paymentBody(`w-${i}`, process.env.NOCB ? undefined : receiver.url);
          const status = await post(agent, server.url, "/api/v1/payments/card", body, {
            authorization: auth,
          });
          if (status !== 200) throw new Error(`payment ${i} answered ${status}`);
          each.push(performance.now() - s);
        }
        const sum = (k: number) => each.slice(0, k).reduce((a, b) => a + b, 0);
        const ms = performance.now() - p0;
        const cpuMs = (processCpuMs(server.pid) ?? 0) - cpu0;
        const client = process.cpuUsage(client0);
        const clientCpuMs = Math.round((client.user + client.system) / 1000);
        return { ms, cpuMs, clientCpuMs, p50: median(each), first1: sum(1), first10: sum(10), first100: sum(100) };
      };
      const first = await phase(0);
      // ONLY_FIRST=1: a profile of the first 1,000 alone
      const next = process.env.ONLY_FIRST ? first : await phase(N);
      rounds.push({
        startMs,
        firstMs: first.ms,
        nextMs: next.ms,
        firstP50: first.p50,
        nextP50: next.p50,
        first100: first.first100,
        next100: next.first100,
        firstCpuMs: first.cpuMs,
        nextCpuMs: next.cpuMs,
        firstClientCpuMs: first.clientCpuMs,
        nextClientCpuMs: next.clientCpuMs,
      });
      console.log(
        `round ${round + 1}: start → healthy ${startMs.toFixed(0)} ms; first ${N} payments ${first.ms.toFixed(0)} ms (p50 ${first.p50.toFixed(2)} ms; ` +
          `the first 1, 10, 100: ${first.first1.toFixed(1)}, ${first.first10.toFixed(1)}, ${first.first100.toFixed(0)} ms against ${next.first1.toFixed(1)}, ${next.first10.toFixed(1)}, ${next.first100.toFixed(0)} warm), ` +
          `next ${N} ${next.ms.toFixed(0)} ms (p50 ${next.p50.toFixed(2)} ms): ${(first.ms / next.ms).toFixed(2)}×; ` +
          `server CPU ${first.cpuMs} ms, then ${next.cpuMs} ms`,
      );
    } finally {
      agent.destroy();
      await server.stop();
    }
  }
} finally {
  receiver.stop();
}

const m = (k: keyof (typeof rounds)[number]) => Number(median(rounds.map((r) => r[k])).toFixed(1));
const firstMs = m("firstMs");
const pass = firstMs <= 1000;
console.log(
  `fresh server, median of ${RUNS}: start → healthy ${m("startMs")} ms; first ${N} sequential card payments ${firstMs} ms ` +
    `(p50 ${m("firstP50")} ms), the next ${N} ${m("nextMs")} ms (p50 ${m("nextP50")} ms): ${(firstMs / m("nextMs")).toFixed(2)}× the warm server; ` +
    `target ≤ 1,000 ms: ${pass ? "met" : "MISSED"}; server CPU ${m("firstCpuMs")} ms for the first, ${m("nextCpuMs")} ms for the next; ` +
    `this client's own CPU (one Node process, node:http) ${m("firstClientCpuMs")} and ${m("nextClientCpuMs")} ms`,
);
emit("warmup", {
  medianMs: firstMs,
  p50: m("firstP50"),
  warmMs: m("nextMs"),
  warmP50: m("nextP50"),
  vsWarm: Number((firstMs / m("nextMs")).toFixed(2)),
  first100Ms: m("first100"),
  warm100Ms: m("next100"),
  startMs: m("startMs"),
  cpuMs: m("firstCpuMs"),
  warmCpuMs: m("nextCpuMs"),
  clientCpuMs: m("firstClientCpuMs"),
  warmClientCpuMs: m("nextClientCpuMs"),
  runs: RUNS,
  target: "<=1000ms",
  pass,
});
