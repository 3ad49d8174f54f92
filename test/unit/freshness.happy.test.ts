/**
 * `npm start` rebuilds only a stale dist/ (scripts/freshness.mjs): current after a build,
 * stale once any input is newer than the build's stamp, or when dist/ is incomplete.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script, no types
import { distIsCurrent, STAMP } from "../../scripts/freshness.mjs";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A package tree whose inputs were last written at `inputsAt` and built at `builtAt` (ms). */
function tree(inputsAt: number, builtAt: number): string {
  const root = mkdtempSync(join(tmpdir(), "paysandbox-fresh-"));
  roots.push(root);
  mkdirSync(join(root, "src", "modules"), { recursive: true });
  mkdirSync(join(root, "dist"));
  for (const f of ["src/main.ts", "src/modules/a.ts", "package.json", "package-lock.json"]) {
    writeFileSync(join(root, f), "x");
    utimesSync(join(root, f), inputsAt / 1000, inputsAt / 1000);
  }
  writeFileSync(join(root, "dist", "main.js"), "");
  writeFileSync(join(root, "dist", STAMP), String(builtAt));
  return root;
}

describe("dist/ freshness", () => {
  const t = Date.UTC(2026, 0, 1);

  it("is current when built after every input changed", () => {
    expect(distIsCurrent(tree(t, t + 1000))).toBe(true);
  });

  it("is stale when any input, however deep, is newer than the build", () => {
    const root = tree(t, t + 1000);
    utimesSync(join(root, "src", "modules", "a.ts"), (t + 2000) / 1000, (t + 2000) / 1000);
    expect(distIsCurrent(root)).toBe(false);
  });

  it("is stale without a stamp or without dist/main.js", () => {
    const noStamp = tree(t, t + 1000);
    rmSync(join(noStamp, "dist", STAMP));
    expect(distIsCurrent(noStamp)).toBe(false);
    const noMain = tree(t, t + 1000);
    rmSync(join(noMain, "dist", "main.js"));
    expect(distIsCurrent(noMain)).toBe(false);
  });
});
