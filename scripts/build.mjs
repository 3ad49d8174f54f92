// Bundles src/ and its dependencies into dist/server.js with esbuild (~100 ms, so a start never
// waits on tsc), copies the drizzle migrations beside it, the /docs script (the standalone
// browser bundle of the pinned @scalar/api-reference, a dev dependency) into dist/assets/, and
// writes dist/main.js, a loader that turns on Node's compile cache where it exists (Node >= 22.1)
// before loading the server. Bundling halves cold start: one file to compile instead of hundreds
// of module resolutions.
// External, from node_modules: better-sqlite3 (native addon), and what is loaded only when needed
// (pino-pretty on a terminal, undici on the first webhook, yaml on the first YAML scenario,
// qrcode and pngjs on the first QR pay-in). exceljs is a dev dependency: only the tests use it to
// read the .xlsx the server writes itself (issue 19).
// Also `dist/testing.js` (+ .d.ts): the `paysandbox/testing` entry for users' test suites,
// `dist/report-worker.js`: the report's worker thread, and `dist/guide-markdown.js`: the /guide
// Markdown renderer, imported on the first /guide request (src/sandbox/guide/guide.handlers.tsx),
// so its parser is not compiled at start. The guides themselves (README.md, docs/) are read from
// the package root at run time, not copied.
//
// The build goes to a fresh temp folder beside dist/ and is moved in with renames (swapInto), so
// dist/ is never deleted and a server running from it, or starting, never sees a half-written file.
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * `--if-stale` (npm start's prestart): nothing to do when dist/ was built after every input last
 * changed (src/, this script, the package and lock files, the installed dependencies), so a start
 * on a built tree costs a few stat calls instead of a build. The stamp holds the time the build
 * began: a file saved during a build is newer than it, and the next start builds again.
 */
const STAMP = join("dist", ".built");
function newestInput() {
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
  for (const p of ["src", "scripts/build.mjs", "package.json", "package-lock.json", "node_modules/.package-lock.json"]) visit(p);
  return newest;
}
if (process.argv.includes("--if-stale") && existsSync(STAMP) && existsSync(join("dist", "main.js"))) {
  const built = Number(readFileSync(STAMP, "utf8"));
  if (Number.isFinite(built) && newestInput() < built) process.exit(0);
}
const startedAt = Date.now();
const { build } = await import("esbuild");

/**
 * Moves every entry of `from` into `to` by rename: a file replaces its old version atomically, a
 * folder is swapped with two renames; entries the new build no longer has are removed last.
 * `to` itself is never deleted, so `node dist/main.js` started at any moment finds a whole build.
 */
function swapInto(from, to) {
  if (!existsSync(to)) {
    renameSync(from, to);
    mkdirSync(from);
    return;
  }
  const fresh = new Set(readdirSync(from));
  for (const name of fresh) {
    const src = join(from, name);
    const dst = join(to, name);
    if (statSync(src).isDirectory() && existsSync(dst)) {
      const old = `${src}.old`;
      renameSync(dst, old);
      renameSync(src, dst);
      rmSync(old, { recursive: true, force: true });
    } else {
      if (existsSync(dst) && statSync(dst).isDirectory()) rmSync(dst, { recursive: true, force: true });
      renameSync(src, dst); // over an existing file: an atomic replace
    }
  }
  for (const name of readdirSync(to)) if (!fresh.has(name)) rmSync(join(to, name), { recursive: true, force: true });
}

const out = mkdtempSync("dist-build-");
try {
  chmodSync(out, 0o755); // mkdtemp makes it private; dist/ is read by other users (the image's `node`)
  const common = {
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["better-sqlite3", "pino-pretty", "undici", "yaml", "qrcode", "pngjs"],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    sourcemap: true,
    jsx: "automatic",
    jsxImportSource: "hono/jsx",
    logLevel: "warning",
  };
  // Two bundles side by side in dist/ (each finds migrations/ and assets/ beside itself).
  // report-worker.js: the report's worker thread (src/modules/reports/reports.worker.ts), beside server.js;
  // guide-markdown.js: the /guide renderer, beside them.
  await build({
    ...common,
    entryPoints: {
      server: "src/main.ts",
      testing: "src/testing/index.ts",
      "report-worker": "src/modules/reports/reports.worker.ts",
      "guide-markdown": "src/sandbox/guide/markdown.ts",
    },
    outdir: out,
  });
  cpSync("src/db/migrations", join(out, "migrations"), { recursive: true });
  // The public types of paysandbox/testing: types.ts declares only types, so it is a valid .d.ts.
  writeFileSync(
    join(out, "testing.d.ts"),
    `${readFileSync("src/testing/types.ts", "utf8")}
/** Starts a sandbox in this process on \`:memory:\`, with a receiver for its webhooks. */
export declare function startSandbox(options?: StartSandboxOptions): Promise<TestSandbox>;
/** Creates a sandbox on the paysandbox server at \`serverUrl\` (CONTRACT §8), with a receiver for its webhooks; \`close()\` deletes it. */
export declare function connectSandbox(serverUrl: string, options?: ConnectSandboxOptions): Promise<TestSandbox>;
`,
  );
  const scalar = join(dirname(createRequire(import.meta.url).resolve("@scalar/api-reference")), "browser", "standalone.js");
  cpSync(scalar, join(out, "assets", "api-reference.js"));
  writeFileSync(
    join(out, "main.js"),
    `// Generated by scripts/build.mjs: \`node dist/main.js start [flags]\`.
import module from "node:module";
module.enableCompileCache?.();
const { main } = await import("./server.js");
await main(process.argv.slice(2));
`,
  );
  writeFileSync(join(out, ".built"), String(startedAt));
  swapInto(out, "dist");
  rmSync(out, { recursive: true, force: true });
} catch (err) {
  rmSync(out, { recursive: true, force: true });
  throw err;
}
