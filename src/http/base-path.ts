/**
 * A sandbox's routes answer under its base URL (`/sandboxes/{id}`, docs/parallel-suites.md): the router sees
 * paths without the prefix (`stripBase`), and what it answers a browser carries it (`prefixLinks`):
 * every root-relative link, form action and script/style source of an HTML page, and a root-relative
 * redirect. One mechanism for every page (dashboard, 3DS, HPP, QR, docs), so no view needs to know
 * where it is mounted. URLs handed out in JSON come from the composition's publicUrl instead.
 */
import type { MiddlewareHandler } from "hono";
import { getPath } from "hono/utils/url";
import type { AppEnv, Scoped } from "./env.js";

/**
 * Hono's getPath, less the base of the request's sandbox (`baseOf` reads it from the request's
 * bindings, which the routing layer sets; a path that is the base alone is `/`).
 */
export function stripBase(baseOf: (env: unknown) => string | undefined): (req: Request, options?: { env?: unknown }) => string {
  return (req, options) => {
    const path = getPath(req);
    const n = baseOf(options?.env)?.length ?? 0;
    if (n === 0) return path;
    return path.length > n ? path.slice(n) : "/";
  };
}

/** Root-relative URLs in attributes (`href="/x"`, not `href="//host"`); text is escaped by JSX, so it never matches. */
const ATTRIBUTE = /\b(href|action|src|formaction)="\/(?!\/)/g;

export function prefixLinks(baseOf: Scoped<string>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const base = baseOf(c);
    const location = c.res.headers.get("location");
    if (location?.startsWith("/") && !location.startsWith("//")) c.res.headers.set("location", `${base}${location}`);
    if (!c.res.headers.get("content-type")?.startsWith("text/html") || !c.res.body) return;
    const html = await c.res.text();
    const headers = new Headers(c.res.headers);
    headers.delete("content-length");
    c.res = new Response(html.replace(ATTRIBUTE, `$1="${base}/`), { status: c.res.status, headers });
  };
}
