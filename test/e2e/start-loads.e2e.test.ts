/**
 * What a start loads (docs/performance.md): the built server answers health without loading the
 * packages it needs only later (yaml, undici, qrcode, pngjs, pino-pretty, exceljs), and it runs
 * from the V8 code cache that its first run of a build writes (scripts/dist-main.mjs).
 * A preload lists what the process required when it exits; the bundle requires through Node's
 * require, so its packages are there.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, startServer } from "../helpers/server.js";

const LATER = ["yaml", "undici", "qrcode", "pngjs", "pino-pretty", "exceljs"];

function probe(): { preload: string; loaded: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-loads-"));
  const out = join(dir, "loaded.json");
  const preload = join(dir, "probe.cjs");
  writeFileSync(
    preload,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`,
  );
  return {
    preload,
    loaded: () =>
      (JSON.parse(readFileSync(out, "utf8")) as string[])
        .map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1])
        .filter((p): p is string => p !== undefined),
  };
}

describe("a start", () => {
  it("loads only what serving needs, and what a feature needs when it is first used", async () => {
    const idle = probe();
    const server = await startServer({ env: { NODE_OPTIONS: `--require ${idle.preload}` } });
    expect((await fetch(`${server.url}/_sandbox/health`)).status).toBe(200);
    await server.stop();
    const packages = new Set(idle.loaded());
    expect(packages.has("better-sqlite3")).toBe(true); // the probe sees the bundle's requires
    for (const p of LATER) expect(packages.has(p), `${p} loaded at start`).toBe(false);
    // a run of this build has ended: the code cache of this Node is there for the next start
    const cache = readdirSync(join(ROOT, "dist", ".cache")).filter((f) => f.endsWith(`-${process.version}-${process.arch}.v8`));
    expect(cache.length).toBeGreaterThan(0);

    const used = probe();
    const busy = await startServer({ env: { NODE_OPTIONS: `--require ${used.preload}` } });
    const yaml = await fetch(`${busy.url}/_sandbox/recording`, { headers: { accept: "application/yaml" } });
    expect(yaml.status).toBe(200);
    await busy.stop();
    expect(used.loaded()).toContain("yaml");
  });

  it("compiles bundles V8 keeps as one-byte text (no character above U+00FF, scripts/build.mjs)", () => {
    for (const name of readdirSync(join(ROOT, "dist")).filter((f) => /\.c?js$/.test(f))) {
      const wide = /[\u0100-\uffff]/.exec(readFileSync(join(ROOT, "dist", name), "utf8"));
      expect(wide?.[0], `dist/${name}`).toBeUndefined();
    }
  });
});
