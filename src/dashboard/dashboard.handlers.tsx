/**
 * The dashboard's routes (docs/dashboard.md): HTML pages at `/` and under `/dashboard/`, and form POSTs
 * that perform an action through the service that owns it (actions.ts) and answer 303 back to the
 * page (Post/Redirect/Get), with the outcome (a 4xx from the service included) as a flash message
 * (flash.ts). Pages read through DashboardRepo and change nothing. The routes are grouped by page:
 * transactions.handlers.tsx, lists.handlers.tsx, coverage.handlers.tsx, tools.handlers.tsx, session.handlers.tsx.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
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
 * `register`, which adds the routes.
 */
export function dashboard(ctx: DashboardDeps): { guard: MiddlewareHandler<AppEnv>; register(app: OpenAPIHono<AppEnv>): void } {
  const repo = new DashboardRepo(ctx.db);
  const access = new DashboardAccess(ctx.config.adminToken, ctx.publicUrl);
  const kit = pageKit(ctx, repo, access);
  const guard = dashboardGuard(access, kit);
  return {
    guard,
    register(app) {
      const actions = dashboardActions(ctx);
      registerTransactionPages(app, ctx, repo, kit, actions, guard);
      registerListPages(app, repo, kit);
      registerCoveragePage(app, ctx, kit);
      registerTools(app, ctx, kit, actions);
      registerSession(app, access);
      // a bookmark of the old JSON index, or a typo under /dashboard, lands somewhere useful
      app.get("/dashboard", (c) => c.redirect("/", 303));
    },
  };
}
