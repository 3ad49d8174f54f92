/**
 * `npm start` stops the way docs/configuration.md#state-and-logs says: `kill $!` after `npm start &`
 * (SIGTERM to npm) and Ctrl-C (SIGINT to the terminal's whole process group) end npm, its shell and
 * the server within 2 s, through the server's own clean shutdown, and leave the port free. npm
 * passes the signal only to the shell it runs the script in, which dies of it without passing it on
 * (bin/launcher.js). Skipped only when npm is absent.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createConnection } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { alive, commandOf, processTree } from "../helpers/process-tree.js";
import { ROOT, tempDbPath } from "../helpers/server.js";

const npm = (() => {
  try {
    execFileSync("npm", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!npm) console.warn("npm-start.e2e: skipped, npm is not on PATH");

let started: { proc: ChildProcess; tree: number[] } | undefined;
afterEach(() => {
  // whatever is left of a failed case: its process group, and anything that left it
  if (!started) return;
  for (const pid of alive(started.tree)) process.kill(pid, "SIGKILL");
  started = undefined;
});

/** `npm start` in its own process group (as a terminal's job is), until it says where it listens. */
async function npmStart(dbPath: string) {
  const proc = spawn("npm", ["start", "--", "--port", "0", "--host", "127.0.0.1", "--db", dbPath], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  const closed = Promise.all(
    [proc.stdout, proc.stderr].map((s) => new Promise<void>((resolve) => s?.on("close", () => resolve()))),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${out}`)), 30_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout?.on("data", read);
    proc.stderr?.on("data", read);
    proc.on("exit", (code) => reject(new Error(`npm start exited ${code}:\n${out}`)));
  });
  const tree = processTree(proc.pid as number);
  started = { proc, tree };
  // the server itself, a node process under npm's shell
  expect(tree.length, tree.map(commandOf).join("\n")).toBeGreaterThanOrEqual(3);
  return { proc, port, tree, output: () => out, closed };
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

describe.skipIf(!npm)("npm start stops on a signal (docs/configuration.md#state-and-logs)", () => {
  it.each([
    ["kill $! (SIGTERM to npm)", "SIGTERM", "npm"],
    ["Ctrl-C (SIGINT to the process group)", "SIGINT", "group"],
  ] as const)(
    "%s: npm, its shell and the server end within 2 s, shut down cleanly; the port is free",
    async (_, signal, to) => {
      const dbPath = tempDbPath();
      const s = await npmStart(dbPath);
      const t0 = performance.now();
      process.kill(to === "group" ? -(s.proc.pid as number) : (s.proc.pid as number), signal);
      // every process that holds the pipes npm was given (npm, its shell, the server) has ended, or
      // a deadline far past the promise passed (then the assertions below say what is left)
      await Promise.race([s.closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      const ms = performance.now() - t0;
      expect(alive(s.tree).map(commandOf)).toEqual([]);
      expect(ms).toBeLessThan(2000);
      expect(await refused(s.port)).toBe(true);
      // the server's own shutdown ran: it said so, and closed its database (no write-ahead log left)
      expect(s.output()).toContain(`${signal}: shutting down`);
      expect(existsSync(`${dbPath}-wal`)).toBe(false);
    },
    60_000,
  );
});
