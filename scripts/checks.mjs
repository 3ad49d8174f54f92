#!/usr/bin/env node
// The static checks of `npm test`, at once: `npm run typecheck` (tsc, one core for ~35 s) beside
// `npm run lint` and `npm run lint:deps`, instead of one after another. Each one's output is
// printed whole, in that order, once it ends; the exit status is 1 when any failed.
// Usage: node scripts/checks.mjs
import { spawn } from "node:child_process";

const CHECKS = ["typecheck", "lint", "lint:deps"];
const npm = process.env.npm_execpath;

function run(script) {
  // npm's own CLI when run by npm (npm_execpath), the npm on PATH otherwise
  const [cmd, args] = npm ? [process.execPath, [npm, "run", "--silent", script]] : ["npm", ["run", "--silent", script]];
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => resolve({ script, code, output }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const { script, code, output } of results) {
  process.stdout.write(`> npm run ${script}: ${code === 0 ? "ok" : `failed (exit ${code})`}\n${output}`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
