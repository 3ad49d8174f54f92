// Bundles src/ and its dependencies with esbuild (~100 ms, so a start never waits on tsc): dist/server.cjs
// (CommonJS, see below), copies the drizzle migrations beside it, the /docs script (the standalone
// browser bundle of the pinned @scalar/api-reference, a dev dependency) into dist/assets/, and
// writes dist/main.js from scripts/dist-main.mjs, the loader that runs server.cjs with a V8 code
// cache (docs/performance.md). Bundling halves cold start: one file to compile instead of hundreds of module
// resolutions.
// server.cjs is CommonJS so the loader can compile it with vm.Script and a code cache (Node 20 has
// no compile cache for ES modules); `import.meta.url` in src/ becomes the file's URL there. A script run
// by vm cannot import() (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING: it was a 500 from /guide), so what
// the server loads later is CommonJS too and is required: dist/guide-markdown.cjs.
// External, from node_modules: better-sqlite3 (native addon), and what is loaded only when needed
// (pino-pretty on a terminal, undici by the webhook sender's thread, yaml on the first YAML scenario or
// recording, qrcode and pngjs on the first QR pay-in). exceljs is a dev dependency: only the tests
// use it to read the .xlsx the server writes itself (docs/performance.md). zod's 50 locales are left out
// (zodEnglishOnly): the server speaks English, and they were a fifth of the bundle.
// Also `dist/testing.js` (+ .d.ts): the `paysandbox/testing` entry for users' test suites (ESM),
// `dist/report-worker.js`, `dist/checkpointer-worker.js`, `dist/sender-worker.js` and `dist/images-worker.js`: worker threads, and `dist/guide-markdown.cjs`: the /guide
// Markdown renderer, imported on the first /guide request (src/guide/guide.handlers.tsx),
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
import { dirname, join, resolve } from "node:path";
import { distIsCurrent, STAMP } from "./freshness.mjs";

// `--if-stale`: nothing to do when dist/ is current (scripts/freshness.mjs)
if (process.argv.includes("--if-stale") && distIsCurrent()) process.exit(0);
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

/** zod's locales/index.js (every language, re-exported as `z.locales`) as English alone. */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/")
        ? { path: resolve(args.resolveDir, "../locales/en.js"), namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/** Stand-ins for the characters our comments use (Latin-1, one UTF-16 unit each, like what they replace). */
const LATIN1 = {
  "→": "»",
  "←": "«",
  "—": "-",
  "–": "-",
  "…": ".",
  "≤": "<",
  "≥": ">",
  "≠": "!",
  "‘": "'",
  "’": "'",
  "“": '"',
  "”": '"',
};

/**
 * V8 keeps a script's source as one-byte text only when every character of it is Latin-1: one arrow
 * left in a comment (esbuild keeps some) made the whole 1.7 MB bundle two-byte, 3.5 MB of heap
 * for the source (RSS 1 s after start 87.2 -> 83.8 MB without them, 11 alternated starts). Each UTF-16 unit above U+00FF
 * becomes one Latin-1 character, so columns, and the source maps, stay right.
 */
function latin1Comments(file) {
  const text = readFileSync(file, "utf8");
  const latin1 = text.replace(/[\u0100-\uffff]/g, (c) => LATIN1[c] ?? "?");
  if (latin1 !== text) writeFileSync(file, latin1);
}

const out = mkdtempSync("dist-build-");
try {
  chmodSync(out, 0o755); // mkdtemp makes it private; dist/ is read by other users (the image's `node`)
  const common = {
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    external: ["better-sqlite3", "pino-pretty", "undici", "yaml", "qrcode", "pngjs"],
    // CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    sourcemap: true,
    jsx: "automatic",
    jsxImportSource: "hono/jsx",
    logLevel: "warning",
    // esbuild's default, stated because latin1Comments relies on it: strings, regexps and names
    // leave it escaped, so a character above U+007F left in the output can only be in a comment
    charset: "ascii",
    plugins: [zodEnglishOnly],
  };
  // Two bundles side by side in dist/ (each finds migrations/ and assets/ beside itself).
  // report-worker.js: the report's worker thread (src/modules/reports/reports.worker.ts),
  // checkpointer-worker.js: the WAL checkpointer's (src/db/checkpointer.worker.ts),
  // sender-worker.js: the webhook sender's (src/webhooks/sender.worker.ts), and images-worker.js:
  // the image thread's (src/snapshots/images.worker.ts), beside server.cjs; all started by
  // src/platform/worker-thread.ts.
  await build({
    ...common,
    entryPoints: {
      testing: "src/testing/index.ts",
      "report-worker": "src/modules/reports/reports.worker.ts",
      "checkpointer-worker": "src/db/checkpointer.worker.ts",
      "sender-worker": "src/webhooks/sender.worker.ts",
      "images-worker": "src/snapshots/images.worker.ts",
    },
    outdir: out,
  });
  await build({
    ...common,
    // guide-markdown: the /guide renderer, required on the first /guide request
    entryPoints: { server: "src/main.ts", "guide-markdown": "src/guide/markdown.ts" },
    outdir: out,
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    define: { "import.meta.url": "__import_meta_url" },
    banner: { js: 'const __import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
  });
  for (const name of readdirSync(out)) if (/\.c?js$/.test(name)) latin1Comments(join(out, name));
  cpSync("src/db/migrations", join(out, "migrations"), { recursive: true });
  // The public types of paysandbox/testing: types.ts declares only types, so it is a valid .d.ts.
  writeFileSync(
    join(out, "testing.d.ts"),
    `${readFileSync("src/testing/types.ts", "utf8")}
/** Starts a sandbox in this process on \`:memory:\`, with a receiver for its webhooks. */
export declare function startSandbox(options?: StartSandboxOptions): Promise<TestSandbox>;
/** Creates a sandbox on the paysandbox server at \`serverUrl\` (docs/parallel-suites.md), with a receiver for its webhooks; \`close()\` deletes it. */
export declare function connectSandbox(serverUrl: string, options?: ConnectSandboxOptions): Promise<TestSandbox>;
`,
  );
  const scalar = join(dirname(createRequire(import.meta.url).resolve("@scalar/api-reference")), "browser", "standalone.js");
  cpSync(scalar, join(out, "assets", "api-reference.js"));
  const buildId = `${startedAt.toString(36)}${process.pid.toString(36)}`;
  writeFileSync(join(out, "main.js"), readFileSync("scripts/dist-main.mjs", "utf8").replace("__BUILD_ID__", buildId));
  writeFileSync(join(out, STAMP), String(startedAt));
  swapInto(out, "dist");
  rmSync(out, { recursive: true, force: true });
} catch (err) {
  rmSync(out, { recursive: true, force: true });
  throw err;
}
