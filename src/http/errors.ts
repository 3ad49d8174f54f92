/**
 * One envelope for every error (docs/api.md): `{ errorMessage }` with the status of the
 * error's code, and on a 400 `errors: [{field, message}]`: every problem found in the body, each
 * with its reason (`errorMessage` stays the first one, in the interface's shapes, exactly as
 * before). Three tiers (Unkey's onError): ours, Hono's HTTPException, unknown → 500 + log.
 *
 * The reasons come from one place: zod issue codes, plus hints by field name (FIELD_HINTS) for
 * the checks zod only knows as a refine or a pattern; service checks (amount precision, Luhn,
 * expiry) carry their own reason on the SandboxError they throw; and a body that fails on one
 * field is also checked for the service-level problems of the others (bodyProblems), so one
 * answer lists them all.
 */
import type { Hook } from "@hono/zod-openapi";
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "pino";
import type { z } from "zod";
import { CARD_NUMBER_REASON, luhnValid } from "../platform/cards.js";
import { badRequest, type FieldProblem, SandboxError } from "../platform/errors.js";
import { EXAMPLE_IP } from "../platform/examples.js";
import { AMOUNT_REASON, amountTextReason, CURRENCY_REASON, isCurrency, parseAmount } from "../platform/money.js";
import { didYouMean } from "../platform/unknown-keys.js";
import type { BodyTypes } from "./common-answers.js";
import type { AppEnv, Scoped } from "./env.js";
import { errorFieldFor } from "./gateway.js";
import { malformedJsonMessage } from "./json-syntax.js";

export const errorBody = (message: string) => ({ errorMessage: message });

/** The report route answers `{ error }` for every failure (docs/api.md); every other route the envelope below. */
const wantsErrorField = (c: Context<AppEnv>) => errorFieldFor(c.req.path) === "error";
/** What a 400 answers: the interface's message and every problem with its reason. */
const badRequestBody = (message: string, problems: readonly FieldProblem[]) => ({
  errorMessage: message,
  errors: problems.length > 0 ? problems : [{ field: "body", message }],
});

/** An origin's syntax (docs/wallets.md). */
export const ORIGIN_REASON = 'expected a host such as "shop.example" or an http(s) URL such as "https://shop.example:8443"';

/**
 * Reasons for the checks zod knows only as a pattern or a refine, by the field's last name.
 * A person reads these in `errors[]`: what the value must look like, with an example.
 */
const FIELD_HINTS: Record<string, string> = {
  amount: AMOUNT_REASON,
  currency: CURRENCY_REASON,
  country: 'expected an ISO 3166-1 alpha-2 country code such as "US"',
  dateOfBirth: 'expected a calendar date written YYYY-MM-DD, e.g. "1990-01-31"',
  startDate: 'expected a calendar date written YYYY-MM-DD, e.g. "2026-02-01"',
  ip: `expected an IPv4 or IPv6 address such as "${EXAMPLE_IP}"`,
  email: 'expected an email address such as "jane@example.com"',
  origin: ORIGIN_REASON,
  number: CARD_NUMBER_REASON,
  expMonth: 'expected the month as two digits, "01" to "12"',
  expYear: 'expected a four-digit year such as "2030"',
  cvv: "expected 3 or 4 digits",
  lang: 'expected a language code such as "en"',
  callbackUrl: "expected an absolute http(s) URL",
  successRedirectUrl: "expected an absolute http(s) URL",
  failureRedirectUrl: "expected an absolute http(s) URL",
  requestId: "expected a non-empty string of at most 255 characters",
  declineCode: "expected a known decline code, e.g. 2 (rejected by the issuer) or 5 (insufficient funds)",
  mid: "expected the mid of the authenticated merchant",
  merchantId: "expected the merchantId of the authenticated merchant",
  accountId: "expected the accountId of the authenticated merchant",
};

/** The hint for a field by its last name; an amount's depends on the text sent (a negative one must be positive). */
const hintFor = (name: string, value: unknown): string | undefined =>
  name === "amount" && typeof value === "string" ? amountTextReason(value) : FIELD_HINTS[name];

/** A service's bare `invalid value` made specific where the field's name says what it wants. */
const withHint = (p: FieldProblem): FieldProblem => {
  if (p.message !== "invalid value") return p;
  const hint = FIELD_HINTS[p.field.slice(p.field.lastIndexOf(".") + 1)];
  return hint ? { field: p.field, message: hint } : p;
};

/**
 * The fields whose value a reason may show when it came as a JSON number (`got the number 20.5`):
 * amounts only. Any other value is named by its type alone, so a CVV, a national id or a merchant
 * secret sent as a number is never echoed in the answer nor written to the log (the log line of a
 * 400 carries its first reason).
 */
const NUMBER_SHOWN = new Set<PropertyKey>(["amount"]);

/** What a value is, for a reason. A number is shown only for an amount, and only when short (never a card number). */
const typeName = (v: unknown, field: PropertyKey | undefined) =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "an array"
      : typeof v === "number"
        ? field !== undefined && NUMBER_SHOWN.has(field) && Math.abs(v) < 1e9
          ? `the number ${v}`
          : "a number"
        : `a ${typeof v}`;

/** The reason of one zod issue, for a person. */
function reasonOf(issue: z.core.$ZodIssue, missing: boolean, value: unknown): string {
  // a refinement that asks for a field says how (`required: give by ... or to ...`)
  if (missing) return issue.code === "custom" && issue.message.startsWith("required") ? issue.message : "required";
  const last = issue.path[issue.path.length - 1];
  const hint = typeof last === "string" ? hintFor(last, value) : undefined;
  switch (issue.code) {
    case "invalid_type":
      if (hint) return `${hint} (got ${typeName(value, last)})`;
      return `expected ${issue.expected === "object" ? "an object" : `a ${issue.expected}`}, got ${typeName(value, last)}`;
    case "invalid_value":
      if (hint) return hint;
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      if (issue.origin === "string" && Number(issue.minimum) === 1) return "must not be empty";
      return `must be at least ${String(issue.minimum)}${issue.origin === "string" ? " characters" : ""}`;
    case "too_big":
      return hint ?? `must be at most ${String(issue.maximum)}${issue.origin === "string" ? " characters" : ""}`;
    case "unrecognized_keys":
      return "unknown field";
    case "invalid_format":
      return hint ?? `invalid format (${issue.format})`;
    default:
      return hint ?? (issue.message && !/^Invalid input$/.test(issue.message) ? issue.message : "invalid value");
  }
}

/**
 * The problems zod does not see, in a raw body: a card number failing Luhn (under any `card`
 * key) and an amount with more decimals than its currency has (any object with `amount` and
 * `currency`), the two checks services run after validation. Only read when a 400 is answered.
 */
export function bodyProblems(raw: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  const walk = (v: unknown, path: PropertyKey[], depth: number) => {
    if (v === null || typeof v !== "object" || depth > 6) return;
    if (Array.isArray(v)) {
      for (const [i, item] of v.slice(0, 50).entries()) walk(item, [...path, i], depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    if (path[path.length - 1] === "card" && typeof o.number === "string" && !luhnValid(o.number)) {
      out.push({ field: fieldPath([...path, "number"]), message: CARD_NUMBER_REASON });
    }
    if (typeof o.amount === "string" && typeof o.currency === "string" && isCurrency(o.currency)) {
      try {
        parseAmount(o.amount, o.currency);
      } catch (err) {
        const reason = err instanceof SandboxError ? err.problems[0]?.message : undefined;
        if (reason) out.push({ field: fieldPath([...path, "amount"]), message: reason });
      }
    }
    for (const [k, child] of Object.entries(o)) walk(child, [...path, k], depth + 1);
  };
  walk(raw, [], 0);
  return out;
}

/** `first`, then each of `more` whose field is not listed yet. */
function mergeProblems(first: readonly FieldProblem[], more: readonly FieldProblem[]): FieldProblem[] {
  const seen = new Set(first.map((p) => p.field));
  return [...first, ...more.filter((p) => !seen.has(p.field) && seen.add(p.field))];
}

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
 * Every zod issue as a problem with its reason; the first also as the interface's message
 * `Missing required field: x` / `Invalid field: x` (unchanged). "Missing" means the raw input has
 * nothing (or null) at that path, whatever zod's issue code (zod 4 reports a missing enum as an
 * invalid value); without the raw input, zod's message decides. A key a strict object does not know
 * (the control plane's bodies) is `Unknown field: nmae (did you mean name?)`, naming the nearest
 * known key when one is close.
 */
export function zodToSandboxError(error: z.ZodError, target: string, raw?: unknown): SandboxError {
  if (error.issues.length === 0) return badRequest("Invalid request");
  const problems: FieldProblem[] = [];
  let message = "";
  for (const issue of error.issues) {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    for (const key of keys) {
      const path = key === undefined ? issue.path : [...issue.path, key];
      const name = fieldPath(path) || (target === "json" ? "body" : target);
      const missing =
        issue.code !== "unrecognized_keys" && path.length > 0 && raw !== undefined
          ? valueAt(raw, path) == null
          : issue.code === "invalid_type" && /received undefined/.test(issue.message);
      if (!message) {
        message =
          issue.code === "unrecognized_keys"
            ? `Unknown field: ${name}${didYouMean(String(key), issue.keys)}`
            : `${missing ? "Missing required field" : "Invalid field"}: ${name}`;
      }
      if (problems.some((p) => p.field === name)) continue;
      const reason =
        issue.code === "unrecognized_keys"
          ? `unknown field${didYouMean(String(key), issue.keys)}`
          : reasonOf(issue, missing, valueAt(raw, path));
      problems.push({ field: name, message: reason });
    }
  }
  return new SandboxError("BAD_REQUEST", message, target === "json" ? mergeProblems(problems, bodyProblems(raw)) : problems);
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

/** The body's text, as read once by readBody (Hono caches it), or undefined when it cannot be read again. */
async function bodyText(c: Context<AppEnv>): Promise<string | undefined> {
  try {
    return await c.req.text();
  } catch {
    return undefined;
  }
}

/** A refused input as its 400, in the envelope. */
function refused(c: Context<AppEnv>, err: SandboxError) {
  c.set("errorMessage", withReason(err.message, err.problems));
  if (wantsErrorField(c)) return c.json({ error: err.message }, 400);
  return c.json(badRequestBody(err.message, err.problems), 400);
}

const refuse = async (result: { error: unknown; target: string }, c: Context<AppEnv>) =>
  refused(c, zodToSandboxError(result.error as z.ZodError, result.target, await rawInput(c, result.target)));

/**
 * OpenAPIHono defaultHook: validation failures go through the same envelope; a valid body (every
 * request that goes on) returns at once, without a promise of its own.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result, c) =>
  result.success ? undefined : refuse(result as { error: unknown; target: string }, c);

/** A 415's message: the media types its route takes (a route not found: JSON, what every other route takes). */
export function unsupportedMediaType(types: readonly string[] = ["application/json"]): string {
  const listed = types.length > 1 ? `${types.slice(0, -1).join(", ")} or ${types.at(-1)}` : (types[0] ?? "application/json");
  return `Unsupported Media Type: send Content-Type: ${listed}`;
}

/**
 * A route's hook whose 400 is worded by `reasons`, the same rule written as one object: a union of
 * closed objects (what the document shows, `{by} | {to}`) refuses a body as a whole, where this
 * names the field that is wrong and why. What `reasons` accepts (it should refuse all the union
 * does) keeps the union's own words.
 */
// biome-ignore lint/suspicious/noExplicitAny: a hook fits any route; it answers only the 400, in the envelope
type AnyRouteHook = Hook<any, AppEnv, any, any>;

export function explainedBy(
  reasons: z.ZodType,
  /** When `reasons` accepts what the route refused: the route's own way to say why (else zod's words). */
  otherwise?: (raw: unknown) => void,
): AnyRouteHook {
  return async (result, c) => {
    if (result.success) return;
    const raw = await rawInput(c, result.target);
    const again = reasons.safeParse(raw);
    if (again.success) otherwise?.(raw);
    return refused(c, zodToSandboxError(again.success ? (result.error as z.ZodError) : again.error, result.target, raw));
  };
}

/** `bodyTypes`: the media types of each route's body (src/http/common-answers.ts), which its 415 names. */
export function errorHandler(loggerOf: Scoped<Logger>, bodyTypes?: BodyTypes): ErrorHandler<AppEnv> {
  return async (err, c) => {
    if (err instanceof SandboxError) {
      if (err.behaviour) c.set("behaviour", err.behaviour);
      c.set("errorMessage", err.message);
      if (wantsErrorField(c)) return c.json({ error: err.message }, err.status);
      if (err.status !== 400) return c.json(errorBody(err.message), err.status);
      const first = (err.problems.length > 0 ? err.problems : problemOfMessage(err.message)).map(withHint);
      // a refused body (nested too deep) is not parsed again to look for more problems
      const raw = c.req.method === "GET" || first[0]?.field === "body" ? undefined : await rawInput(c, "json");
      const problems = mergeProblems(first, bodyProblems(raw));
      c.set("errorMessage", withReason(err.message, problems));
      return c.json(badRequestBody(err.message, problems), 400);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      const message =
        status === 400 && /JSON/i.test(err.message)
          ? malformedJsonMessage(await bodyText(c))
          : status === 413
            ? "Request body too large (limit 1 MiB)"
            : status === 415
              ? unsupportedMediaType(bodyTypes?.(c.req.method, c.req.routePath))
              : err.message || "Request refused";
      c.set("errorMessage", message);
      if (wantsErrorField(c)) return c.json({ error: message }, status);
      return c.json(status === 400 ? badRequestBody(message, []) : errorBody(message), status);
    }
    loggerOf(c).error({ err, path: c.req.path, requestId: c.get("requestId") }, "unhandled error");
    c.set("errorMessage", "Internal sandbox error");
    if (wantsErrorField(c)) return c.json({ error: "Internal sandbox error" }, 500);
    return c.json(errorBody("Internal sandbox error"), 500);
  };
}

/**
 * The log line's text of a 400: errorMessage with the first problem's reason, and how many more.
 * Reasons name fields and expectations, never a value long enough to be a card number (typeName).
 */
function withReason(message: string, problems: readonly FieldProblem[]): string {
  const first = problems[0];
  if (!first || first.message === message) return message;
  const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : "";
  return `${message}: ${first.message}${more}`;
}

/** A service's 400 without problems: its field from the interface's message shapes. */
function problemOfMessage(message: string): FieldProblem[] {
  const m = /^(Missing required field|Invalid field): ([^\s(]+)(?: \((.+)\))?$/.exec(message);
  if (!m?.[2]) return [];
  return [{ field: m[2], message: m[1] === "Missing required field" ? "required" : (m[3] ?? "invalid value") }];
}

/** A route of the app's table, as Hono lists it (`app.routes`). */
export interface RouteEntry {
  method: string;
  path: string;
}

/**
 * The methods each path of the route table serves: middleware (method ALL, or a `*` path) left out.
 * A `:param` matches one segment, as in the router.
 */
function methodsByPath(routes: readonly RouteEntry[]): Array<{ re: RegExp; methods: Set<string> }> {
  const byPath = new Map<string, Set<string>>();
  for (const r of routes) {
    if (r.method === "ALL" || r.path.includes("*")) continue;
    const methods = byPath.get(r.path) ?? new Set<string>();
    byPath.set(r.path, methods);
    methods.add(r.method);
    if (r.method === "GET") methods.add("HEAD");
  }
  return [...byPath].map(([path, methods]) => ({
    re: new RegExp(`^${path.replace(/[.+?^$()|[\]\\]/g, "\\$&").replace(/:\w+(\{[^}]*\})?/g, "[^/]+")}$`),
    methods,
  }));
}

/**
 * Unknown route → 404; a known path asked with a method it does not serve → 405 with `Allow`
 * listing the ones it does (RFC 9110), both in the error envelope. One mechanism over the whole
 * route table (`routes()`: read once, at the first miss, when every route is registered).
 */
export function notFoundHandler(routes: () => readonly RouteEntry[]): NotFoundHandler<AppEnv> {
  let table: ReturnType<typeof methodsByPath> | undefined;
  return (c: Context<AppEnv>) => {
    table ??= methodsByPath(routes());
    const path = c.req.path;
    const allowed = new Set<string>();
    for (const t of table) if (t.re.test(path)) for (const m of t.methods) allowed.add(m);
    if (allowed.size > 0 && !allowed.has(c.req.method)) {
      const allow = [...allowed].join(", ");
      const message = `Method not allowed: ${c.req.method} ${path} (allowed: ${allow})`;
      c.set("errorMessage", message);
      c.header("Allow", allow);
      return c.json(wantsErrorField(c) ? { error: message } : errorBody(message), 405);
    }
    const message = `Not found: ${c.req.method} ${path}`;
    c.set("errorMessage", message);
    return c.json(wantsErrorField(c) ? { error: message } : errorBody(message), 404);
  };
}

/** An error answer outside any app (a request for a sandbox that does not exist, docs/parallel-suites.md). */
export function jsonError(status: number, message: string): Response {
  return new Response(JSON.stringify(errorBody(message)), { status, headers: { "content-type": "application/json" } });
}
