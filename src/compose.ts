/**
 * The server's composition (docs/parallel-suites.md): the root sandbox at `/`, and a registry of sandboxes at
 * `/sandboxes/{id}/…`, each one more composition of the same service graph (`createContext`) over its
 * own database and clock. The root has its app (`createApp`); every other sandbox is served by one
 * app built here once (`createSandboxesApp`), which a request reaches with its sandbox's services.
 * `fetch` routes a request to the one it is for. main.ts serves it; tests build it on `:memory:` with a hand-moved wall clock.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import pino from "pino";
import { createApp, createSandboxesApp, type SandboxBindings } from "./app.js";
import type { Config } from "./config.js";
import { type AppContext, type ContextOptions, createContext } from "./context.js";
import { type Db, openDb } from "./db/client.js";
import { ClockStore } from "./db/clock-store.js";
import { commitNow } from "./db/commit.js";
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
  type ComposeSpec,
  type Composition,
  SANDBOX_ID,
  type SandboxBuilder,
  SandboxRegistry,
  type SandboxSummary,
  sandboxNotFound,
} from "./sandboxes/registry.js";
import { registerSandboxes } from "./sandboxes/sandboxes.handlers.js";
import { SCENARIO_SOURCE } from "./sandboxes/sandboxes.wire.js";
import { parseDocument } from "./scenarios/scenario.service.js";
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
  // the routes of every sandbox but the root, built once (docs/architecture.md "One route tree")
  const app = createSandboxesApp(config);
  const shared: Shared = { config, logger, wallNow, publicUrl, webhooks: opts.webhooks, app };
  let freshImage: Buffer | undefined;
  const builder: SandboxBuilder = {
    compose: (spec, db) => composeSandbox(spec, db, shared, () => sandboxes.create({ from: spec.id })),
    root: () => ({
      db: root.db,
      path: config.db,
      nowMs: () => root.clock.nowMs(),
      copyDueAt: () => root.work.nextDueAt(root.webhooks),
      startMs: root.lineage.startMs,
      scenario: root.lineage.scenario ?? null,
    }),
    freshImage: () => {
      freshImage ??= sandboxImage();
      return freshImage;
    },
  };
  const sandboxes: SandboxRegistry = new SandboxRegistry({
    rootDb: root.db,
    dbPath: config.db,
    storage: config.storage ?? (config.db === ":memory:" ? "memory" : "file"),
    maxSandboxes: config.maxSandboxes,
    keepSnapshotBytes: config.snapshotKeepMb * 1024 * 1024,
    scale: config.timeScale,
    wallNow,
    rootNow: () => root.clock.nowMs(),
    publicUrl,
    builder,
    groupCommit: opts.groupCommit ?? false,
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
  webhooks: DispatcherOptions | undefined;
  /** The one app of every sandbox (`createSandboxesApp`). */
  app: OpenAPIHono<AppEnv>;
}

/**
 * One sandbox's composition (the registry's builder): the same graph as the root's, on its database
 * (opened by the registry, src/sandboxes/storage.ts), its clock and its base URL. `fork` is the
 * dashboard's Fork of it.
 */
function composeSandbox(spec: ComposeSpec, db: Db, shared: Shared, fork: () => Promise<SandboxSummary>): Composition {
  const clock = new VirtualClock(spec.anchorNowMs, shared.config.timeScale, shared.wallNow);
  // a closed one's own saved clock may be ahead of the registry's anchor; a new one's or a copy's is where it starts
  const saved = spec.made === "reopen" ? new ClockStore({ db, clock }).load() : undefined;
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
    // nothing in flight to recover, and the built-in merchant as this build seeds it (a loaded file's may be older)
    fresh: spec.made === "new" || spec.made === "fork",
    // its reset reloads the scenario it was created with, as the root's reloads its start files
    ...(spec.scenario === undefined ? {} : { keptScenario: { document: spec.scenario, source: SCENARIO_SOURCE } }),
    lineage: {
      source: spec.id,
      startMs: spec.startMs,
      get scenario() {
        return scenario;
      },
      origin: spec.origin,
    },
  });
  ctx.fork = fork;
  // its clock is in its database from its first open on (a snapshot of it holds it), where it is now
  ctx.clockStore.save();
  // its requests go to the one app of every sandbox, with its services (src/app.ts SandboxBindings)
  const base = spec.basePath;
  return {
    fetch: (req, env) => {
      const bindings: SandboxBindings = { ...(env as object | undefined), sandbox: ctx, base };
      return shared.app.fetch(req, bindings);
    },
    nowMs: () => clock.nowMs(),
    copyDueAt: () => ctx.work.nextDueAt(ctx.webhooks),
    loadScenario(document) {
      const doc = typeof document === "string" ? parseDocument(document, `${SCENARIO_SOURCE} (YAML)`) : document;
      const loaded = ctx.keepScenario(doc, SCENARIO_SOURCE);
      scenario = loaded;
      return { merchants: loaded.merchants, stored: loaded };
    },
    runDue: () => ctx.work.runUntil(undefined, { settle: false }),
    // listeners attached (a dashboard, `paysandbox listen`) keep it open: closing would end their streams
    busy: () => ctx.webhooks.busy || ctx.events.listening > 0,
    startClockAt(ms) {
      clock.resetTo(ms);
      ctx.clockStore.save();
    },
    async close(graceMs, deletion) {
      // its listeners' streams end (they reconnect, which opens it again)
      ctx.events.close();
      await ctx.work.idle();
      if (deletion) {
        // deleted: what is due goes out and is answered first (docs/parallel-suites.md#deleting-a-sandbox),
        // and what is cut off is final; nothing else is kept (its database goes next): no clock saved,
        // no next work asked for
        if (deletion.settleDue) await ctx.webhooks.settleDue();
        ctx.webhooks.interrupt({ deleted: true });
        await ctx.work.idle();
        await ctx.webhooks.close();
        return { nowMs: clock.nowMs(), nextDueAt: undefined };
      }
      // where its work is due, before the dispatcher stops (a stopped one reports none)
      const dueBefore = ctx.work.nextDueAt();
      // closed: the rest is retried when it opens again
      const interrupted = await ctx.webhooks.drain(graceMs);
      await ctx.work.idle();
      await ctx.webhooks.close();
      const nowMs = clock.nowMs();
      if (db.$client.open) {
        ctx.clockStore.save();
        commitNow(db.$client);
      }
      // an attempt cut off is retried: open it again soon to do so
      return { nowMs, nextDueAt: interrupted > 0 ? nowMs : dueBefore };
    },
  };
}
