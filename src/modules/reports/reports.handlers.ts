import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Db } from "../../db/client.js";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { reportRoute } from "./reports.routes.js";
import { openReport } from "./reports.service.js";

/**
 * The transaction report (docs/report.md, docs/gateway.md#authentication), under /api/v1 and /v1.
 * Credentials come in headers, checked by the app before the body is read (src/http/middleware.ts
 * reportCredentials), so wrong credentials are always a 401, whatever the body; every error of the
 * route is `{ error }` (src/http/gateway.ts errorFieldFor).
 */
export function registerReports(app: OpenAPIHono<AppEnv>, of: Scoped<{ db: Db }>) {
  for (const name of ["MerchantKey", "MerchantSecret"] as const) {
    app.openAPIRegistry.registerComponent("securitySchemes", name, {
      type: "apiKey",
      in: "header",
      name: name === "MerchantKey" ? "x-merchant-key" : "x-merchant-secret",
      description: "The report's credentials (docs/gateway.md#authentication): the merchant key and secret",
    });
  }
  gatewayRoute(app, reportRoute, (c) => {
    const report = openReport(of(c).db, c.get("merchant"), c.req.valid("json"));
    return c.body(report.body, 200, {
      "Content-Type": report.contentType,
      "Content-Disposition": `attachment; filename="${report.filename}"`,
      "Cache-Control": "no-store",
    });
  });
}
