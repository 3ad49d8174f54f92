/**
 * A copy of this installed clone in a temp folder, with one thing broken the way it breaks for real
 * (docs/developing.md#nodejs-lines): the package.json, bin/, scripts/ and the built dist/ copied;
 * node_modules/ a folder of links to this clone's packages, less what the case takes away or
 * replaces. For the start-up failures' tests: nothing here is a switch that only tests can set.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./server.js";

export type Breakage =
  /** An install that never finished: node_modules/ without better-sqlite3. */
  | "sqlite-missing"
  /**
   * better-sqlite3 with an addon compiled for another machine (`npm rebuild --build-from-source` on a
   * Mac, node_modules then mounted into Linux): its build/Release/better_sqlite3.node, which the
   * package loads before its prebuilt ones, is the macOS arm64 one.
   */
  | "sqlite-foreign-addon"
  /** A clone installed without its build (`npm ci --ignore-scripts`): no dist/. */
  | "no-dist"
  /** A build that did not finish: dist/main.js without the bundle it loads. */
  | "no-bundle";

/** The copy's root. */
export function installCopy(breakage: Breakage): string {
  const root = mkdtempSync(join(tmpdir(), `paysandbox-${breakage}-`));
  for (const f of ["package.json", "bin", "scripts"]) cpSync(join(ROOT, f), join(root, f), { recursive: true });
  if (breakage !== "no-dist") {
    cpSync(join(ROOT, "dist"), join(root, "dist"), { recursive: true, filter: (src) => !src.includes(`${"/dist/"}.cache`) });
    if (breakage === "no-bundle") rmSync(join(root, "dist", "server.cjs"));
    // built after everything it was built from (scripts/freshness.mjs), so `npm start` does not build again
    writeFileSync(join(root, "dist", ".built"), String(Date.now() + 1000));
  }
  const modules = join(root, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === ".bin" || name === "better-sqlite3") continue;
    symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
  }
  if (breakage !== "sqlite-missing") {
    const real = join(ROOT, "node_modules", "better-sqlite3");
    const copy = join(modules, "better-sqlite3");
    mkdirSync(copy);
    // its own lib/ (the addon is looked for beside it) and package.json; the prebuilt addons linked
    for (const f of ["package.json", "lib"]) cpSync(join(real, f), join(copy, f), { recursive: true });
    symlinkSync(join(real, "prebuilds"), join(copy, "prebuilds"));
    if (breakage === "sqlite-foreign-addon") {
      mkdirSync(join(copy, "build", "Release"), { recursive: true });
      cpSync(join(real, "prebuilds", "darwin-arm64.node"), join(copy, "build", "Release", "better_sqlite3.node"));
    }
  }
  return root;
}
