/**
 * Starts the real server the way the docs do (the `paysandbox start` command over the built
 * dist/, which `npm ci`/`npm start` build) on a free port, and stops it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkServer } from "./conformance.js";

export interface RunningServer {
  url: string;
  port: number;
  dbPath: string;
  proc: ChildProcess;
  output: () => string;
  /** SIGTERM, resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export const ROOT = new URL("../../", import.meta.url).pathname;

export function tempDbPath(): string {
  return join(mkdtempSync(join(tmpdir(), "paysandbox-")), "sandbox.db");
}

export async function startServer(
  opts: { args?: string[]; env?: Record<string, string>; dbPath?: string; nodeArgs?: string[] } = {},
): Promise<RunningServer> {
  const dbPath = opts.dbPath ?? tempDbPath();
  const proc = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      "bin/paysandbox.js",
      "start",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--db",
      dbPath,
      ...(opts.args ?? []),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "info", ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 15_000);
    const check = () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout?.on("data", check);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  // every answer the suite's fetch gets from this server is checked against its /openapi.json
  checkServer(`http://127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dbPath,
    proc,
    output: () => out,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI to completion (for start-up failures): exit code and output. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ["bin/paysandbox.js", ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let output = "";
    proc.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    proc.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A JSON call to a running server: status and parsed body (null when the answer is not JSON). */
export async function call(method: string, url: string, body?: unknown, auth?: string) {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field by the tests
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}
