/**
 * A driver for profiling creates and forks (docs/performance.md "Sandboxes at once"): one built
 * server (`BENCH_MAIN` or dist/main.js) on a file (`PROFILE_STORAGE=file`) or `:memory:`, the small
 * world loaded from BENCH_WORLD_DIR/small.paysandbox, a warm-up, then 300 creates and 100 forks of
 * the world from 16 clients, each window's CLOCK_MONOTONIC bounds written to `<dir>/windows.json`
 * (the server's `--cpu-prof` samples share that clock, so bench/ab/profile-summary.ts can keep only
 * the samples inside a window), then the first request to each (`first-create`, `first-fork`: what
 * opens it). The server's CPU a call is printed.
 *
 *   BENCH_WORLD_DIR=/tmp/pw-worlds PROFILE_DIR=/tmp/sc-prof npx tsx bench/ab/storm-profile.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { type Answer, timedCall as call, fromClients, percentile, processCpuMs, startSandbox } from "../lib.js";

const dir = process.env.PROFILE_DIR ?? "/tmp/sc-prof";
const storage = process.env.PROFILE_STORAGE ?? "memory";
const profile = process.env.PROFILE_CPU !== "0";
const small = readFileSync(join(process.env.BENCH_WORLD_DIR ?? "/tmp/pw-worlds", "small.paysandbox"));
mkdirSync(dir, { recursive: true });

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const idOf = (a: Answer) => (JSON.parse(a.body) as { id: string }).id;

/** POST a snapshot file, timed to the last byte of the answer. */
const postFile = (agent: Agent, url: string, file: Buffer) =>
  call(agent, "POST", url, file, { "content-type": "application/vnd.paysandbox.snapshot" });

/** `n` calls from 16 clients at once, each answered 201 with an id; each call's ms, and the ids. */
async function storm(n: number, one: (a: Agent, i: number) => Promise<Answer>): Promise<{ ms: number[]; ids: string[] }> {
  const answers = await fromClients(16, n, async (a, i) => {
    const answer = await one(a, i);
    if (answer.status !== 201) throw new Error(`${answer.status} ${answer.body}`);
    return answer;
  });
  return { ms: answers.map((a) => a.ms), ids: answers.map(idOf) };
}

const server = await startSandbox({
  ...(process.env.BENCH_MAIN ? { main: process.env.BENCH_MAIN } : {}),
  ...(storage === "memory" ? { dbPath: ":memory:" } : {}),
  nodeArgs: profile ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [],
});
const sandboxes = `${server.url}/_sandbox/sandboxes`;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const windows: Record<string, [number, number]> = {};
try {
  const smallId = idOf(await postFile(agent, `${sandboxes}?name=small&ttl=P1D`, small));
  const del = (ids: string[]) =>
    storm(ids.length, async (a, i) => {
      const r = await call(a, "DELETE", `${sandboxes}/${ids[i]}?force=true`);
      return { ...r, status: r.status === 204 ? 201 : r.status, body: `{"id":"${ids[i]}"}` };
    });
  const warm = await storm(40, (a, i) => call(a, "POST", sandboxes, i % 2 ? { ttl: "PT10M" } : { from: smallId, ttl: "PT10M" }));
  await del(warm.ids);
  for (const [tag, n, body] of [
    ["create", 300, () => ({ ttl: "PT10M" })],
    ["fork", 100, () => ({ from: smallId, ttl: "PT10M" })],
  ] as const) {
    await new Promise((r) => setTimeout(r, 1500));
    const cpu0 = processCpuMs(server.pid) ?? 0;
    const t0 = nowUs();
    const { ms, ids } = await storm(n, (a) => call(a, "POST", sandboxes, body()));
    windows[tag] = [t0, nowUs()];
    const cpu = (processCpuMs(server.pid) ?? 0) - cpu0;
    console.log(
      `${storage} ${tag}: p50 ${percentile(ms, 50).toFixed(1)} p99 ${percentile(ms, 99).toFixed(1)} ms; server CPU ${(cpu / n).toFixed(2)} ms a call (all threads); load ${loadavg()[0]?.toFixed(1)}`,
    );
    // then the first request to each (GET its clock), 16 clients: what opens it
    await new Promise((r) => setTimeout(r, 1500));
    const cpu1 = processCpuMs(server.pid) ?? 0;
    const t1 = nowUs();
    const first = await storm(n, async (a, i) => {
      const r = await call(a, "GET", `${server.url}/sandboxes/${ids[i]}/_sandbox/clock`);
      return { ...r, status: r.status === 200 ? 201 : r.status, body: `{"id":"${ids[i]}"}` };
    });
    windows[`first-${tag}`] = [t1, nowUs()];
    const cpuFirst = (processCpuMs(server.pid) ?? 0) - cpu1;
    console.log(
      `${storage} first request after a ${tag}: p50 ${percentile(first.ms, 50).toFixed(1)} p99 ${percentile(first.ms, 99).toFixed(1)} ms; server CPU ${(cpuFirst / n).toFixed(2)} ms a call`,
    );
    await del(ids);
  }
} finally {
  agent.destroy();
  await server.stop();
}
writeFileSync(join(dir, "windows.json"), JSON.stringify(windows));
