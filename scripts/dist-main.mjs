// The source of dist/main.js (scripts/build.mjs copies it there, BUILD_ID filled in):
// `node dist/main.js start [flags]`, also what bin/paysandbox.js and `npm start` run.
//
// It loads dist/server.cjs (a CommonJS bundle) with a V8 code cache (docs/performance.md): compiling the
// 1.7 MB bundle and the functions a start runs costs ~40 ms of every start on Node 20, which has
// no `module.enableCompileCache` (Node >= 22.1 has one, but only for what its loaders load; this
// works the same on both). The first run of a build writes the cache when it exits (or after 10 s,
// if still running), with every function compiled by then (the bytecode of what that run served too);
// a cache V8 rejects (another Node, other V8 flags) is written again. The cache
// is named by this build's id and the Node version and arch, so a stale one is never read. It goes
// to dist/.cache, or the temp folder when dist/ is read-only (the Docker image writes its
// own at build time).
// With source maps on (NODE_OPTIONS=--enable-source-maps), Node maps only what its own loader
// loaded: the bundle is then required as usual, without the cache, so stack traces show src/.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { stopWithLauncher } from "../bin/launcher.js";
import { assertSupportedNode } from "../bin/node-lines.js";
import { failStartup } from "../bin/startup-failure.js";

assertSupportedNode(); // before the bundle, which may not even parse on an old Node
stopWithLauncher(); // `kill $!` after `npm start &` or `npx paysandbox start &` reaches the server too

const BUILD_ID = "__BUILD_ID__";
const here = dirname(fileURLToPath(import.meta.url));
const file = join(here, "server.cjs");
const require = createRequire(file);

function loadWithCodeCache() {
  const name = `server-${BUILD_ID}-${process.version}-${process.arch}.v8`;
  const places = [join(here, ".cache"), join(tmpdir(), `paysandbox-v8-${process.getuid?.() ?? "user"}`)];
  let cachedData;
  for (const dir of places) {
    try {
      cachedData = readFileSync(join(dir, name));
      break;
    } catch {}
  }
  // the same wrapper Node's CommonJS loader puts around a module
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, "utf8")}\n})`;
  // no importModuleDynamically: the bundle never import()s (what it loads later is CommonJS and
  // required), so an import() added by mistake fails on every run, not only on some
  const script = new vm.Script(source, { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, require, module, file, here);
  if (cachedData === undefined || script.cachedDataRejected) {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      const data = script.createCachedData();
      for (const dir of places) {
        try {
          mkdirSync(dir, { recursive: true });
          const tmp = join(dir, `${name}.${process.pid}.tmp`);
          writeFileSync(tmp, data);
          renameSync(tmp, join(dir, name)); // whole or not at all, whatever else starts meanwhile
          return;
        } catch {}
      }
    };
    process.once("exit", write);
    setTimeout(write, 10_000).unref();
  }
  return module.exports;
}

try {
  const { main } = process.sourceMapsEnabled ? require(file) : loadWithCodeCache();
  await main(process.argv.slice(2));
} catch (err) {
  failStartup(err); // one line and exit 1 for a failure that says what to do (bin/startup-failure.js)
}
