/**
 * The package installs anywhere, the way README.md and docs/getting-started.md say while it is not
 * on the npm registry: `npm pack` (which builds on prepack) writes paysandbox-<version>.tgz →
 * `npm install` of that tarball into an empty folder → `npx paysandbox start` serves, /docs and
 * its script included, /guide with its renderer and pages, and `paysandbox/testing` imports there;
 * SIGTERM to npx stops it all. Skipped only when npm is absent.
 *
 * The install uses the registry with --prefer-offline and runs no install scripts: better-sqlite3
 * 13's addon is prebuilt inside its package, so there is nothing to build
 * (docs/developing.md#nodejs-lines). What is tested is our package: its files, its bin, its exports.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { alive, commandOf, processTree } from "../helpers/process-tree.js";
import { ROOT } from "../helpers/server.js";

const npm = (() => {
  try {
    execFileSync("npm", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!npm) console.warn("package.e2e: skipped, npm is not on PATH");

describe.skipIf(!npm)("npm pack → install into an empty folder → npx paysandbox start", () => {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-pack-"));
  let proc: ChildProcess | undefined;
  afterAll(() => {
    // npx runs the server as its child: kill the whole process group, not only npx
    if (proc?.pid !== undefined) {
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {
        proc.kill("SIGKILL");
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("packs only what runs, installs, and serves", async () => {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    // the file name the docs tell users to install
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(packed[0]?.filename).toBe(`paysandbox-${version}.tgz`);
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    expect(files).toEqual(
      expect.arrayContaining([
        "bin/paysandbox.js",
        "dist/main.js",
        "dist/server.cjs",
        "dist/testing.js",
        "dist/testing.d.ts",
        "dist/assets/api-reference.js",
        "dist/guide-markdown.cjs",
        "README.md",
        "docs/getting-started.md",
        "docs/lifecycles.md",
        "docs/images/dashboard.png",
        "checklists/go-live.yaml",
        "package.json",
      ]),
    );
    expect(files.some((f) => f.startsWith("src/") || f.startsWith("test/") || f.endsWith(".map"))).toBe(false);

    const app = join(dir, "app");
    mkdirSync(app); // an empty folder
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "user-app", private: true, type: "module" }));
    const tarball = join(dir, packed[0]?.filename ?? "");
    execFileSync("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball], {
      cwd: app,
      stdio: "ignore",
      timeout: 180_000,
    });
    expect(readdirSync(join(app, "node_modules/paysandbox")).sort()).toEqual([
      "README.md",
      "bin",
      "checklists",
      "dist",
      "docs",
      "package.json",
      "scenarios",
    ]);

    // paysandbox/testing resolves by its package name in the user's folder
    const types = execFileSync(
      process.execPath,
      ["-e", "import('paysandbox/testing').then(m => console.log(typeof m.startSandbox))"],
      {
        cwd: app,
        encoding: "utf8",
      },
    );
    expect(types.trim()).toBe("function");

    proc = spawn("npx", ["--no-install", "paysandbox", "start", "--port", "0", "--host", "127.0.0.1", "--db", ":memory:"], {
      cwd: app,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    proc.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 30_000);
      proc?.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/[^\s]+)/.exec(out);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1].replace(/\/$/, ""));
        }
      });
      proc?.on("exit", (code) => reject(new Error(`exited ${code}:\n${out}`)));
    });
    expect((await (await fetch(`${url}/_sandbox/health`)).json()).status).toBe("ok");
    const script = await fetch(`${url}/docs/assets/api-reference.js`);
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    expect(existsSync(join(app, "node_modules/paysandbox/dist/assets/api-reference.js"))).toBe(true);
    // the guides, found from the installed package's root and rendered by its own bundle
    const guide = await fetch(`${url}/guide`);
    expect(guide.status).toBe(200);
    expect(await guide.text()).toContain('href="/guide/lifecycles"');
    const lifecycles = await fetch(`${url}/guide/lifecycles`);
    expect(lifecycles.status).toBe(200);
    expect(await lifecycles.text()).toContain('<h2 id="subscriptions">Subscriptions</h2>');

    // `kill $!` after `npx paysandbox start &`: SIGTERM to npx alone ends it, its shell and the server
    // (bin/launcher.js), within the 2 s of docs/configuration.md#state-and-logs
    const tree = processTree(proc.pid as number);
    expect(tree.length, tree.map(commandOf).join("\n")).toBeGreaterThanOrEqual(2);
    const closed = Promise.all(
      [proc.stdout, proc.stderr].map((s) => new Promise<void>((resolve) => s?.on("close", () => resolve()))),
    );
    const t0 = performance.now();
    proc.kill("SIGTERM");
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    expect(alive(tree).map(commandOf)).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(out).toContain("SIGTERM: shutting down");
  }, 240_000);
});
