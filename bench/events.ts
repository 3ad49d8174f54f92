/**
 * Live events (docs/events.md), against the real built server on a WAL SQLite file:
 * 1. card payments per second (a callbackUrl on a local receiver, so each payment writes two events:
 *    its status and its webhook attempt) with no listener and with 10 listeners attached, in the same
 *    server, alternated (0, 10, 0, 10) so drift on a shared machine falls on both; the listeners are
 *    `curl -sN | awk` (C, so that on a 2-core machine their own CPU is not taken for the server's),
 *    count the events they receive and must all receive the same ones, up to a clock move after the run;
 *    the server's CPU µs per payment is given with each (the figure that other work on the machine
 *    moves least);
 * 2. event latency at 1,000 payments/s (paced, 10 every 10 ms): from sending the payment (its commit
 *    is before its answer, so this bounds "committed → received" from above) to the listener having
 *    its `transaction` event, p50/p99; also from the answer;
 * 3. zero lost: one listener drops its connection 20 times while payments run and resumes with
 *    Last-Event-ID, then the server is killed (-9) under load and restarted on the same file, and the
 *    listener resumes again; what it got is compared with everything the server holds (since=0):
 *    missing, doubled, out of order.
 *
 * Targets: ≤ 5% throughput loss with 10 listeners; latency p99 ≤ 50 ms at 1,000 payments/s; zero
 * events lost across 20 reconnects and a kill -9.
 * Run with `npx tsx bench/events.ts` after `node scripts/build.mjs` (BENCH_DURATION=s per phase).
 * Prints JSON lines {"bench":"events-throughput",...}, {"bench":"events-latency",...}, {"bench":"events-resume",...}.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, type IncomingMessage, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { SseParser } from "../src/cli/sse.js";
import {
  emit,
  merchantToken,
  paymentBody,
  paymentLoad,
  percentile,
  type Running,
  startCountingReceiver,
  startSandbox,
} from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 32;
const LISTENERS = 10;

/** A listener that counts the events it received (their `id:` lines); `close()` says how many, and the last id. */
interface Counter {
  close(): Promise<{ count: number; lastId: number }>;
}

/**
 * A listener as light as a client can be, so that on a small machine the listeners' own CPU does
 * not pass for the server's: `curl -sN` into mawk, which counts the `id:` lines and keeps the last
 * id (both C); `close()` waits for its end (`--max-time`) and answers what it saw.
 */
function counter(base: string, query: string, seconds: number): Promise<Counter> {
  const url = `${base}/_sandbox/events${query}`;
  // curl ends by itself after `seconds` (nothing is killed by name); awk then prints its count
  const script = `curl -sN --max-time ${seconds} '${url}' | awk '/^id: /{n++; last=$2} END{print n+0, last+0}'`;
  const proc = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  proc.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  return Promise.resolve({
    async close() {
      await exited;
      const [count, last] = out.trim().split(/\s+/).map(Number);
      return { count: count ?? 0, lastId: last ?? 0 };
    },
  });
}

/** A listener that parses (for latency and for checking ids); `onEvent` per event. */
function follower(
  base: string,
  headers: Record<string, string>,
  onEvent: (id: string, event: string, data: string) => void,
): Promise<{ res: IncomingMessage; close(): void; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/_sandbox/events`, { agent: false, headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events answered ${res.statusCode}`));
      const parser = new SseParser((e) => onEvent(e.id, e.event, e.data));
      res.setEncoding("utf8");
      res.on("data", (d: string) => parser.feed(d));
      const ended = new Promise<void>((done) => {
        res.on("close", done);
        res.on("error", () => done());
      });
      resolve({ res, close: () => req.destroy(), ended });
    });
    req.on("error", (err) => reject(err));
    req.end();
  });
}

/** Moves the clock a second and answers the id of that `clock` event: the newest event of the server. */
async function marker(base: string): Promise<number> {
  let found: (id: number) => void = () => undefined;
  const got = new Promise<number>((resolve) => {
    found = resolve;
  });
  // a stream without since starts after the newest event: the first clock event it sees is this one
  const f = await follower(base, {}, (id, event) => {
    if (event === "clock") found(Number(id));
  });
  const res = await fetch(`${base}/_sandbox/clock/advance`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ by: "PT1S" }),
  });
  if (!res.ok) throw new Error(`advance answered ${res.status}`);
  const id = await got;
  f.close();
  return id;
}

/** POSTs payments at `perSecond` (bursts every 10 ms) for `seconds`; calls back with timings. */
async function paced(
  base: string,
  token: string,
  perSecond: number,
  seconds: number,
  callbackUrl: string | undefined,
  onAnswer: (sentAt: number, answeredAt: number, transactionId: string | undefined) => void,
  stop?: () => boolean,
): Promise<{ sent: number; ok: number; failed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const u = new URL(base);
  let sent = 0;
  let ok = 0;
  let failed = 0;
  let seq = 0;
  const inflight = new Set<Promise<void>>();
  const one = () => {
    const body = paymentBody(`ev-${process.pid}-${Date.now()}-${++seq}`, callbackUrl);
    const sentAt = performance.now();
    sent++;
    const p = new Promise<void>((done) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: "/api/v1/payments/card",
          method: "POST",
          agent,
          headers: { "content-type": "application/json", authorization: token, "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => {
            text += d;
          });
          res.on("end", () => {
            const answeredAt = performance.now();
            if (res.statusCode === 200) {
              ok++;
              onAnswer(sentAt, answeredAt, (JSON.parse(text) as { transactionId?: string }).transactionId);
            } else failed++;
            done();
          });
        },
      );
      req.on("error", () => {
        failed++;
        done();
      });
      req.end(body);
    });
    inflight.add(p);
    void p.then(() => inflight.delete(p));
  };
  const t0 = performance.now();
  const perTick = perSecond / 100;
  let due = 0;
  for (let tick = 0; performance.now() - t0 < seconds * 1000 && !stop?.(); tick++) {
    due += perTick;
    while (due >= 1) {
      one();
      due--;
    }
    const next = t0 + (tick + 1) * 10;
    const wait = next - performance.now();
    if (wait > 0) await delay(wait);
  }
  await Promise.all(inflight);
  agent.destroy();
  return { sent, ok, failed };
}

const receiver = await startCountingReceiver();
const servers: Running[] = [];
let broken = false;
try {
  // 1. throughput with 0 and 10 listeners, alternated, in one server
  const sandbox = await startSandbox();
  servers.push(sandbox);
  const token = await merchantToken(sandbox.url);
  const payments = (duration: number) =>
    paymentLoad(sandbox, { token, callbackUrl: receiver.url, connections: CONNECTIONS, duration });
  await payments(WARMUP);
  const bare: Awaited<ReturnType<typeof payments>>[] = [];
  const listened: Awaited<ReturnType<typeof payments>>[] = [];
  const counts: number[][] = [];
  for (let round = 0; round < 2; round++) {
    bare.push(await payments(DURATION));
    // all from the same event on (webhook attempts of the last run may still be being recorded)
    const from = await marker(sandbox.url);
    const counters = await Promise.all(
      Array.from({ length: LISTENERS }, () => counter(sandbox.url, `?since=${from}`, DURATION + 5)),
    );
    listened.push(await payments(DURATION));
    // every listener gets every event: each must have reached the newest (a clock move after the run)
    const newest = await marker(sandbox.url);
    const got = await Promise.all(counters.map((c) => c.close()));
    counts.push(got.map((g) => (g.lastId >= newest ? g.count : -g.count)));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rps0 = Math.round(mean(bare.map((r) => r.rps)));
  const rps10 = Math.round(mean(listened.map((r) => r.rps)));
  const cpu0 = Math.round(mean(bare.map((r) => r.cpuUsPerReq ?? 0)));
  const cpu10 = Math.round(mean(listened.map((r) => r.cpuUsPerReq ?? 0)));
  const loss = rps0 > 0 ? 1 - rps10 / rps0 : 0;
  // a negative count: that listener had not reached the newest event when closed
  const allSame = counts.every((round) => round.every((n) => n === round[0] && n > 0));
  const tpPass = loss <= 0.05 && allSame;
  for (const r of [...bare, ...listened]) if (r.errors > 0 || r.non2xx > 0) broken = true;
  console.log(
    `card payments, ${CONNECTIONS} connections: ${rps0} req/s with no listener (runs ${bare.map((r) => r.rps).join(", ")}; ${cpu0} µs CPU/req), ` +
      `${rps10} req/s with ${LISTENERS} listeners (runs ${listened.map((r) => r.rps).join(", ")}; ${cpu10} µs CPU/req): ` +
      `${(loss * 100).toFixed(1)}% loss; each listener received ${counts.map((c) => c[0]).join(" and ")} events, ` +
      `${allSame ? "all the same" : `NOT all the same: ${JSON.stringify(counts)}`} (target ≤ 5% loss: ${tpPass ? "met" : "MISSED"})`,
  );
  emit("events-throughput", {
    rps: rps10,
    floorRps: rps0,
    ratio: Number((rps10 / Math.max(1, rps0)).toFixed(3)),
    lossPct: Number((loss * 100).toFixed(1)),
    cpuUsPerReq: cpu10,
    cpuUsPerReqNoListener: cpu0,
    p99: Math.max(...listened.map((r) => r.p99)),
    listeners: LISTENERS,
    eventsPerListener: counts.map((c) => c[0]).join("+"),
    allListenersEqual: allSame,
    target: "loss<=5%",
    pass: tpPass,
    loader: bare[0]?.loader,
  });

  // 2. latency at 1,000 payments/s with the 10 listeners attached (one of them times)
  const sentAt = new Map<string, { sent: number; answered: number }>();
  const eventAt = new Map<string, number>();
  const fromSend: number[] = [];
  const fromAnswer: number[] = [];
  const sample = (tx: string) => {
    const s = sentAt.get(tx);
    const e = eventAt.get(tx);
    if (s === undefined || e === undefined) return;
    fromSend.push(e - s.sent);
    fromAnswer.push(Math.max(0, e - s.answered));
    sentAt.delete(tx);
    eventAt.delete(tx);
  };
  const others = await Promise.all(Array.from({ length: LISTENERS - 1 }, () => counter(sandbox.url, "", DURATION + 3)));
  const timing = await follower(sandbox.url, {}, (_id, event, data) => {
    if (event !== "transaction") return;
    const tx = (JSON.parse(data) as { transactionId: string }).transactionId;
    eventAt.set(tx, performance.now());
    sample(tx);
  });
  const RATE = 1_000;
  const paced1 = await paced(sandbox.url, token, RATE, DURATION, receiver.url, (sent, answered, tx) => {
    if (!tx) return;
    sentAt.set(tx, { sent, answered });
    sample(tx);
  });
  const t1 = performance.now();
  while (sentAt.size > 0 && performance.now() - t1 < 10_000) await delay(20);
  timing.close();
  for (const c of others) await c.close();
  const p50 = Number(percentile(fromSend, 50).toFixed(2));
  const p99 = Number(percentile(fromSend, 99).toFixed(2));
  const a50 = Number(percentile(fromAnswer, 50).toFixed(2));
  const a99 = Number(percentile(fromAnswer, 99).toFixed(2));
  const missing = sentAt.size;
  const latPass = p99 <= 50 && missing === 0 && paced1.failed === 0;
  if (paced1.failed > 0) broken = true;
  console.log(
    `event latency at ${RATE} payments/s (${paced1.ok} in ${DURATION} s, ${LISTENERS} listeners): payment sent → its event received ` +
      `p50 ${p50} ms, p99 ${p99} ms; answer → event p50 ${a50} ms, p99 ${a99} ms; ${missing} events never came ` +
      `(target p99 ≤ 50 ms: ${latPass ? "met" : "MISSED"})`,
  );
  emit("events-latency", {
    p50,
    p99,
    fromAnswerP50: a50,
    fromAnswerP99: a99,
    rps: Math.round(paced1.ok / DURATION),
    samples: fromSend.length,
    missing,
    errors: paced1.failed,
    target: "p99<=50ms@1000/s",
    pass: latPass,
  });
  await sandbox.stop();
  servers.pop();

  // 3. zero lost across 20 reconnects and a kill -9
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-bench-events-"));
  const dbPath = join(dir, "sandbox.db");
  try {
    let server = await startSandbox({ dbPath });
    servers.push(server);
    let t = await merchantToken(server.url);
    const seen: Array<{ id: string; data: string }> = [];
    let lastId = "0";
    const take = (id: string, _event: string, data: string) => {
      seen.push({ id, data });
      lastId = id;
    };
    let stopLoad = false;
    let loadRun = paced(
      server.url,
      t,
      300,
      3600,
      undefined,
      () => undefined,
      () => stopLoad,
    );
    for (let i = 0; i < 20; i++) {
      const f = await follower(server.url, { "Last-Event-ID": lastId }, take);
      await delay(150);
      f.close();
      await f.ended;
    }
    const during = await follower(server.url, { "Last-Event-ID": lastId }, take);
    await delay(300);
    process.kill(server.pid, "SIGKILL");
    await during.ended;
    stopLoad = true;
    await loadRun;
    await server.stop();
    servers.pop();
    server = await startSandbox({ dbPath });
    servers.push(server);
    t = await merchantToken(server.url);
    const after = await follower(server.url, { "Last-Event-ID": lastId }, take);
    stopLoad = false;
    loadRun = paced(server.url, t, 300, 1, undefined, () => undefined);
    await loadRun;
    const newest = await marker(server.url);
    const t2 = performance.now();
    while (Number(lastId) < newest && performance.now() - t2 < 30_000) await delay(20);
    after.close();
    const truth: Array<{ id: string; data: string }> = [];
    const all = await follower(server.url, { "Last-Event-ID": "0" }, (id, _e, data) => {
      if (Number(id) <= newest) truth.push({ id, data });
    });
    const t3 = performance.now();
    while ((truth.at(-1)?.id ?? "0") !== String(newest) && performance.now() - t3 < 30_000) await delay(20);
    all.close();
    const seenIds = seen.map((e) => e.id);
    const seenSet = new Set(seenIds);
    const lost = truth.filter((e) => !seenSet.has(e.id)).length;
    const doubled = seenIds.length - seenSet.size;
    let disorder = 0;
    for (let i = 1; i < seenIds.length; i++) if (Number(seenIds[i]) <= Number(seenIds[i - 1])) disorder++;
    const byId = new Map(truth.map((e) => [e.id, e.data]));
    const changed = seen.filter((e) => byId.has(e.id) && byId.get(e.id) !== e.data).length;
    const extra = seen.filter((e) => !byId.has(e.id)).length;
    const resumePass = lost === 0 && doubled === 0 && disorder === 0 && changed === 0 && extra === 0 && truth.length > 0;
    console.log(
      `resume: ${truth.length} events written across 20 reconnects and a kill -9 with a restart; the listener got ${seen.length}: ` +
        `${lost} lost, ${doubled} doubled, ${disorder} out of order, ${changed} different, ${extra} unknown (target zero lost: ${resumePass ? "met" : "MISSED"})`,
    );
    emit("events-resume", {
      total: truth.length,
      received: seen.length,
      lost,
      doubled,
      outOfOrder: disorder,
      errors: changed + extra,
      target: "0 lost, 20 reconnects + kill -9",
      pass: resumePass,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  for (const s of servers) await s.stop();
  receiver.stop();
}

if (broken) {
  console.error("some requests failed (errors or non-2xx): the numbers above are not valid");
  process.exitCode = 1;
}
