/**
 * Mounts a gateway route under both `/api/v1` and `/v1` (docs/api.md: the interface uses
 * both). The `/v1` alias is hidden from /openapi.json to keep the document readable.
 */
import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "./env.js";

export const GATEWAY_PREFIXES = ["/api/v1", "/v1"] as const;

/** The report's path under the prefixes: its credentials are headers of its own (docs/report.md). */
export const REPORT_PATH = "/report-generator/s2s";

/** Paths under the prefixes that take no bearer token (auth itself, the report's own headers). */
export const PUBLIC_GATEWAY_PATHS = new Set(["/auth", REPORT_PATH]);

/** Paths under the prefixes whose error body is `{ error }`, not `{ errorMessage }` (docs/api.md: the report). */
const ERROR_FIELD_PATHS = new Set([REPORT_PATH]);

/**
 * The error body's field for a request path: `error` on the report route (docs/report.md, docs/api.md#errors),
 * `errorMessage` everywhere else (docs/api.md). Every error of the route (body, 413, validation,
 * credentials) takes it, because the error handler asks here.
 */
export function errorFieldFor(path: string): "error" | "errorMessage" {
  const prefix = GATEWAY_PREFIXES.find((p) => path.startsWith(`${p}/`));
  return prefix && ERROR_FIELD_PATHS.has(path.slice(prefix.length)) ? "error" : "errorMessage";
}

export function gatewayRoute<R extends RouteConfig>(app: OpenAPIHono<AppEnv>, route: R, handler: RouteHandler<R, AppEnv>) {
  for (const prefix of GATEWAY_PREFIXES) {
    const aliased = { ...route, path: `${prefix}${route.path}`, hide: prefix !== "/api/v1" || route.hide } as R;
    // biome-ignore lint/suspicious/noExplicitAny: the handler's types come from `route`; only the path prefix differs.
    app.openapi(aliased, handler as any);
  }
}
