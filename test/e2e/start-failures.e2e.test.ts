/**
 * A start that cannot go on says what to do in one line on stderr and exits 1, with no stack trace,
 * by every way of starting: `paysandbox` (bin/paysandbox.js), `npm start` and `node dist/main.js`
 * (bin/startup-failure.js, docs/developing.md#nodejs-lines). Each condition is the real one, made in
 * a copy of this installed clone (test/helpers/install-copy.ts): an install without better-sqlite3,
 * better-sqlite3 with an addon compiled for another machine, a build that did not finish, a clone
 * never built; and, in this clone, a --db that is no database.
 */
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Breakage, installCopy } from "../helpers/install-copy.js";
import { ROOT, tempDbPath } from "../helpers/server.js";

type Way = "paysandbox" | "npm start" | "node dist/main.js";

const COMMANDS: Record<Way, [string, string[]]> = {
  paysandbox: [process.execPath, ["bin/paysandbox.js", "start"]],
  "npm start": ["npm", ["start", "--"]],
  "node dist/main.js": [process.execPath, ["dist/main.js", "start"]],
};

function start(way: Way, cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [cmd, first] = COMMANDS[way];
  return new Promise((resolve) => {
    const proc = spawn(cmd, [...first, "--port", "0", "--host", "127.0.0.1", ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "warn" },
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    proc.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    // a start that does not fail is ended, and fails the case on its exit code
    const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    proc.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Exit 1, and stderr is exactly that one line: no stack frame, no second line. */
async function failsWithOneLine(way: Way, cwd: string, args: string[], line: RegExp) {
  const r = await start(way, cwd, args);
  const said = `${way} in ${cwd}:\n${r.stderr}`;
  expect(r.code, said).toBe(1);
  expect(r.stderr, said).not.toMatch(/^\s+at /m);
  expect(r.stderr.trimEnd().split("\n"), said).toHaveLength(1);
  expect(r.stderr.trimEnd(), said).toMatch(line);
}

const ALL: Way[] = ["paysandbox", "npm start", "node dist/main.js"];

const CASES: Array<[Breakage, Way[], RegExp]> = [
  ["sqlite-missing", ALL, /^paysandbox: better-sqlite3 is not installed: run `npm ci`/],
  [
    "sqlite-foreign-addon",
    ALL,
    /^paysandbox: better-sqlite3 cannot load its native addon on Node [\d.]+ \(.*better_sqlite3\.node: invalid ELF header\): run `npm ci` with this Node$/,
  ],
  ["no-bundle", ALL, /^paysandbox: the build is missing dist\/server\.cjs: run `npm run build`/],
  // (`npm start` builds a clone that has no dist/; `node dist/main.js` without it is Node's own error)
  ["no-dist", ["paysandbox"], /^paysandbox: the build is missing dist\/main\.js: run `npm run build`/],
];

describe("start-up failures: one line and exit 1, every way of starting", () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const root of copies) rmSync(root, { recursive: true, force: true });
  });

  it.each(CASES)(
    "%s",
    async (breakage, ways, line) => {
      const root = installCopy(breakage);
      copies.push(root);
      for (const way of ways) await failsWithOneLine(way, root, ["--db", ":memory:"], line);
    },
    120_000,
  );

  it("a --db that is no database, or cannot be made", async () => {
    const notDb = join(tempDbPath(), "..", "notes.txt");
    writeFileSync(notDb, "shopping list\n".repeat(100));
    for (const way of ALL) {
      await failsWithOneLine(
        way,
        ROOT,
        ["--db", notDb],
        /^paysandbox: cannot open the database .*notes\.txt \(--db, SANDBOX_DB\): file is not a database$/,
      );
    }
    const blocked = join(notDb, "sandbox.db"); // its folder is a file already
    await failsWithOneLine(
      "paysandbox",
      ROOT,
      ["--db", blocked],
      /^paysandbox: cannot open the database .*notes\.txt\/sandbox\.db \(--db, SANDBOX_DB\): EEXIST: file already exists, mkdir /,
    );
  }, 120_000);
});
