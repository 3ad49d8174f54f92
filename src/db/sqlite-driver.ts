/**
 * Which better-sqlite3 this process uses, picked once by the running Node's major version
 * (docs/developing.md#nodejs-lines). Every connection (the server's, each sandbox's, the checkpointer
 * thread's and the report thread's) comes from the module named here, never from a plain
 * `import "better-sqlite3"`.
 *
 * - Node >= 22: better-sqlite3 13 (installed as `better-sqlite3-13`, an optional dependency whose
 *   `engines` npm checks: on Node 20 it is not installed, without a warning). Version 13 is built on
 *   node-addon-api and ships its prebuilt addons inside the package, so it needs no compiler.
 * - Node 20: better-sqlite3 12 (installed as `better-sqlite3`). Version 12 wraps node::ObjectWrap,
 *   which Node >= 24.19 aborts on (`Assertion failed: (env) != nullptr` in
 *   node::RemoveEnvironmentCleanupHook, from a statement's destructor during a GC); version 13 needs
 *   Node >= 22 and crashes on 20.
 *
 * The two have the same JavaScript API (the types are @types/better-sqlite3's). drizzle-orm's
 * better-sqlite3 module imports `better-sqlite3` by name: with a client passed in it never uses it.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const require = createRequire(import.meta.url);

/** The running Node's major version. */
export const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

/** The package this Node loads: `better-sqlite3-13` from Node 22 on, `better-sqlite3` (12) on 20. */
export const SQLITE_PACKAGE = NODE_MAJOR >= 22 ? "better-sqlite3-13" : "better-sqlite3";

/**
 * The resolved entry of SQLITE_PACKAGE, for threads that open their own connections
 * (`require(SQLITE_DRIVER)` in a worker). Throws, saying what to run, when it is not installed.
 */
export const SQLITE_DRIVER: string = resolveDriver();

/** better-sqlite3's Database class, of SQLITE_PACKAGE: `new Sqlite(path)`. */
export const Sqlite: typeof BetterSqlite3 = loadDriver();

function resolveDriver(): string {
  try {
    return require.resolve(SQLITE_PACKAGE);
  } catch {
    throw new Error(
      `${SQLITE_PACKAGE} is not installed for Node ${process.versions.node}: run \`npm ci\` (or \`npm install\`) with this Node`,
    );
  }
}

function loadDriver(): typeof BetterSqlite3 {
  const driver = require(SQLITE_DRIVER) as typeof BetterSqlite3;
  try {
    // load the native addon now: a build for another Node fails here with a message that says so
    new driver(":memory:").close();
  } catch (err) {
    throw new Error(
      `${SQLITE_PACKAGE} cannot load its native addon on Node ${process.versions.node} (${(err as Error).message.split("\n")[0]}): run \`npm rebuild\` or \`npm ci\` with this Node`,
    );
  }
  return driver;
}
