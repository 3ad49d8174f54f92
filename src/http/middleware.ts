import type { ServerResponse } from "node:http";
import type Database from "better-sqlite3";
import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { committed } from "../db/commit.js";
import type { Merchant } from "../db/schema/index.js";
import { safeEqual } from "../platform/crypto.js";
import { type SandboxError, unauthorized } from "../platform/errors.js";
import type { AppEnv, Scoped } from "./env.js";
import { GATEWAY_PREFIXES, PUBLIC_GATEWAY_PATHS } from "./gateway.js";
import { LINGER_MAX_MS, lingerIfUnread } from "./linger.js";

/** What the gateway's auth middleware needs of the auth service: the merchant of a request's credentials, or a 401. */
export interface Authenticator {
  authenticate(header: string | undefined): Promise<Merchant> | Merchant;
  verifyCredentials(merchantKey: string | undefined, merchantSecret: string | undefined): Merchant;
}

/**
 * Resolves the merchant from the bearer token for every gateway route but the public ones. Mounted
 * before the body is read: who is asking is judged first (docs/api.md#errors).
 */
export function bearerAuth(authOf: Scoped<Authenticator>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const path = c.req.path;
    const prefix = GATEWAY_PREFIXES.find((p) => path.startsWith(`${p}/`));
    if (prefix && !PUBLIC_GATEWAY_PATHS.has(path.slice(prefix.length))) {
      c.set("merchant", await authOf(c).authenticate(c.req.header("authorization")));
    }
    await next();
  };
}

/** The report's own credentials, `x-merchant-key` and `x-merchant-secret` (docs/report.md), judged before its body. */
export function reportCredentials(authOf: Scoped<Authenticator>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("merchant", authOf(c).verifyCredentials(c.req.header("x-merchant-key"), c.req.header("x-merchant-secret")));
    await next();
  };
}

const ADMIN_BEARER = /^Bearer\s+(\S+)$/i;

/**
 * Why an Authorization header does not carry the admin token, or undefined when it does
 * (docs/control-plane.md#the-admin-token): none, one of another form, or a token that does not match.
 * The answer never repeats what was sent.
 */
export function adminRefusal(header: string | undefined, token: string): SandboxError | undefined {
  if (!header) return unauthorized("Admin token required: Authorization: Bearer <SANDBOX_ADMIN_TOKEN>");
  const given = ADMIN_BEARER.exec(header)?.[1];
  if (given === undefined) return unauthorized("Malformed Authorization header: expected Bearer <SANDBOX_ADMIN_TOKEN>");
  if (!safeEqual(given, token)) return unauthorized("Wrong admin token: the bearer token does not match SANDBOX_ADMIN_TOKEN");
  return undefined;
}

/** Protects /_sandbox/* with SANDBOX_ADMIN_TOKEN when it is set (docs/control-plane.md), before the body is read. */
export function adminAuth(token: string | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (token) {
      const refusal = adminRefusal(c.req.header("authorization"), token);
      if (refusal) throw refusal;
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
export function awaitCommit(
  sqliteOf: Scoped<Database.Database>,
  refused?: (c: Context<AppEnv>) => void,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (refused && c.res.status >= 400) refused(c);
    const done = committed(sqliteOf(c));
    if (done) await done;
  };
}

const REQUEST_ID = /^[\w\-.:]{1,255}$/;

/**
 * The request id (echoed from `X-Request-Id` when it is a sane token, else a new UUID) and one log
 * line per request: method, path, status, ms, request id. Bodies are never logged, so card numbers
 * and CVVs cannot reach the log. And an answer given before its body has all arrived closes the
 * connection after it without losing it (src/http/linger.ts; `lingerMs` bounds that). One middleware
 * for all three: each async layer costs every request.
 */
export function requestContext(
  loggerOf: Scoped<Logger>,
  basePathOf?: Scoped<string>,
  lingerMs = LINGER_MAX_MS,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const logger = loggerOf(c);
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
    lingerIfUnread(c.env, lingerMs);
    const status = c.res.status;
    if (!logInfo && status < 500) return;
    const ms = logInfo ? Math.round((performance.now() - start) * 10) / 10 : undefined;
    // a 4xx/5xx says why (its errorMessage names a field, never a value: no card data)
    const errorMessage = status >= 400 ? c.get("errorMessage") : undefined;
    // a sandbox's routes see paths without its base (docs/parallel-suites.md); its log lines show the whole path
    const path = basePathOf ? basePathOf(c) + c.req.path : c.req.path;
    const line = { reqId, method: c.req.method, path, status, ms, ...(errorMessage ? { errorMessage } : {}) };
    const msg = `${c.req.method} ${path} ${status}${ms === undefined ? "" : ` ${ms}ms`}${errorMessage ? `: ${errorMessage}` : ""}`;
    if (status >= 500) logger.error(line, msg);
    else logger.info(line, msg);
  };
}
