import { z } from "@hono/zod-openapi";
import { INSTANT_PATTERN, INSTANT_REASON, parseInstant } from "../platform/clock.js";
import { DURATION_PATTERN, durationReason, parseDuration } from "../platform/duration.js";

/**
 * The control plane's security as it is (docs/control-plane.md): the admin token when SANDBOX_ADMIN_TOKEN is
 * set, nothing otherwise (the empty alternative). Health is open either way.
 */
export const ADMIN_SECURITY: Array<Record<string, string[]>> = [{ AdminToken: [] }, {}];

/** The error body of every 4xx/5xx (docs/api.md). */
export const ErrorSchema = z
  .object({
    errorMessage: z.string(),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: "On a 400: every problem found, each with its reason (errorMessage is the first)" }),
  })
  .openapi("Error");

export const errorResponses = (...codes: Array<400 | 401 | 404 | 409 | 413>) =>
  Object.fromEntries(
    codes.map((code) => [
      code,
      { description: ERROR_DESCRIPTIONS[code], content: { "application/json": { schema: ErrorSchema } } },
    ]),
  );

const ERROR_DESCRIPTIONS = {
  400: "Invalid request: `Missing required field: x` or `Invalid field: x`",
  401: "Missing, malformed or expired credentials",
  404: "Not found",
  409: "Conflict (requestId reused with other parameters, or a state that no longer allows it)",
  413: "Body over 1 MiB",
} as const;

/**
 * A hand-written recogniser of a route's body (docs/performance.md): the output zod's parse gives for
 * a body it is sure is valid (same object: keys, order, values), or undefined for anything else,
 * which zod then parses as before, so every 400 and its reasons still come from zod.
 */
export type Recogniser<T extends z.ZodType> = (input: unknown) => z.output<T> | undefined;

/** Whether recognisers answer (tests turn them off to compare answers with zod's alone). */
export const fastPaths = { enabled: true };

/**
 * A JSON request body that must be present (so a missing or non-JSON body is a 400, not ignored).
 * `recognise`: a fast path in front of the schema's parse, invisible to the OpenAPI document.
 */
export const jsonBody = <T extends z.ZodType>(schema: T, description?: string, recognise?: Recogniser<T>) => ({
  required: true,
  content: { "application/json": { schema: parsedSynchronously(schema, recognise) } },
  ...(description ? { description } : {}),
});

/**
 * The route validator (@hono/zod-validator) always calls `safeParseAsync`, whose machinery costs
 * more than the parse: 27 µs against 12 µs for a card payment body (docs/performance.md). Our schemas have no
 * async checks, so the schema's own `safeParseAsync` is replaced by its synchronous parse, same
 * result; one that does turn out async (zod throws $ZodAsyncError) gets the async parse from then on.
 * The instance is changed in place so that it stays the one the OpenAPI document names.
 */
function parsedSynchronously<T extends z.ZodType>(schema: T, recognise?: Recogniser<T>): T {
  const parseAsync = schema.safeParseAsync.bind(schema);
  const parse = schema.safeParse.bind(schema);
  let async = false;
  const sync: typeof parseAsync = async (data, params) => {
    if (recognise && fastPaths.enabled && params === undefined) {
      const out = recognise(data);
      if (out !== undefined) return { success: true, data: out };
    }
    if (async) return parseAsync(data, params);
    try {
      return parse(data, params);
    } catch (err) {
      if (!(err instanceof z.core.$ZodAsyncError)) throw err;
      async = true; // from now on; this once its checks before the async one ran twice
      return parseAsync(data, params);
    }
  };
  schema.safeParseAsync = sync;
  return schema;
}

/** A JSON response of a route: `200: jsonResponse(Schema, "what it is")`. */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** httpUrl's refine: parses as an http(s) URL with a host. */
export function isAbsoluteHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** Longest URL a request may give (callbackUrl and redirect URLs; receivers refuse longer). */
export const MAX_URL_LENGTH = 2048;

/**
 * An absolute http(s) URL of at most MAX_URL_LENGTH characters. Not `z.httpUrl()`: its host pattern needs a dotted domain with a TLD,
 * so it refuses `http://localhost:3000/...` and `http://127.0.0.1/...`, the usual targets here.
 */
export const httpUrl = () =>
  z
    .string()
    .max(MAX_URL_LENGTH)
    .refine(isAbsoluteHttpUrl)
    .openapi({ format: "uri", example: "https://merchant.example/callback" });

/** The `{name}` path parameter of a route: a non-empty string, documented as a path parameter. */
export function pathParam<N extends string>(name: N, example?: string) {
  const schema = z
    .string()
    .min(1)
    .openapi({ param: { name, in: "path" }, ...(example ? { example } : {}) });
  return z.object({ [name]: schema } as { [K in N]: typeof schema });
}

/**
 * An ISO 8601 duration (`PT3M`, `P1D`, `P1M`), refused with the rule and an example. The document
 * shows it as JSON Schema's `duration` format.
 */
export const isoDuration = (description: string, example = "PT3M") =>
  z
    .string()
    .refine((v) => parseDuration(v) !== undefined, { error: (issue) => durationReason(String(issue.input)) })
    .openapi({ format: "duration", pattern: DURATION_PATTERN.source, description, example });

/** An ISO 8601 instant (`2026-01-15T12:00:00Z`), refused with the rule and an example; `date-time` in the document. */
export const isoInstant = (description: string, example = "2026-01-15T12:00:00Z") =>
  z
    .string()
    .refine((v) => parseInstant(v) !== undefined, INSTANT_REASON)
    .openapi({ format: "date-time", pattern: INSTANT_PATTERN.source, description, example });
