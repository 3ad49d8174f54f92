/**
 * The server's composition (docs/parallel-suites.md): the root sandbox at `/`, and a registry of sandboxes at
 * `/sandboxes/{id}/…`, each one more composition of the same service graph (`createContext`) over its
 * own database and clock, with its own app (`createApp` with a base path). `fetch` routes a request
 * to the one it is for. main.ts serves it; tests build it on `:memory:` with a hand-moved wall clock.
 */
import { readFileSync } from "node:fs";
import type { OpenAPIHono } from "@hono/zod-openapi";
import pino from "pino";
import { createApp } from "./app.js";
import type { Config } from "./config.js";
import { type AppContext, type ContextOptions, createContext } from "./context.js";
import { checkpointInBackground, type HeldFile, holdFile } from "./db/checkpointer.js";
import { closeDb, type Db, openDb } from "./db/client.js";
import { ClockStore } from "./db/clock-store.js";
import { enableGroupCommit } from "./db/commit.js";
import type { AppEnv } from "./http/env.js";
import { jsonError } from "./http/errors.js";
import { lingerIfUnread } from "./http/linger.js";
import { adminRefusal } from "./http/middleware.js";
import { lingerMs } from "./http/server-timeouts.js";
import type { Logger } from "./logger.js";
import { MerchantService } from "./modules/merchants/merchants.service.js";
import { type Clock, realNowMs, VirtualClock } from "./platform/clock.js";
import { SandboxError } from "./platform/errors.js";
import {
  type Composition,
  type OpenSpec,
  originPath,
  SANDBOX_ID,
  SandboxRegistry,
  type SandboxSummary,
  sandboxNotFound,
} from "./sandboxes/registry.js";
import { registerSandboxes } from "./sandboxes/sandboxes.handlers.js";
import { SCENARIO_SOURCE } from "./sandboxes/sandboxes.wire.js";
import { parseDocument } from "./scenarios/scenario.service.js";
import { adoptCopy, snapshotOf, takeState } from "./snapshots/images.js";
import type { DispatcherOptions } from "./webhooks/dispatcher.js";

export interface ServerOptions {
  config: Config;
  /** The root's clock. */
  clock: Clock;
  db?: Db;
  logger?: Logger;
  publicUrl?: () => string;
  /** Real time (TTL, sandbox clocks); tests move it by hand. */
  wallNow?: () => number;
  /** One commit per event-loop turn in every database (the server; src/db/commit.ts). */
  groupCommit?: boolean;
  webhooks?: DispatcherOptions;
  /** Registry tuning (tests): compositions kept open, idle ms before one is closed. */
  maxOpen?: number;
  idleMs?: number;
}

export interface Server {
  /** The root sandbox. */
  root: AppContext;
  rootApp: OpenAPIHono<AppEnv>;
  sandboxes: SandboxRegistry;
  /** Every request of the server: a sandbox's under `/sandboxes/{id}`, the root's otherwise. */
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>;
  /** Once a real second: due work everywhere, TTLs, idle sandboxes closed. */
  tick(): Promise<void>;
  /** Closes every sandbox (webhooks get `graceMs`), then nothing else: the caller closes the root. */
  closeSandboxes(graceMs: number): Promise<void>;
}

/** Page cache of a sandbox's connection (KiB): many are open at once, each with a small working set. */
const SANDBOX_CACHE_KIB = 4000;
const PREFIX = "/sandboxes/";
/** A `.` or `..` path segment as a URL parser reads it: `%2e` in either case counts as a dot. */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=[/\\]|$)/i;
const DOT_SEGMENTS_REFUSED = "Not found: a path under /sandboxes/ cannot have . or .. segments";

/**
 * A request target's path (of an absolute-form target too), without its query or fragment and
 * without the tabs and newlines a URL parser drops.
 */
function pathOf(target: string): string {
  const path = target.replace(/[\t\n\r]/g, "").replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "");
  return path.split(/[?#]/, 1)[0] ?? "";
}

export function createServer(opts: ServerOptions): Server {
  const { config } = opts;
  const logger = opts.logger ?? pino({ level: "silent" });
  const wallNow = opts.wallNow ?? realNowMs;
  const publicUrl = opts.publicUrl ?? (() => config.publicUrl ?? `http://localhost:${config.port}`);
  const root = createContext({ config, clock: opts.clock, logger, publicUrl, ...pick(opts) });

  const sandboxes: SandboxRegistry = new SandboxRegistry({
    rootDb: root.db,
    dbPath: config.db,
    maxSandboxes: config.maxSandboxes,
    scale: config.timeScale,
    wallNow,
    rootNow: () => root.clock.nowMs(),
    publicUrl,
    image: sandboxImage,
    rootState: () => snapshotOf(root),
    open: (spec) =>
      openSandbox(spec, {
        config,
        logger,
        wallNow,
        publicUrl,
        groupCommit: opts.groupCommit ?? false,
        webhooks: opts.webhooks,
        fork: (from) => sandboxes.create({ from }),
      }),
    logger,
    ...(opts.maxOpen === undefined ? {} : { maxOpen: opts.maxOpen }),
    ...(opts.idleMs === undefined ? {} : { idleMs: opts.idleMs }),
  });
  const rootApp = createApp(root, { routes: [(app) => registerSandboxes(app, sandboxes)] });
  root.sandboxList = () => sandboxes.list();
  root.fork = () => sandboxes.create({ from: "root" });

  const linger = lingerMs(config);
  const fetch = (req: Request, env?: unknown): Response | Promise<Response> => {
    const url = req.url;
    const start = url.indexOf("/", url.indexOf(":") + 3);
    // `req.url` has its dot segments resolved already (`/sandboxes/A/%2e%2e/B` is B's): the path as
    // sent decides (docs/parallel-suites.md: a path under a sandbox never acts outside it)
    const sent = (env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
    const path = sent === undefined ? undefined : pathOf(sent);
    if (path !== undefined && DOT_SEGMENT.test(path) && (path.startsWith(PREFIX) || url.startsWith(PREFIX, start))) {
      logger.info({ method: req.method, status: 404 }, `${req.method} ${path.slice(0, 120)} 404: ${DOT_SEGMENTS_REFUSED}`);
      lingerIfUnread(env, linger);
      return jsonError(404, DOT_SEGMENTS_REFUSED);
    }
    if (!url.startsWith(PREFIX, start)) return rootApp.fetch(req, env);
    const end = url.slice(start + PREFIX.length).search(/[/?#]|$/);
    const id = url.slice(start + PREFIX.length, start + PREFIX.length + end);
    return sandboxFetch(id, url.slice(start + PREFIX.length + end), req, env);
  };

  const sandboxFetch = async (id: string, rest: string, req: Request, env: unknown): Promise<Response> => {
    try {
      // the admin token is the server's: a control-plane call is refused without it before its
      // sandbox is looked up or opened (docs/control-plane.md#the-admin-token)
      if (config.adminToken && isGuarded(rest)) {
        const refusal = adminRefusal(req.headers.get("authorization") ?? undefined, config.adminToken);
        if (refusal) throw refusal;
      }
      if (!SANDBOX_ID.test(id)) throw sandboxNotFound(safeDecode(id));
      return await sandboxes.fetch(id, req, env);
    } catch (err) {
      if (err instanceof SandboxError) {
        logger.info(
          { method: req.method, status: err.status, errorMessage: err.message },
          `${req.method} ${PREFIX}${id.slice(0, 64)} ${err.status}: ${err.message}`,
        );
        lingerIfUnread(env, linger);
        return jsonError(err.status, err.message);
      }
      logger.error({ err }, "sandbox request failed");
      return jsonError(500, "Internal error");
    }
  };

  return {
    root,
    rootApp,
    sandboxes,
    fetch,
    tick: () => sandboxes.tick(),
    closeSandboxes: (graceMs) => sandboxes.closeAll(graceMs),
  };
}

function pick(opts: ServerOptions): Partial<ContextOptions> {
  const out: Partial<ContextOptions> = {};
  if (opts.db) out.db = opts.db;
  if (opts.webhooks) out.webhooks = opts.webhooks;
  return out;
}

function readIfExists(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Whether the rest of a sandbox's URL (after its id) is its control plane, which the admin token guards: health excepted. */
function isGuarded(rest: string): boolean {
  const path = safeDecode(rest.split(/[?#]/, 1)[0] ?? "");
  return path.startsWith("/_sandbox/") && path !== "/_sandbox/health";
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A new sandbox's database: migrated, the built-in merchant seeded; its JWT secret is made on open. */
function sandboxImage(): Buffer {
  const db = openDb(":memory:");
  new MerchantService(db).seedBuiltin();
  const image = db.$client.serialize();
  db.$client.close();
  return image;
}

interface Shared {
  config: Config;
  logger: Logger;
  wallNow: () => number;
  publicUrl: () => string;
  groupCommit: boolean;
  webhooks: DispatcherOptions | undefined;
  /** A copy of a sandbox as it is now (docs/snapshots.md): the dashboard's Fork. */
  fork: (from: string) => Promise<SandboxSummary>;
}

/**
 * One sandbox's composition: the same graph as the root's, on its database, its clock and its base
 * URL. Its file is prepared, held and finally closed by the checkpointer thread (`holdFile`), so the
 * event loop does none of its file I/O (docs/performance.md "A storm of creates").
 */
async function openSandbox(spec: OpenSpec, shared: Shared): Promise<Composition> {
  const held = spec.path === ":memory:" ? undefined : await holdFile(spec.path, spec.image);
  try {
    return composeSandbox(spec, shared, held);
  } catch (err) {
    // the thread lets its file go too
    void held?.release();
    throw err;
  }
}

function composeSandbox(spec: OpenSpec, shared: Shared, held: HeldFile | undefined): Composition {
  const db = openDb(spec.path, {
    ...(held ? {} : { image: spec.image }),
    // a file written from this build's image has every migration already
    migrated: spec.current,
    cacheKiB: SANDBOX_CACHE_KIB,
  });
  try {
    // the server's settings, as for the root (main.ts): one commit per turn, the WAL checkpointed off the request path
    if (shared.groupCommit) enableGroupCommit(db.$client);
    const stopCheckpoints = shared.groupCommit
      ? checkpointInBackground(db, spec.path)
      : async (_?: { beforeClose?: boolean }) => undefined;
    // a copy's first open settles what must not carry over from its source, before anything runs
    if (spec.copiedAt !== undefined) adoptCopy(db, spec.copiedAt);
    const clock = new VirtualClock(spec.anchorNowMs, shared.config.timeScale, shared.wallNow);
    const saved = spec.fresh ? undefined : new ClockStore({ db, clock }).load();
    if (saved !== undefined && saved > clock.nowMs()) clock.resetTo(saved);
    const config: Config = { ...shared.config, scenarios: [], startTime: spec.startMs, db: spec.path };
    // the scenario it was created with, as a snapshot of it names it (docs/snapshots.md)
    let scenario: unknown = spec.scenario ?? null;
    const ctx = createContext({
      config,
      clock,
      db,
      logger: shared.logger.child({ sandbox: spec.id }),
      publicUrl: () => `${shared.publicUrl()}${spec.basePath}`,
      ...(shared.webhooks ? { webhooks: shared.webhooks } : {}),
      fresh: spec.fresh,
      // its reset reloads the scenario it was created with, as the root's reloads its start files
      ...(spec.scenario === undefined ? {} : { keptScenario: { document: spec.scenario, source: SCENARIO_SOURCE } }),
      lineage: {
        source: spec.id,
        startMs: spec.startMs,
        get scenario() {
          return scenario;
        },
        // a file-backed copy's is the file beside its database (read when its reset asks)
        origin: () => spec.origin ?? (spec.path === ":memory:" ? undefined : readIfExists(originPath(spec.path))),
      },
    });
    ctx.fork = () => shared.fork(spec.id);
    ctx.clockStore.save();
    // its routes are built on its first request, not by its create (docs/performance.md "A storm of creates")
    let app: ReturnType<typeof createApp> | undefined;
    return {
      fetch: (req, env) => {
        app ??= createApp(ctx, { basePath: spec.basePath });
        return app.fetch(req, env as never);
      },
      nowMs: () => clock.nowMs(),
      state: () => takeState(db, clock.nowMs()),
      loadScenario(document) {
        const doc = typeof document === "string" ? parseDocument(document, `${SCENARIO_SOURCE} (YAML)`) : document;
        const loaded = ctx.keepScenario(doc, SCENARIO_SOURCE);
        scenario = loaded;
        return { merchants: loaded.merchants, stored: loaded };
      },
      runDue: () => ctx.work.runUntil(undefined, { settle: false }),
      nextDueAt: () => ctx.work.nextDueAt(),
      // listeners attached (a dashboard, `paysandbox listen`) keep it open: closing would end their streams
      busy: () => ctx.webhooks.busy || ctx.events.listening > 0,
      saveClock: () => ctx.clockStore.save(),
      startClockAt(ms) {
        clock.resetTo(ms);
        ctx.clockStore.save();
      },
      async close(graceMs, deletion) {
        // its listeners' streams end (they reconnect, which opens it again)
        ctx.events.close();
        await ctx.work.idle();
        // where its work is due, before the dispatcher stops (a stopped one reports none)
        const dueBefore = db.$client.open ? ctx.work.nextDueAt() : undefined;
        // deleted: what is due goes out and is answered first (docs/parallel-suites.md#deleting-a-sandbox),
        // and what is cut off is final; closed: the rest is retried when it opens again
        if (deletion?.settleDue) await ctx.webhooks.settleDue();
        const interrupted = deletion ? ctx.webhooks.interrupt({ deleted: true }) : await ctx.webhooks.drain(graceMs);
        await ctx.work.idle();
        await ctx.webhooks.close();
        const nowMs = clock.nowMs();
        // an attempt cut off is retried: open it again soon to do so
        const nextDueAt = interrupted > 0 ? nowMs : dueBefore;
        let image: Buffer | undefined;
        await stopCheckpoints({ beforeClose: true });
        if (db.$client.open) {
          ctx.clockStore.save();
          if (spec.path === ":memory:") image = db.$client.serialize();
          closeDb(db);
        }
        // the thread copies its WAL back and closes the file after this (not the event loop)
        const released = held ? held.release() : Promise.resolve();
        return { nowMs, nextDueAt, image, released };
      },
    };
  } catch (err) {
    // a database that could not be composed is closed here (the caller lets the thread's hold go)
    if (db.$client.open) db.$client.close();
    throw err;
  }
}
