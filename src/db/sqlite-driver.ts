/**
 * The SQLite driver, better-sqlite3, loaded once with its native addon checked
 * (docs/developing.md#nodejs-lines). Every connection (the server's, each sandbox's, the
 * checkpointer thread's and the report thread's) comes from here, never from a plain
 * `import "better-sqlite3"`, so that a missing or broken install fails in one place with a line
 * saying what to run.
 *
 * better-sqlite3 13 is built on node-addon-api (Node-API) and ships its addons prebuilt inside the
 * package: one build loads on every supported Node line, with no compiler and no download.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const require = createRequire(import.meta.url);

/** The resolved entry of better-sqlite3, for threads that open their own connections (`require(SQLITE_DRIVER)`). */
export const SQLITE_DRIVER: string = resolveDriver();

/** better-sqlite3's Database class: `new Sqlite(path)`. */
export const Sqlite: typeof BetterSqlite3 = loadDriver();

function resolveDriver(): string {
  try {
    return require.resolve("better-sqlite3");
  } catch {
    throw new Error(`paysandbox: better-sqlite3 is not installed: run \`npm ci\` (or \`npm install\`)`);
  }
}

function loadDriver(): typeof BetterSqlite3 {
  const driver = require(SQLITE_DRIVER) as typeof BetterSqlite3;
  try {
    // load the native addon now: an addon that cannot load here fails with a message that says so
    new driver(":memory:").close();
  } catch (err) {
    throw new Error(
      `paysandbox: better-sqlite3 cannot load its native addon on Node ${process.versions.node} (${(err as Error).message.split("\n")[0]}): run \`npm ci\` with this Node`,
    );
  }
  return driver;
}
