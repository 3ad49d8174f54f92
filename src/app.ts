/**
 * The HTTP surface: createApp(ctx) for one sandbox (the root's, a test's on `:memory:`), and
 * createSandboxesApp(config) for every sandbox of a server at once, whose requests name their
 * sandbox. Pure: importing or calling them starts nothing (no timers, no listeners).
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { accepts } from "hono/accepts";
import type { Config } from "./config.js";
import type { AppContext } from "./context.js";
import { registerCallbackDocs } from "./control/callbacks.routes.js";
import { registerSandbox } from "./control/control.handlers.js";
import { faultInjection, rateLimit } from "./control/faults.js";
import { registerTransactionsControl } from "./control/transactions.handlers.js";
import { registerWebhooks } from "./control/webhooks.handlers.js";
import { registerCoverage } from "./coverage/coverage.handlers.js";
import { dashboard } from "./dashboard/dashboard.handlers.js";
import { registerEvents } from "./events/events.handlers.js";
import { registerDocs } from "./guide/api-reference.js";
import { registerGuide } from "./guide/guide.handlers.js";
import { prefixLinks, stripBase } from "./http/base-path.js";
import { readBody } from "./http/body.js";
import { bodyTypesOf, documentCommonAnswers } from "./http/common-answers.js";
import type { AppEnv, RouteContext, Scoped } from "./http/env.js";
import { errorHandler, notFoundHandler, validationHook } from "./http/errors.js";
import { GATEWAY_PREFIXES, REPORT_PATH } from "./http/gateway.js";
import { adminAuth, awaitCommit, bearerAuth, reportCredentials, requestContext } from "./http/middleware.js";
import { registerSecuritySchemes, serveOpenApi } from "./http/openapi.js";
import { htmlErrors } from "./http/page-errors.js";
import { faultPathsOf, provideUse } from "./http/route-use.js";
import { lingerMs } from "./http/server-timeouts.js";
import { registerApm } from "./modules/apm/apm.handlers.js";
import { registerShopperPages } from "./modules/apm/hpp.handlers.js";
import { registerAuth } from "./modules/auth/auth.handlers.js";
import { registerPayments } from "./modules/payments/payments.handlers.js";
import { registerThreeDs } from "./modules/payments/three-ds.handlers.js";
import { registerPayouts } from "./modules/payouts/payouts.handlers.js";
import { registerRefunds } from "./modules/refunds/refunds.handlers.js";
import { registerReports } from "./modules/reports/reports.handlers.js";
import { registerSubscriptions } from "./modules/subscriptions/subscriptions.handlers.js";
import { registerTokens } from "./modules/tokens/tokens.handlers.js";
import { registerWallet } from "./modules/wallet/wallet.handlers.js";
import { recordCalls, recordingEnabled } from "./recording/recorder.js";
import { registerRecording } from "./recording/recording.handlers.js";
import { SNAPSHOT_TYPE } from "./snapshots/snapshot-file.js";
import { registerSnapshots } from "./snapshots/snapshots.handlers.js";

export const MAX_BODY_BYTES = 1024 * 1024;
/** A snapshot file posted to create a sandbox from (docs/snapshots.md). */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/** Each area adds its routes here, in one line; each route reaches its sandbox's services through `of(c)` (src/http/env.ts). */
const MODULES: Array<(app: OpenAPIHono<AppEnv>, of: Scoped<AppContext>) => void> = [
  registerAuth,
  registerSandbox,
  registerWebhooks,
  registerCallbackDocs,
  registerEvents,
  registerRecording,
  registerCoverage,
  registerSnapshots,
  registerPayments,
  registerTokens,
  registerSubscriptions,
  registerRefunds,
  registerPayouts,
  registerApm,
  registerWallet,
  registerThreeDs,
  registerShopperPages,
  registerTransactionsControl,
  registerReports,
];

/** What `GET /` answers a client that asks for JSON (browsers get the dashboard, docs/dashboard.md). */
const INDEX = {
  name: "paysandbox",
  docs: "/docs",
  openapi: "/openapi.json",
  health: "/_sandbox/health",
  sandboxes: "/_sandbox/sandboxes",
};

/** Only a client that prefers JSON to HTML gets JSON; a browser, an Accept of any type or none at all gets the dashboard. */
const wantsJson = (c: Context) =>
  accepts(c, { header: "Accept", supports: ["text/html", "application/json"], default: "text/html" }) === "application/json";

export interface AppOptions {
  /** More routes on this app (the root's `/_sandbox/sandboxes`), registered with the modules. */
  routes?: ReadonlyArray<(app: OpenAPIHono<AppEnv>) => void>;
}

/**
 * One sandbox's app: the root's, or one built on `:memory:` by a test; every route reaches `ctx`.
 * The sandboxes of a server share one app instead (`createSandboxesApp`).
 */
export function createApp(ctx: AppContext, opts: AppOptions = {}): OpenAPIHono<AppEnv> {
  return buildApp(ctx.config, { of: () => ctx, routes: opts.routes ?? [] });
}

/**
 * What the routing layer hands the sandboxes' app with a request (src/compose.ts): the Node
 * server's bindings as they came, the services of the sandbox it is for, and the path that sandbox
 * is mounted under (`/sandboxes/{id}`, docs/parallel-suites.md).
 */
export interface SandboxBindings {
  incoming?: unknown;
  outgoing?: unknown;
  sandbox: AppContext;
  base: string;
}

const bindingsOf = (c: RouteContext) => c.env as SandboxBindings;

/**
 * The one app of every sandbox under `/sandboxes/{id}` (docs/architecture.md "One route tree"),
 * built once per server: its routes see paths without the base and its pages' links carry it
 * (src/http/base-path.ts), and each request reaches the services of the sandbox its bindings name.
 * No sandbox pays for building routes or compiling the router, which is compiled here.
 */
export function createSandboxesApp(config: Config): OpenAPIHono<AppEnv> {
  const app = buildApp(config, {
    of: (c) => bindingsOf(c).sandbox,
    base: { of: (c) => bindingsOf(c).base, ofEnv: (env) => (env as SandboxBindings | undefined)?.base },
    routes: [],
  });
  // hono compiles its router at the first match: done now, at start, not in the first sandbox request
  app.router.match("GET", "/");
  return app;
}

interface Tree {
  /** Where a request's sandbox comes from. */
  of: Scoped<AppContext>;
  /** Where a request's sandbox is mounted; none for the root's. */
  base?: { of: Scoped<string>; ofEnv: (env: unknown) => string | undefined };
  routes: ReadonlyArray<(app: OpenAPIHono<AppEnv>) => void>;
}

function buildApp(config: Config, tree: Tree): OpenAPIHono<AppEnv> {
  const { of, base } = tree;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, ...(base ? { getPath: stripBase(base.ofEnv) } : {}) });

  // Middleware is mounted only where it applies: every async layer costs each request a few µs.
  app.use(requestContext((c) => of(c).logger, base?.of, lingerMs(config)));
  // an error answer of the gateway is counted by its kind before it leaves (docs/coverage.md)
  app.use(
    awaitCommit(
      (c) => of(c).db.$client,
      (c) => of(c).coverage.answered(c),
    ),
  );
  if (base) {
    // pages only (dashboard, shopper pages, docs, guide): the gateway API answers JSON and pays nothing for this
    const links = prefixLinks(base.of);
    for (const path of ["/", "/dashboard/*", "/sandbox/*", "/docs", "/docs/*", "/guide", "/guide/*"]) app.use(path, links);
  }
  // the shopper pages answer their errors as HTML (a browser posts them), before the body is read
  app.use("/sandbox/*", htmlErrors());
  // Who is asking is judged first, before anything about the request: its body is read after
  // (docs/control-plane.md#the-admin-token, docs/api.md#errors). The token is the server's, the same in every sandbox.
  if (config.adminToken) {
    const guard = adminAuth(config.adminToken);
    // health stays open so container health checks need no secret
    app.use("/_sandbox/*", (c, next) => (c.req.path === "/_sandbox/health" ? next() : guard(c, next)));
  }
  const board = dashboard(of);
  app.use("/dashboard/*", board.guard);
  const authOf = (c: RouteContext) => of(c).auth;
  const bearer = bearerAuth(authOf);
  const report = reportCredentials(authOf);
  for (const prefix of GATEWAY_PREFIXES) {
    app.use(`${prefix}/*`, bearer);
    app.post(`${prefix}${REPORT_PATH}`, report);
  }
  app.on(
    ["POST", "PUT", "PATCH", "DELETE"],
    "*",
    readBody(MAX_BODY_BYTES, { type: SNAPSHOT_TYPE, maxBytes: MAX_SNAPSHOT_BYTES, path: "/_sandbox/sandboxes" }),
  );
  // rate limit emulation (docs/configuration.md), each sandbox's merchants counted on their own
  if (config.rateLimit) {
    const limiter = rateLimit(config.rateLimit, of);
    for (const prefix of GATEWAY_PREFIXES) app.use(`${prefix}/*`, (c, next) => (c.get("merchant") ? limiter(c, next) : next()));
  }
  // what a route declares (src/http/route-use.ts), mounted on it by its route helper after the auth
  // checks above: the recording (a refused call is never recorded, docs/recording.md; inside
  // awaitCommit, so a call's record commits with the call) and scenario fault rules (docs/scenarios.md#api-faults)
  const recording = recordingEnabled(config.recordingKeep);
  provideUse(app, {
    recorded: (kind) => (recording ? recordCalls(of, kind) : undefined),
    faults: (flow) => faultInjection((c) => of(c).outcomes, flow),
  });

  app.get("/", (c, next) => (wantsJson(c) ? c.json(INDEX) : next()));
  for (const register of MODULES) register(app, of);
  board.register(app);
  for (const register of tree.routes) register(app);
  documentCommonAnswers(app.openAPIRegistry, { faultPaths: faultPathsOf(app) });

  registerSecuritySchemes(app);
  serveOpenApi(app, {
    serverUrl: (c) => of(c).publicUrl(),
    root: base === undefined,
    info: {
      title: "paysandbox",
      version: "0.1.0",
      description:
        "A local sandbox of the card and APM gateway: the gateway API (under /api/v1 and, identically, /v1, which this document leaves out) and the /_sandbox control plane; `webhooks` holds the callbacks it sends. " +
        "The guides (getting started, status lifecycles, ...) are served by this server at [/guide](/guide); the dashboard at [/](/). " +
        "A path of this document asked with a method it does not list answers 405 with an `Allow` header naming the methods it serves, " +
        "and the error body of its operations; a path it does not hold answers 404.",
    },
  });
  registerDocs(app);
  registerGuide(app);

  app.notFound(notFoundHandler(() => app.routes));
  app.onError(errorHandler((c) => of(c).logger, bodyTypesOf(app.openAPIRegistry)));
  return app;
}
