/**
 * The answers that middleware gives on behalf of many operations, added to each operation's
 * documented responses in one place (so /openapi.json lists every status a route can answer,
 * without each route repeating them):
 *
 * - a route that takes a body: 400 (malformed), 413 (over 1 MiB), 415 (another content type);
 * - a gateway route behind the bearer token: 429 when rate limit emulation is on (docs/configuration.md);
 * - the create routes that scenario fault rules reach: 429, 500, 502, 503 injected by a rule.
 *
 * An error answer has the route's own error body (the report's `{ error }`), else the envelope.
 */
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import { GATEWAY_PREFIXES, PUBLIC_GATEWAY_PATHS } from "./gateway.js";
import { ErrorSchema } from "./schemas.js";

type Responses = RouteConfig["responses"];
type Registry = OpenAPIHono["openAPIRegistry"];
const contentOf = (r: Responses[string] | undefined) => (r && "content" in r ? r.content : undefined);

const FAULT = "Only when a scenario rule injects this fault (`httpStatus`); nothing is created";

export interface CommonAnswersOptions {
  /** Paths (without the gateway prefix) whose POST scenario fault rules reach. */
  faultPaths: readonly string[];
}

export function documentCommonAnswers(registry: Registry, opts: CommonAnswersOptions): void {
  const faults = new Set(opts.faultPaths);
  for (const def of registry.definitions) {
    if (def.type !== "route") continue;
    const route = def.route;
    // this app's copy: the route configs are module constants shared by every app
    const responses: Responses = { ...route.responses };
    def.route = { ...route, responses };
    const errorContent =
      contentOf(responses[400]) ?? contentOf(responses[401]) ?? ({ "application/json": { schema: ErrorSchema } } as const);
    const add = (status: number, description: string) => {
      if (!responses[status]) responses[status] = { description, content: errorContent };
    };
    const body = route.request?.body?.content;
    if (body) {
      const types = Object.keys(body).join(" or ");
      add(400, "Malformed body, or a field missing or invalid");
      add(413, "Body over 1 MiB");
      add(415, `A body that is not ${types}`);
    }
    const prefix = GATEWAY_PREFIXES.find((p) => route.path.startsWith(`${p}/`));
    const rest = prefix ? route.path.slice(prefix.length) : undefined;
    if (rest !== undefined && !PUBLIC_GATEWAY_PATHS.has(rest)) {
      add(
        429,
        "Only with rate limit emulation on (SANDBOX_RATE_LIMIT), over the limit, or a scenario rule's `httpStatus: 429`; with `Retry-After`",
      );
    }
    if (rest !== undefined && route.method === "post" && faults.has(rest)) {
      for (const status of [500, 502, 503]) add(status, FAULT);
    }
  }
}

/** What a route's body may be sent as, by method and Hono route path: `(POST, /_sandbox/sandboxes)` → its media types. */
export type BodyTypes = (method: string, routePath: string) => readonly string[] | undefined;

/**
 * The media types each route's body is declared with (docs/api.md#errors: a 415 names them), read
 * from the registry on first use (every route is registered by then).
 */
export function bodyTypesOf(registry: Registry): BodyTypes {
  let byRoute: Map<string, readonly string[]> | undefined;
  return (method, routePath) => {
    byRoute ??= new Map(
      registry.definitions.flatMap((def) => {
        const body = def.type === "route" ? def.route.request?.body?.content : undefined;
        if (def.type !== "route" || !body) return [];
        // OpenAPI's `{id}` is Hono's `:id`
        const path = def.route.path.replace(/\{([^}]+)\}/g, ":$1");
        return [[`${def.route.method.toUpperCase()} ${path}`, Object.keys(body)] as const];
      }),
    );
    return byRoute.get(`${method.toUpperCase()} ${routePath}`);
  };
}
