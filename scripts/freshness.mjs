// Whether dist/ is current: built after every input last changed (src/, the build scripts, the
// package and lock files, the installed dependencies). A few hundred stat calls (~5 ms), so
// `npm start` on a built tree does not rebuild (docs/performance.md). The stamp, dist/.built, holds the time
// the build began: a file saved during a build is newer than it, and the next start builds again.
// Paths are relative to `root`, the package root by default (npm runs scripts there).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** dist/'s stamp file, relative to dist/. */
export const STAMP = ".built";

const INPUTS = [
  "src",
  "scripts/build.mjs",
  "scripts/dist-main.mjs",
  "scripts/freshness.mjs",
  "package.json",
  "package-lock.json",
  "node_modules/.package-lock.json",
];

function newestInput(root) {
  let newest = 0;
  const visit = (path) => {
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of INPUTS) visit(join(root, p));
  return newest;
}

export function distIsCurrent(root = ".") {
  const dist = join(root, "dist");
  if (!existsSync(join(dist, STAMP)) || !existsSync(join(dist, "main.js"))) return false;
  const built = Number(readFileSync(join(dist, STAMP), "utf8"));
  return Number.isFinite(built) && newestInput(root) < built;
}
