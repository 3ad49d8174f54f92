/** How long the sandbox takes to start, and what it holds once started, beside the floors no start goes under. */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { median } from "./report.js";
import { firstOk, freePort, MAIN, ROOT, spawnNode, tempDir } from "./servers.js";

/**
 * Cold start: ms from spawning `node dist/main.js start` (fresh db file each run: migrations
 * included) to the first 200 of /_sandbox/health, and the server's RSS once it has sat idle for
 * `idleMs` after that answer. Each run is paired with a spawn of `node -e ''` to its exit, and with
 * the same two measures of a bare node:http server answering every request with 200 (HTTP_FLOOR):
 * the floors no start, and no server's RSS, can go under on this machine at that moment. Medians of `runs`.
 */
export async function coldStart(
  runs = 5,
  idleMs = 1000,
): Promise<{
  medianMs: number;
  runsMs: number[];
  idleRssMb: number;
  nodeFloorMs: number;
  httpFloorMs: number;
  httpFloorRssMb: number;
}> {
  if (!existsSync(MAIN)) throw new Error("dist/main.js is missing: run `npm run build` (npm run bench does)");
  const runsMs: number[] = [];
  const rss: number[] = [];
  const floor: number[] = [];
  const httpMs: number[] = [];
  const httpRss: number[] = [];
  /** Spawn → first 200 of `/_sandbox/health`, then RSS after `idleMs`, of `node ...args` (the port appended). */
  const timeToHealth = async (args: string[], env: Record<string, string>) => {
    const port = await freePort();
    const t0 = performance.now();
    const { proc, output, kill } = spawnNode([...args, String(port)], env);
    try {
      const ms = Math.round(await firstOk(`http://127.0.0.1:${port}/_sandbox/health`, t0, proc, output));
      await delay(idleMs);
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1] ?? 0);
      return { ms, rssMb: Math.round(kb / 1024) };
    } finally {
      await kill();
    }
  };
  // one discarded start first: a build's first run writes the V8 code cache later starts read
  // (scripts/dist-main.mjs), as the first start after any build or install does
  for (let r = -1; r < runs; r++) {
    const f0 = performance.now();
    await new Promise((resolve) => spawn(process.execPath, ["-e", ""], { stdio: "ignore" }).once("exit", resolve));
    floor.push(Math.round(performance.now() - f0));
    const dir = tempDir();
    try {
      const run = await timeToHealth([MAIN, "start", "--host", "127.0.0.1", "--db", join(dir, "sandbox.db"), "--port"], {
        LOG_LEVEL: "warn",
      });
      const bare = await timeToHealth(["-e", HTTP_FLOOR], {});
      if (r >= 0) {
        runsMs.push(run.ms);
        rss.push(run.rssMb);
        httpMs.push(bare.ms);
        httpRss.push(bare.rssMb);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    medianMs: median(runsMs),
    runsMs,
    idleRssMb: median(rss),
    nodeFloorMs: median(floor),
    httpFloorMs: median(httpMs),
    httpFloorRssMb: median(httpRss),
  };
}

/** A bare node:http server on the port given as its last argument, answering every request 200 with a small JSON body. */
const HTTP_FLOOR = `require("node:http").createServer((q, s) => { s.setHeader("content-type", "application/json"); s.end('{"status":"ok"}'); }).listen(Number(process.argv.at(-1)), "127.0.0.1");`;

/**
 * `npm start` → the first 200 of health on the built tree, as a user runs it (npm, then
 * scripts/start.mjs: a freshness check and the server in one process); the median of `runs`.
 * Each run is paired with `npm start` in a folder whose package.json starts `node -e ''`, to its
 * exit: npm's own cost, which no `npm start` can go under on this machine at that moment (`npmFloorMs`).
 */
export async function npmStartMs(runs = 5): Promise<{ medianMs: number; runsMs: number[]; npmFloorMs: number }> {
  const runsMs: number[] = [];
  const floor: number[] = [];
  const empty = tempDir();
  writeFileSync(
    join(empty, "package.json"),
    JSON.stringify({ name: "npm-floor", private: true, scripts: { start: "node -e ''" } }),
  );
  for (let r = 0; r < runs; r++) {
    const f0 = performance.now();
    await new Promise((resolve) => spawn("npm", ["start"], { cwd: empty, stdio: "ignore" }).once("exit", resolve));
    floor.push(Math.round(performance.now() - f0));
    const dir = tempDir();
    const port = await freePort();
    const t0 = performance.now();
    const proc = spawn("npm", ["start", "--", "--port", String(port), "--host", "127.0.0.1", "--db", join(dir, "sandbox.db")], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: "ignore",
      detached: true, // npm's own process group: stopping it stops the server it runs
    });
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    try {
      runsMs.push(Math.round(await firstOk(`http://127.0.0.1:${port}/_sandbox/health`, t0, proc, () => "")));
    } finally {
      if (proc.pid !== undefined && proc.exitCode === null) process.kill(-proc.pid, "SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }
  rmSync(empty, { recursive: true, force: true });
  return { medianMs: median(runsMs), runsMs, npmFloorMs: median(floor) };
}
