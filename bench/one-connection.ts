/**
 * One connection, one request at a time: a card payment's latency against the insert floor's
 * (startBareFloor("insert"): a bare hono app doing one better-sqlite3 INSERT), and beside them the
 * rows floor's (startBareFloor("rows"): what the payment keeps, written by hand-prepared statements
 * in the sandbox's schema and group commit, and nothing else: the storage's own share), all three up
 * side by side and measured in turn floor, rows, sandbox, sandbox, rows, floor (then as many more
 * rounds as BENCH_ROUNDS asks), so that drift on a shared machine falls on all. The payment is
 * 4111…, no 3DS, with a callbackUrl on a local receiver (BENCH_CALLBACK=0: without one).
 *
 * Target: the payment's p50 ≤ 2× the floor's p50 (each the median of its phases' p50s). At one
 * connection a p50 follows the server's CPU a request, every thread counted
 * (docs/performance.md#one-connection), so each phase prints that too.
 * Run with `npx tsx bench/one-connection.ts` after `node scripts/build.mjs` (BENCH_DURATION=s per phase;
 * BENCH_MAIN=/other/dist/main.js measures another build, for A/B runs alternated by hand).
 * Prints {"bench":"one-connection","p50","floorP50","p50VsFloor","rowsP50","rowsVsFloor","p99","floorP99",...,"load1"}.
 */
import {
  drained,
  emit,
  load1,
  median,
  merchantToken,
  migratedDbFile,
  paymentBody,
  sequentialLatency,
  startBareFloor,
  startCountingReceiver,
  startSandbox,
} from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CALLBACK = process.env.BENCH_CALLBACK !== "0";

const receiver = await startCountingReceiver();
const floor = await startBareFloor("insert");
const rows = await startBareFloor("rows", migratedDbFile());
const sandbox = await startSandbox(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {});
try {
  const token = await merchantToken(sandbox.url);
  let run = 0;
  const phase = async (which: "floor" | "rows" | "sandbox") => {
    const prefix = `one-${++run}-`;
    const server = which === "floor" ? floor : which === "rows" ? rows : sandbox;
    const bare = which !== "sandbox";
    const r = await sequentialLatency({
      url: server.url,
      method: "POST",
      path: bare ? "/" : "/api/v1/payments/card",
      ...(bare ? {} : { headers: { authorization: token } }),
      bodyFor: (i) => paymentBody(`${prefix}${i}`, CALLBACK ? receiver.url : undefined),
      duration: DURATION,
      warmup: Math.min(1, DURATION),
      pid: server.pid,
    });
    // the webhooks of a sandbox phase are delivered before the next phase starts
    if (which === "sandbox" && CALLBACK) await drained(receiver);
    const load = load1();
    console.log(
      `${which}: p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.rps} req/s, ${r.cpuUsPerReq ?? "?"} µs server CPU/req, ` +
        `${r.errors} errors, ${r.non2xx} non-2xx (${r.loader}; load ${load})`,
    );
    return { ...r, load };
  };
  const phases = {
    floor: [] as Array<Awaited<ReturnType<typeof phase>>>,
    rows: [] as Array<Awaited<ReturnType<typeof phase>>>,
    sandbox: [] as Array<Awaited<ReturnType<typeof phase>>>,
  };
  for (let i = 0; i < ROUNDS; i++)
    for (const which of ["floor", "rows", "sandbox", "sandbox", "rows", "floor"] as const) phases[which].push(await phase(which));
  // the median of each side's phases, to 0.01 ms (or 1 µs of CPU)
  const mid = (rs: typeof phases.floor, f: (r: (typeof rs)[number]) => number, digits = 2) =>
    Number(median(rs.map(f)).toFixed(digits));
  const p50 = mid(phases.sandbox, (r) => r.p50);
  const floorP50 = mid(phases.floor, (r) => r.p50);
  const rowsP50 = mid(phases.rows, (r) => r.p50);
  const ratio = floorP50 > 0 ? p50 / floorP50 : 0;
  const rowsRatio = floorP50 > 0 ? rowsP50 / floorP50 : 0;
  const broken = [...phases.floor, ...phases.rows, ...phases.sandbox].some((r) => r.errors > 0 || r.non2xx > 0);
  console.log(
    `one connection, card payment${CALLBACK ? " with a webhook" : " without a callback"}: p50 ${p50} ms against the insert floor's ${floorP50} ms: ` +
      `${ratio.toFixed(2)}× (target ≤ 2×: ${ratio <= 2 && !broken ? "met" : "MISSED"}); the payment's rows alone ${rowsP50} ms: ${rowsRatio.toFixed(2)}×`,
  );
  emit("one-connection", {
    callback: CALLBACK,
    p50,
    floorP50,
    p50VsFloor: Number(ratio.toFixed(2)),
    rowsP50,
    rowsVsFloor: Number(rowsRatio.toFixed(2)),
    p99: mid(phases.sandbox, (r) => r.p99),
    floorP99: mid(phases.floor, (r) => r.p99),
    cpuUsPerReq: mid(phases.sandbox, (r) => r.cpuUsPerReq ?? 0, 0),
    floorCpuUsPerReq: mid(phases.floor, (r) => r.cpuUsPerReq ?? 0, 0),
    rowsCpuUsPerReq: mid(phases.rows, (r) => r.cpuUsPerReq ?? 0, 0),
    phases: ROUNDS * 6,
    floorLoads: phases.floor.map((r) => r.load).join("/"),
    loads: phases.sandbox.map((r) => r.load).join("/"),
    loader: phases.sandbox[0]?.loader,
    target: "p50<=2x floor's",
    pass: ratio <= 2 && !broken,
  });
  if (broken) process.exitCode = 1;
} finally {
  await sandbox.stop();
  await rows.stop();
  await floor.stop();
  receiver.stop();
}
