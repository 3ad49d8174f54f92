/**
 * What a route takes besides what every route takes, declared beside its `createRoute` (`declare`)
 * and mounted on that route alone by the route helpers (`gatewayRoute`, `openRoute`): whether a
 * scenario's fault rules answer on it, and whether it is recorded for the session's steps file. A
 * reader of a routes file sees the whole of what runs for it; no table elsewhere names its path.
 *
 * The middleware itself comes from the app that mounts the route (`provideUse`, in src/app.ts): the
 * fault rules and the recording belong to a sandbox, the declaration to the route.
 */
import type { Hook, OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Flow } from "../platform/fixtures.js";
import type { AppEnv } from "./env.js";

/** How a recorded call replays (docs/recording.md): a gateway or control call, a clock move, a shopper page's post. */
export type RecordedKind = "request" | "advance" | "threeDS" | "hpp" | "qr";

export interface RouteUse {
  /** A scenario's fault rules (docs/scenarios.md#api-faults) answer on this create route, matched as this flow. */
  faults?: Flow;
  /**
   * Recorded for the session's steps file (docs/recording.md), as this kind of call; `false`: never.
   * A gateway route is recorded as a `request` unless it says otherwise; any other route only when it says so.
   */
  recorded?: RecordedKind | false;
}

/** The middleware an app mounts for what its routes declare. */
export interface UseKit {
  faults(flow: Flow): MiddlewareHandler<AppEnv>;
  /** Undefined when the app records nothing (SANDBOX_RECORDING_KEEP=0): the route then pays nothing for it. */
  recorded(kind: RecordedKind): MiddlewareHandler<AppEnv> | undefined;
}

const USE = Symbol("route use");
const KITS = new WeakMap<object, { kit: UseKit; faultPaths: string[] }>();

/**
 * A route with what it takes. Kept off the route's own properties (a symbol that spreads and the
 * OpenAPI document do not see), so the route config stays what `createRoute` made.
 */
export function declare<R extends RouteConfig>(route: R, use: RouteUse): R {
  Object.defineProperty(route, USE, { value: use, enumerable: false });
  return route;
}

/** What `route` declared (nothing when it declared nothing). */
export function useOf(route: RouteConfig): RouteUse {
  return (route as unknown as Record<symbol, RouteUse | undefined>)[USE] ?? {};
}

/** The app's own middleware for what its routes declare; before any route is registered. */
export function provideUse(app: OpenAPIHono<AppEnv>, kit: UseKit): void {
  KITS.set(app, { kit, faultPaths: [] });
}

/** The paths (as declared, without a gateway prefix) whose fault rules this app mounted: for the OpenAPI document. */
export function faultPathsOf(app: OpenAPIHono<AppEnv>): readonly string[] {
  return KITS.get(app)?.faultPaths ?? [];
}

/**
 * The middleware `route` declared, from the app's kit, in the order they run: the recording first
 * (it wraps the whole call, a fault's answer included), then the fault rules (before the body is validated).
 */
export function declaredMiddleware(
  app: OpenAPIHono<AppEnv>,
  route: RouteConfig,
  defaults: RouteUse = {},
): Array<MiddlewareHandler<AppEnv>> {
  const use = { ...defaults, ...useOf(route) };
  const provided = KITS.get(app);
  if (!provided) return [];
  const out: Array<MiddlewareHandler<AppEnv>> = [];
  const record = use.recorded ? provided.kit.recorded(use.recorded) : undefined;
  if (record) out.push(record);
  if (use.faults) {
    out.push(provided.kit.faults(use.faults));
    provided.faultPaths.push(route.path);
  }
  return out;
}

/** Registers a route that is not under the gateway's prefixes (the control plane, the shopper pages) with what it declared. */
export function openRoute<R extends RouteConfig>(
  app: OpenAPIHono<AppEnv>,
  route: R,
  handler: RouteHandler<R, AppEnv>,
  hook?: Hook<unknown, AppEnv, string, unknown>,
): void {
  const middleware = declaredMiddleware(app, route);
  const mounted = middleware.length > 0 ? { ...route, middleware: [...middleware, ...[route.middleware ?? []].flat()] } : route;
  // biome-ignore lint/suspicious/noExplicitAny: the handler's and hook's types come from `route`; only its middleware is added.
  app.openapi(mounted as R, handler as any, hook as any);
}
