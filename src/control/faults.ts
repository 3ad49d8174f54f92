/**
 * API faults and rate limit emulation (docs/scenarios.md#api-faults, docs/configuration.md), for testing a merchant
 * integration's own robustness (the create routes that take fault rules say so where they are
 * declared, `declare(..., { faults: flow })`, src/http/route-use.ts):
 * - a scenario rule with `httpStatus` (500, 502, 503, 429 + Retry-After) answers that status with
 *   `{errorMessage}` before the route runs, so nothing is created; with `latencyMs` the answer
 *   waits that many real ms. Rules match a create request by amount (and currency), card number
 *   and operation, like outcome rules (the last matching fault rule wins).
 * - `SANDBOX_RATE_LIMIT` (e.g. 40/min): per merchant, a fixed window of real time; over it → 429
 *   with Retry-After (seconds to the window's end).
 *
 * LIMITATIONS:
 * - A one-click charge carries a token, not a card number: `card` rules do not match it.
 * - The rate limit counts real time (as the live limit does), not virtual time.
 */
import type { MiddlewareHandler } from "hono";
import { type AppEnv, perSandbox, type Scoped } from "../http/env.js";
import { realNowMs } from "../platform/clock.js";
import { isCurrency, parseAmount } from "../platform/money.js";
import { DEFAULT_PROFILE, type Flow, type OutcomeEngine } from "../scenarios/outcome-engine.js";
import type { ScenarioRule } from "../scenarios/scenario.schema.js";

const isFault = (r: ScenarioRule) => r.httpStatus !== undefined || r.latencyMs !== undefined;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** What a fault rule can match in a create request's raw body; unknown parts match only rules that do not ask. */
function matchInput(body: Json, flow: Flow, outcomes: OutcomeEngine) {
  const plan = obj(body.plan);
  const amountText = str(body.amount) ?? str(plan?.amount);
  const currency = str(body.currency) ?? str(plan?.currency);
  let amountMinor: number | undefined;
  if (amountText !== undefined && currency !== undefined && isCurrency(currency)) {
    try {
      amountMinor = parseAmount(amountText, currency);
    } catch {
      amountMinor = undefined;
    }
  }
  const number = str(obj(body.card)?.number);
  return {
    input: {
      profile: number ? outcomes.profileFor(number) : DEFAULT_PROFILE,
      flow,
      amountMinor: amountMinor ?? -1,
      currency: amountMinor !== undefined ? (currency as string) : "USD",
    },
    known: { amount: amountMinor !== undefined, card: number !== undefined },
  };
}

/**
 * Middleware for one create route: answers the matching fault rule's status, or waits its latency
 * and goes on. Mounted on the route, after the bearer check, so only authenticated requests see faults.
 */
export function faultInjection(outcomesOf: Scoped<OutcomeEngine>, flow: Flow): MiddlewareHandler<AppEnv> {
  const faulty = async (c: Parameters<MiddlewareHandler<AppEnv>>[0], next: () => Promise<void>, outcomes: OutcomeEngine) => {
    let body: Json | undefined;
    try {
      body = obj(JSON.parse(await c.req.text()));
    } catch {
      body = undefined;
    }
    if (!body) return next(); // the route answers the bad body
    const { input, known } = matchInput(body, flow, outcomes);
    const rule = outcomes.matchRule(
      input,
      (r) =>
        isFault(r) &&
        (known.amount || (r.amount === undefined && r.currency === undefined)) &&
        (known.card || r.card === undefined),
    );
    if (!rule) return next();
    if (rule.latencyMs) await sleep(rule.latencyMs);
    if (rule.httpStatus === undefined) return next();
    if (rule.httpStatus === 429) c.header("Retry-After", "1");
    return c.json({ errorMessage: `Sandbox fault injected by a scenario rule: HTTP ${rule.httpStatus}` }, rule.httpStatus);
  };
  // requests pay for this layer (reading the body, an async step) only while some loaded rule is a fault
  return (c, next) => {
    const outcomes = outcomesOf(c);
    return outcomes.hasFaultRules() ? faulty(c, next, outcomes) : next();
  };
}

/**
 * `SANDBOX_RATE_LIMIT`: per merchant of each sandbox, at most `limit` requests per fixed window of
 * `windowMs` real ms. `sandboxOf` tells one sandbox from another: each counts its own merchants.
 */
export function rateLimit(
  opts: { limit: number; windowMs: number },
  sandboxOf: Scoped<object>,
  now: () => number = realNowMs,
): MiddlewareHandler<AppEnv> {
  const windowsOf = perSandbox(sandboxOf, () => new Map<string, { start: number; count: number }>());
  return async (c, next) => {
    const merchant = c.get("merchant")?.merchantKey;
    if (!merchant) return next();
    const windows = windowsOf(c);
    const t = now();
    let w = windows.get(merchant);
    if (!w || t >= w.start + opts.windowMs) {
      w = { start: t - (t % opts.windowMs), count: 0 };
      windows.set(merchant, w);
    }
    w.count++;
    if (w.count > opts.limit) {
      c.header("Retry-After", String(Math.max(1, Math.ceil((w.start + opts.windowMs - t) / 1000))));
      return c.json({ errorMessage: `Rate limit exceeded: at most ${opts.limit} requests per ${opts.windowMs / 1000} s` }, 429);
    }
    return next();
  };
}
