/**
 * One envelope for every error (CONTRACT §3): `{ errorMessage }` with the status of the
 * error's code. Three tiers (Unkey's onError): ours, Hono's HTTPException, unknown → 500 + log.
 */
import type { Hook } from "@hono/zod-openapi";
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "pino";
import type { z } from "zod";
import { badRequest, SandboxError } from "../platform/errors.js";
import type { AppEnv } from "./env.js";
import { errorFieldFor } from "./gateway.js";

export const errorBody = (message: string) => ({ errorMessage: message });

/** The error body for this request's path: `{ errorMessage }`, or `{ error }` where the route wants it. */
const errorBodyFor = (c: Context<AppEnv>, message: string) =>
  errorFieldFor(c.req.path) === "error" ? { error: message } : errorBody(message);

/** `billingDetails.email`, `order.items[0].name`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

/** The value at `path` inside a raw input, or undefined when any step is absent. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * The first zod issue as the interface's `Missing required field: x` / `Invalid field: x`.
 * "Missing" means the raw input has nothing (or null) at that path, whatever zod's issue code
 * (zod 4 reports a missing enum as an invalid value); without the raw input, zod's message decides.
 */
export function zodToSandboxError(error: z.ZodError, target: string, raw?: unknown): SandboxError {
  const issue = error.issues[0];
  if (!issue) return badRequest("Invalid request");
  let path = issue.path;
  if (issue.code === "unrecognized_keys") path = [...path, issue.keys[0] ?? ""];
  const name = fieldPath(path) || (target === "json" ? "body" : target);
  const missing =
    issue.code !== "unrecognized_keys" && path.length > 0 && raw !== undefined
      ? valueAt(raw, path) == null
      : issue.code === "invalid_type" && /received undefined/.test(issue.message);
  return badRequest(`${missing ? "Missing required field" : "Invalid field"}: ${name}`);
}

/** The raw input a validator saw (Hono caches the parsed body), for telling missing from invalid. */
async function rawInput(c: Context<AppEnv>, target: string): Promise<unknown> {
  try {
    if (target === "json") return await c.req.json();
    if (target === "query") return c.req.query();
    if (target === "param") return c.req.param();
  } catch {
    // unreadable: fall back to zod's own message
  }
  return undefined;
}

/** OpenAPIHono defaultHook: validation failures go through the same envelope. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = async (result, c) => {
  if (!result.success) {
    const err = zodToSandboxError(result.error as z.ZodError, result.target, await rawInput(c, result.target));
    return c.json(errorBodyFor(c, err.message), 400);
  }
};

export function errorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof SandboxError) return c.json(errorBodyFor(c, err.message), err.status);
    if (err instanceof HTTPException) {
      const status = err.status;
      const message =
        status === 400 && /JSON/i.test(err.message)
          ? "Malformed JSON in request body"
          : status === 413
            ? "Request body too large (limit 1 MiB)"
            : status === 415
              ? "Unsupported Media Type: send Content-Type: application/json"
              : err.message || "Request refused";
      return c.json(errorBodyFor(c, message), status);
    }
    logger.error({ err, path: c.req.path, requestId: c.get("requestId") }, "unhandled error");
    return c.json(errorBodyFor(c, "Internal sandbox error"), 500);
  };
}

export const notFoundHandler: NotFoundHandler<AppEnv> = (c: Context<AppEnv>) =>
  c.json(errorBodyFor(c, `Not found: ${c.req.method} ${c.req.path}`), 404);
