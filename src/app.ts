/**
 * createApp(ctx) → the HTTP surface. Pure: importing or calling it starts nothing (no timers,
 * no listeners), so tests build one per case on `:memory:`.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { accepts } from "hono/accepts";
import type { AppContext } from "./context.js";
import { registerSandbox } from "./control/control.handlers.js";
import { FAULT_ROUTES, faultInjection, rateLimit } from "./control/faults.js";
import { registerTransactionsControl } from "./control/transactions.handlers.js";
import { registerCoverage } from "./coverage/coverage.handlers.js";
import { dashboard } from "./dashboard/dashboard.handlers.js";
import { registerEvents } from "./events/events.handlers.js";
import { registerDocs } from "./guide/api-reference.js";
import { registerGuide } from "./guide/guide.handlers.js";
import { prefixLinks, stripBase } from "./http/base-path.js";
import { readBody } from "./http/body.js";
import { bodyTypesOf, documentCommonAnswers } from "./http/common-answers.js";
import type { AppEnv } from "./http/env.js";
import { errorHandler, notFoundHandler, validationHook } from "./http/errors.js";
import { GATEWAY_PREFIXES, REPORT_PATH } from "./http/gateway.js";
import { adminAuth, awaitCommit, bearerAuth, reportCredentials, requestContext } from "./http/middleware.js";
import { registerSecuritySchemes, serveOpenApi } from "./http/openapi.js";
import { htmlErrors } from "./http/page-errors.js";
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
import { RECORDED_PATHS, recordCalls } from "./recording/recorder.js";
import { registerRecording } from "./recording/recording.handlers.js";
import { SNAPSHOT_TYPE } from "./snapshots/snapshot-file.js";
import { registerSnapshots } from "./snapshots/snapshots.handlers.js";
import { registerCallbackDocs } from "./webhooks/callbacks.routes.js";
import { registerWebhooks } from "./webhooks/webhooks.handlers.js";

export const MAX_BODY_BYTES = 1024 * 1024;
/** A snapshot file posted to create a sandbox from (docs/snapshots.md). */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/** Each area adds its routes here, in one line. */
const MODULES: Array<(app: OpenAPIHono<AppEnv>, ctx: AppContext) => void> = [
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
  /**
   * The path a sandbox's app is mounted under (`/sandboxes/{id}`, docs/parallel-suites.md): its routes see paths
   * without it, and its pages' links carry it. None for the root.
   */
  basePath?: string;
  /** More routes on this app (the root's `/_sandbox/sandboxes`), registered with the modules. */
  routes?: ReadonlyArray<(app: OpenAPIHono<AppEnv>) => void>;
}

export function createApp(ctx: AppContext, opts: AppOptions = {}): OpenAPIHono<AppEnv> {
  const base = opts.basePath;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, ...(base ? { getPath: stripBase(base) } : {}) });

  // Middleware is mounted only where it applies: every async layer costs each request a few µs.
  app.use(requestContext(ctx.logger, base, lingerMs(ctx.config)));
  // an error answer of the gateway is counted by its kind before it leaves (docs/coverage.md)
  app.use(awaitCommit(ctx.db.$client, (c) => ctx.coverage.answered(c)));
  if (base) {
    // pages only (dashboard, shopper pages, docs, guide): the gateway API answers JSON and pays nothing for this
    const links = prefixLinks(base);
    for (const path of ["/", "/dashboard/*", "/sandbox/*", "/docs", "/docs/*", "/guide", "/guide/*"]) app.use(path, links);
  }
  // the shopper pages answer their errors as HTML (a browser posts them), before the body is read
  app.use("/sandbox/*", htmlErrors());
  // Who is asking is judged first, before anything about the request: its body is read after
  // (docs/control-plane.md#the-admin-token, docs/api.md#errors).
  if (ctx.config.adminToken) {
    const guard = adminAuth(ctx.config.adminToken);
    // health stays open so container health checks need no secret
    app.use("/_sandbox/*", (c, next) => (c.req.path === "/_sandbox/health" ? next() : guard(c, next)));
  }
  const board = dashboard(ctx);
  app.use("/dashboard/*", board.guard);
  const bearer = bearerAuth(ctx.auth);
  const report = reportCredentials(ctx.auth);
  for (const prefix of GATEWAY_PREFIXES) {
    app.use(`${prefix}/*`, bearer);
    app.post(`${prefix}${REPORT_PATH}`, report);
  }
  app.on(
    ["POST", "PUT", "PATCH", "DELETE"],
    "*",
    readBody(MAX_BODY_BYTES, { type: SNAPSHOT_TYPE, maxBytes: MAX_SNAPSHOT_BYTES, path: "/_sandbox/sandboxes" }),
  );
  if (ctx.recorder.enabled) {
    // after the auth checks: a refused call is never recorded (docs/recording.md); inside
    // awaitCommit, so a call's record commits with the call
    const record = recordCalls(ctx.recorder, ctx.clock);
    for (const path of RECORDED_PATHS) app.use(path, record);
  }
  // rate limit emulation (docs/configuration.md), then scenario fault rules (docs/scenarios.md#api-faults) on the create routes
  if (ctx.config.rateLimit) {
    const limiter = rateLimit(ctx.config.rateLimit);
    for (const prefix of GATEWAY_PREFIXES) app.use(`${prefix}/*`, (c, next) => (c.get("merchant") ? limiter(c, next) : next()));
  }
  for (const { path, flow } of FAULT_ROUTES) {
    const faults = faultInjection(ctx.outcomes, ctx.scenarios, flow);
    for (const prefix of GATEWAY_PREFIXES) app.post(`${prefix}${path}`, faults);
  }

  app.get("/", (c, next) => (wantsJson(c) ? c.json(INDEX) : next()));
  for (const register of MODULES) register(app, ctx);
  board.register(app);
  for (const register of opts.routes ?? []) register(app);
  documentCommonAnswers(app.openAPIRegistry, { faultPaths: FAULT_ROUTES.map((r) => r.path) });

  registerSecuritySchemes(app);
  serveOpenApi(app, {
    serverUrl: ctx.publicUrl,
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
  app.onError(errorHandler(ctx.logger, bodyTypesOf(app.openAPIRegistry)));
  return app;
}
