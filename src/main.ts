/**
 * `paysandbox start [flags]`: parse config → open db → build the app → start croner + serve.
 * The command line itself (flags, `run`, `schema`) is src/cli.
 */
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { Cron } from "croner";
import { runCli } from "./cli/index.js";
import { createServer } from "./compose.js";
import type { Config } from "./config.js";
import { ClockStore } from "./control/clock-store.js";
import { checkpointInBackground } from "./db/checkpointer.js";
import { closeDb, openDb } from "./db/client.js";
import { enableGroupCommit } from "./db/commit.js";
import { serverTimeouts } from "./http/server-timeouts.js";
import { createLogger } from "./logger.js";
import { realNowMs, toIso, VirtualClock } from "./platform/clock.js";
import { SandboxError } from "./platform/errors.js";

/**
 * The command line (src/cli): `start`, `run`, `schema`. dist/main.js and bin/paysandbox.js call this.
 */
export async function main(argv: string[]): Promise<void> {
  await runCli(argv, { start });
}

/** `paysandbox start`: serves the sandbox with a parsed config until SIGINT/SIGTERM (docs/configuration.md). */
async function start(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const db = openConfiguredDb(config.db);
  // one commit per turn of the event loop for every request's writes; answers wait for it (src/db/commit.ts)
  enableGroupCommit(db.$client);
  const clock = new VirtualClock(config.startTime ?? realNowMs(), config.timeScale);
  const persisted = new ClockStore({ db, clock }).load();
  if (persisted !== undefined) clock.resetTo(persisted);
  // A reused database keeps its own clock (docs/configuration.md): say so when --start-time asks for another.
  if (persisted !== undefined && config.startTime !== undefined && persisted !== config.startTime) {
    logger.warn(
      { persisted: toIso(persisted), startTime: toIso(config.startTime) },
      `--start-time ${toIso(config.startTime)} ignored: ${config.db} continues its persisted clock at ${toIso(persisted)}. ` +
        `To start over at that time: curl -X POST <url>/_sandbox/reset -H 'Content-Type: application/json' -d '{"startTime":"${toIso(config.startTime)}"}' (or use a new --db)`,
    );
  }

  let boundPort = config.port;
  // the root sandbox and the registry of the others (docs/parallel-suites.md), each its own database and clock
  const composed = createServer({
    config,
    clock,
    db,
    logger,
    publicUrl: () => config.publicUrl ?? `http://localhost:${boundPort}`,
    groupCommit: true,
  });
  const ctx = composed.root;
  try {
    for (const file of config.scenarios) ctx.scenarios.loadFile(file);
  } catch (err) {
    console.error(`paysandbox: ${err instanceof SandboxError ? err.message : String(err)}`);
    db.$client.close();
    process.exit(2);
  }
  ctx.clockStore.save();
  // the header and request timeouts (docs/configuration.md#timeouts)
  const serverOptions = serverTimeouts(config);
  const server = serve({ fetch: composed.fetch, port: config.port, hostname: config.host, serverOptions }, (info) => {
    boundPort = info.port;
    logger.info(
      { port: info.port, db: config.db, now: toIso(clock.nowMs()), scale: clock.scale },
      `paysandbox listening on http://${config.host}:${info.port} (public ${ctx.publicUrl()}; virtual time ${toIso(clock.nowMs())})`,
    );
  });
  server.on("error", (err) => {
    console.error(`paysandbox: ${listenFailure(err, config.host, config.port)}`);
    process.exit(1);
  });

  // Once a real second: run what virtual time has made due, and persist the clock.
  const cron = new Cron("* * * * * *", { protect: true }, async () => {
    try {
      // start what is due and return: one slow receiver never holds the tick
      await ctx.work.runUntil(undefined, { settle: false });
      ctx.clockStore.save();
      await composed.tick();
    } catch (err) {
      logger.error({ err }, "background work failed");
    }
  });

  // The WAL is checkpointed by a worker thread, not inside a request's commit.
  const stopCheckpoints = checkpointInBackground(db, config.db);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(0), 1500);
    force.unref();
    cron.stop();
    const s = server as unknown as { close(cb: () => void): void; closeAllConnections?: () => void };
    s.close(() => undefined);
    s.closeAllConnections?.();
    // requests on the wire get 0.8 s to answer; a hung one is then recorded as interrupted (docs/configuration.md: stop within 2 s)
    // the root's and every open sandbox's webhooks at once
    Promise.all([
      ctx.webhooks.drain(800).catch((err: unknown) => logger.error({ err }, "recording interrupted webhook attempts failed")),
      composed.closeSandboxes(800).catch((err: unknown) => logger.error({ err }, "closing the sandboxes failed")),
    ])
      .then(() => ctx.work.idle())
      .catch(() => undefined)
      .then(() => stopCheckpoints().catch(() => undefined))
      .finally(() => {
        try {
          ctx.clockStore.save();
          closeDb(db);
        } finally {
          process.exit(0);
        }
      });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

/**
 * The server's database, or a start-up failure of one line (`paysandbox: …`, told without a stack
 * by dist/main.js) when SQLite or the file system refuses it: a file that is not a database, a
 * folder that cannot be made or written.
 */
function openConfiguredDb(path: string): ReturnType<typeof openDb> {
  try {
    return openDb(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== "string") throw err;
    throw new Error(`paysandbox: cannot open the database ${path} (--db, SANDBOX_DB): ${(err as Error).message}`);
  }
}

/** Why the server could not listen, and what to do: another port (--port / PORT) when it is taken or privileged. */
export function listenFailure(err: Error & { code?: string }, host: string, port: number): string {
  const where = `cannot listen on ${host}:${port}`;
  const choose = "choose another with --port <n> or PORT=<n> (--port 0 takes any free port)";
  if (err.code === "EADDRINUSE") return `${where}: port ${port} is already in use; ${choose}`;
  if (err.code === "EACCES") return `${where}: port ${port} needs privileges this process does not have; ${choose}`;
  return `${where}: ${err.message}`;
}

// Run directly (`tsx src/main.ts start`); the built dist/main.js loader calls main() itself.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
