import type { ServerResponse } from "node:http";
import type Database from "better-sqlite3";
import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { committed } from "../db/commit.js";
import type { Merchant } from "../db/schema/index.js";
import { safeEqual } from "../platform/crypto.js";
import { unauthorized } from "../platform/errors.js";
import type { AppEnv } from "./env.js";
import { GATEWAY_PREFIXES, PUBLIC_GATEWAY_PATHS } from "./gateway.js";

/** What the bearer middleware needs of the auth service: the merchant of an Authorization header, or a 401. */
export interface Authenticator {
  authenticate(header: string | undefined): Promise<Merchant> | Merchant;
}

/** Resolves the merchant from the bearer token for every gateway route but the public ones. */
export function bearerAuth(auth: Authenticator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const path = c.req.path;
    const prefix = GATEWAY_PREFIXES.find((p) => path.startsWith(`${p}/`));
    if (prefix && !PUBLIC_GATEWAY_PATHS.has(path.slice(prefix.length))) {
      c.set("merchant", await auth.authenticate(c.req.header("authorization")));
    }
    await next();
  };
}

/** Protects /_sandbox/* with SANDBOX_ADMIN_TOKEN when it is set (docs/control-plane.md). */
export function adminAuth(token: string | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (token) {
      const header = c.req.header("authorization") ?? "";
      const given = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? "";
      if (!safeEqual(given, token)) throw unauthorized("Admin token required: Authorization: Bearer <SANDBOX_ADMIN_TOKEN>");
    }
    await next();
  };
}

/**
 * Group commit (src/db/commit.ts): an answer leaves only once the writes of its turn are
 * committed, so nothing is acknowledged that a crash could take back. A failed commit is a 500.
 * `refused`, when given, hears of every answer of 400 or more first (the coverage report's error
 * answers, docs/coverage.md), so what it writes commits with the answer; an answer below 400 costs one comparison.
 */
export function awaitCommit(sqlite: Database.Database, refused?: (c: Context<AppEnv>) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (refused && c.res.status >= 400) refused(c);
    const done = committed(sqlite);
    if (done) await done;
  };
}

const REQUEST_ID = /^[\w\-.:]{1,255}$/;

/**
 * The request id (echoed from `X-Request-Id` when it is a sane token, else a new UUID) and one log
 * line per request: method, path, status, ms, request id. Bodies are never logged, so card numbers
 * and CVVs cannot reach the log. One middleware for both: each async layer costs every request.
 */
export function requestContext(logger: Logger, basePath = ""): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header("x-request-id");
    const reqId = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    c.set("requestId", reqId);
    // On Node, straight on the ServerResponse (writeHead merges it with the answer's headers): Hono's
    // c.header() would make a WHATWG Headers for every answer, which the adapter then copies back
    // into a plain object (~3% of a card payment's CPU, docs/performance.md "The cost account").
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing && !outgoing.headersSent) outgoing.setHeader("X-Request-Id", reqId);
    else c.header("X-Request-Id", reqId);
    const logInfo = logger.isLevelEnabled("info");
    const start = logInfo ? performance.now() : 0;
    await next();
    const status = c.res.status;
    if (!logInfo && status < 500) return;
    const ms = logInfo ? Math.round((performance.now() - start) * 10) / 10 : undefined;
    // a 4xx/5xx says why (its errorMessage names a field, never a value: no card data)
    const errorMessage = status >= 400 ? c.get("errorMessage") : undefined;
    // a sandbox's routes see paths without its base (docs/parallel-suites.md); its log lines show the whole path
    const path = basePath + c.req.path;
    const line = { reqId, method: c.req.method, path, status, ms, ...(errorMessage ? { errorMessage } : {}) };
    const msg = `${c.req.method} ${path} ${status}${ms === undefined ? "" : ` ${ms}ms`}${errorMessage ? `: ${errorMessage}` : ""}`;
    if (status >= 500) logger.error(line, msg);
    else logger.info(line, msg);
  };
}
