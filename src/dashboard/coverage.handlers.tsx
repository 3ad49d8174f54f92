/** The Coverage page (docs/coverage.md#the-dashboard): read only, from the sandbox's coverage report. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import { CoveragePage } from "./coverage.view.js";
import type { PageKit } from "./page-kit.js";

export function registerCoveragePage(app: OpenAPIHono<AppEnv>, kit: PageKit) {
  app.get(
    "/dashboard/coverage",
    kit.htmlPage("coverage", (c, f) => <CoveragePage frame={f} report={kit.scope(c).ctx.coverage.report()} />),
  );
}
