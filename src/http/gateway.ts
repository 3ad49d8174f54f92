/**
 * Mounts a gateway route under both `/api/v1` and `/v1` (CONTRACT §3: the interface uses
 * both). The `/v1` alias is hidden from /openapi.json to keep the document readable.
 */
import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "./env.js";

export const GATEWAY_PREFIXES = ["/api/v1", "/v1"] as const;

/** Paths under the prefixes that take no bearer token (auth itself, the report's own headers). */
export const PUBLIC_GATEWAY_PATHS = new Set(["/auth", "/report-generator/s2s"]);

export function gatewayRoute<R extends RouteConfig>(app: OpenAPIHono<AppEnv>, route: R, handler: RouteHandler<R, AppEnv>) {
  for (const prefix of GATEWAY_PREFIXES) {
    const aliased = { ...route, path: `${prefix}${route.path}`, hide: prefix !== "/api/v1" || route.hide } as R;
    // biome-ignore lint/suspicious/noExplicitAny: the handler's types come from `route`; only the path prefix differs.
    app.openapi(aliased, handler as any);
  }
}
