/**
 * The dashboard's routes (docs/dashboard.md): HTML pages at `/` and under `/dashboard/`, and form POSTs
 * that perform an action through the service that owns it (actions.ts) and answer 303 back to the
 * page (Post/Redirect/Get), with the outcome (a 4xx from the service included) as a flash message
 * (flash.ts). Pages read through DashboardRepo and change nothing. The routes are grouped by page:
 * transactions.handlers.tsx, lists.handlers.tsx, coverage.handlers.tsx, tools.handlers.tsx, session.handlers.tsx.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type AppEnv, perSandbox, type Scoped } from "../http/env.js";
import { DashboardAccess } from "./access.js";
import { dashboardActions } from "./actions.js";
import { registerCoveragePage } from "./coverage.handlers.js";
import { DashboardRepo } from "./dashboard.repo.js";
import type { DashboardDeps } from "./deps.js";
import { registerListPages } from "./lists.handlers.js";
import { pageKit } from "./page-kit.js";
import { dashboardGuard, registerSession } from "./session.handlers.js";
import { registerTools } from "./tools.handlers.js";
import { registerTransactionPages } from "./transactions.handlers.js";

/**
 * `GET /` for browsers and everything under `/dashboard/` (docs/dashboard.md): the guard of
 * `/dashboard/*`, which the app mounts before any body is read (who is asking is judged first), and
 * `register`, which adds the routes. What a sandbox's dashboard holds (its queries, its session) is
 * made on its first dashboard request and kept while its services live.
 */
export function dashboard(of: Scoped<DashboardDeps>): {
  guard: MiddlewareHandler<AppEnv>;
  register(app: OpenAPIHono<AppEnv>): void;
} {
  const scope = perSandbox(of, (ctx) => ({
    ctx,
    repo: new DashboardRepo(ctx.db),
    access: new DashboardAccess({ adminToken: ctx.config.adminToken, publicUrl: ctx.publicUrl }),
    actions: dashboardActions(ctx),
  }));
  const kit = pageKit(scope);
  const guard = dashboardGuard(kit);
  return {
    guard,
    register(app) {
      registerTransactionPages(app, kit, guard);
      registerListPages(app, kit);
      registerCoveragePage(app, kit);
      registerTools(app, kit);
      registerSession(app, kit);
      // a bookmark of the old JSON index, or a typo under /dashboard, lands somewhere useful
      app.get("/dashboard", (c) => c.redirect("/", 303));
    },
  };
}
