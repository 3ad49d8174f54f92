// How a start that cannot go on ends (docs/developing.md#nodejs-lines): with one line on stderr
// that says what to do, and exit status 1, never an uncaught stack trace. Used by every way of
// starting: bin/paysandbox.js, `npm start` (scripts/start.mjs) and `node dist/main.js`.
// Plain JavaScript, like bin/node-lines.js.
import { fileURLToPath } from "node:url";

/** Where the build puts the entry and the bundle (`npm run build`; `npm ci` and `npm start` build too). */
const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

const toPath = (p) => (p.startsWith("file:") ? fileURLToPath(p) : p);

/** The package the bundle could not find (an install that did not finish), if that is the error. */
function missingPackage(err, message) {
  if (err?.code !== "MODULE_NOT_FOUND" || !String(err.requireStack?.[0] ?? "").startsWith(DIST)) return undefined;
  const name = /^Cannot find module '([^']+)'/.exec(message)?.[1];
  if (name === undefined || /^[./]/.test(name) || name.startsWith("node:")) return undefined;
  return name
    .split("/")
    .slice(0, name.startsWith("@") ? 2 : 1)
    .join("/");
}

/** The file of the build that is not there (a clone never built, a build that did not finish), if that is the error. */
function missingBuildFile(err, message) {
  const missing =
    err?.code === "ERR_MODULE_NOT_FOUND"
      ? /^Cannot find module '([^']+)'/.exec(message)?.[1]
      : err?.code === "ENOENT" && typeof err.path === "string"
        ? err.path
        : undefined;
  const path = missing === undefined ? undefined : toPath(missing);
  return path?.startsWith(DIST) ? `dist/${path.slice(DIST.length)}` : undefined;
}

/**
 * The line a start-up failure is told with, or undefined for any other error (a bug keeps its
 * stack): a failure that already says what to do starts with `paysandbox: ` (src/db/sqlite-driver.ts,
 * src/main.ts); a package or a file of the build that is missing is named here.
 */
export function startupFailureLine(err) {
  const message = typeof err?.message === "string" ? err.message : "";
  if (message.startsWith("paysandbox: ")) return message.split("\n")[0];
  const pkg = missingPackage(err, message);
  if (pkg !== undefined) return `paysandbox: ${pkg} is not installed: run \`npm ci\` (or \`npm install\`)`;
  const file = missingBuildFile(err, message);
  if (file !== undefined)
    return `paysandbox: the build is missing ${file}: run \`npm run build\` (\`npm ci\` and \`npm start\` build it too)`;
  return undefined;
}

/** Exits 1 after the one line of a start-up failure; rethrows any other error. */
export function failStartup(err) {
  const line = startupFailureLine(err);
  if (line === undefined) throw err;
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
