/**
 * The scenario file format (docs/scenarios.md). `merchants`, `fxRates`, `cards`, `rules` are the
 * stable core; `steps`, `startTime` and `snapshot` are for `paysandbox run` (steps.schema.ts) and otherwise ignored; any other
 * top-level key is an error so that a typo never loads silently.
 */
import { z } from "zod";
import { luhnValid } from "../platform/cards.js";
import { INSTANT_PATTERN, parseInstant } from "../platform/clock.js";
import { DURATION_PATTERN, parseDuration } from "../platform/duration.js";
import { CURRENCIES, DECLINE_CODES } from "../platform/fixtures.js";
import { didYouMean } from "../platform/unknown-keys.js";
import { stepsSchema } from "./steps.schema.js";

// Each rule below is written as a check (for its words in an error) and shown to the document as
// the same rule in JSON Schema (the enum of the table it looks in, the pattern it tests with).
const CURRENCY_CODES = Object.keys(CURRENCIES);
const currency = z
  .string()
  .refine((c) => Object.hasOwn(CURRENCIES, c), "unknown ISO 4217 currency")
  .meta({ enum: CURRENCY_CODES, description: "ISO 4217 (fixtures/currencies.json)" });
const declineCode = z
  .number()
  .int()
  .refine((c) => DECLINE_CODES.some((d) => d.code === c), "unknown decline code (see fixtures/decline-codes.json)")
  .meta({ enum: DECLINE_CODES.map((d) => d.code), description: "fixtures/decline-codes.json" });
const duration = z
  .string()
  .refine((d) => parseDuration(d) !== undefined, "expected an ISO 8601 duration such as PT5M")
  .meta({ format: "duration", pattern: DURATION_PATTERN.source });
/** A card number: 12 to 19 digits, Luhn-valid (the check digit, which no pattern can say: its example is one). */
const cardNumber = z
  .string()
  .refine(luhnValid, "not a Luhn-valid card number")
  .meta({ pattern: "^\\d{12,19}$", description: "12 to 19 digits, Luhn-valid", example: "4242424242424242" });

export const outcomeSpecSchema = z
  .object({
    status: z.enum(["SUCCEED", "FAILED", "CUSTOMER_VERIFICATION", "PROCESSING", "PENDING"]),
    declineCode: declineCode.optional(),
    completeAfter: duration.optional(),
    completeWith: z.enum(["SUCCEED", "FAILED"]).optional(),
  })
  .strict();

/** Bounds a scenario must keep (loads stay cheap; docs/scenarios.md "Limits"). */
export const SCENARIO_LIMITS = {
  /** Serialized size of one document. */
  bytes: 256 * 1024,
  /** Scenarios loaded at once (a reload under the same name replaces, and does not count twice). */
  loaded: 50,
  merchants: 100,
  cards: 1_000,
  rules: 1_000,
  /** FX rates: units per 1 EUR; beyond these, conversions lose all precision. */
  minRate: 0.000001,
  maxRate: 1_000_000_000,
} as const;

/** Webhook chaos rates per mode, each 0 (never) to 1 (every delivery) (docs/webhooks.md#webhook-chaos). */
export const webhookChaosSchema = z
  .object({
    duplicate: z.number().min(0).max(1).optional(),
    reorder: z.number().min(0).max(1).optional(),
    delay: z.number().min(0).max(1).optional(),
    badSignature: z.number().min(0).max(1).optional(),
    delayBy: duration.optional().describe("how long `delay` holds a delivery back (virtual time; default PT5M)"),
  })
  .strict();

export const scenarioMerchantSchema = z
  .object({
    merchantKey: z.string().min(1),
    merchantSecret: z.string().min(1),
    mid: z.string().min(1),
    merchantId: z.number().int().positive(),
    accountId: z.number().int().positive(),
    processingCurrency: currency.nullable().optional(),
    walletDomains: z.array(z.string().min(1)).default([]),
    name: z.string().min(1).optional(),
    webhookChaos: webhookChaosSchema.optional(),
  })
  .strict();

export const scenarioCardSchema = z
  .object({
    number: cardNumber,
    label: z.string().optional(),
    payment: outcomeSpecSchema.optional(),
    recurring: z.object({ first: outcomeSpecSchema.optional(), later: outcomeSpecSchema.optional() }).strict().optional(),
    payout: outcomeSpecSchema.optional(),
  })
  .strict();

/** Which requests a rule applies to (docs/refunds-payouts.md, docs/scenarios.md). */
export const RULE_OPERATIONS = ["payment", "refund", "payout"] as const;
export type RuleOperation = (typeof RULE_OPERATIONS)[number];

/**
 * An outcome rule (docs/scenarios.md) or an API fault (docs/scenarios.md#api-faults), matched by
 * `amount` (and `currency`), `card` and `operation` (default payment); every matcher given must
 * match. It sets an outcome (`status`, ...) and/or a fault (`httpStatus`, `latencyMs`).
 */
export const scenarioRuleSchema = z
  .object({
    amount: z
      .string()
      .regex(/^\d+(\.\d+)?$/, 'expected a major-unit amount string such as "13.37"')
      .optional(),
    currency: currency.optional(),
    card: cardNumber.optional(),
    operation: z.enum(RULE_OPERATIONS).optional(),
    status: outcomeSpecSchema.shape.status.optional(),
    declineCode: declineCode.optional(),
    completeAfter: duration.optional(),
    completeWith: z.enum(["SUCCEED", "FAILED"]).optional(),
    httpStatus: z
      .union([z.literal(500), z.literal(502), z.literal(503), z.literal(429)])
      .optional()
      .describe("answer this HTTP status instead (nothing is created); 429 carries Retry-After"),
    latencyMs: z.number().int().min(0).max(60_000).optional().describe("real milliseconds before the answer"),
  })
  .strict()
  .refine((r) => r.amount !== undefined || r.card !== undefined || r.operation !== undefined, {
    message: "a rule needs at least one of amount, card or operation",
    path: ["amount"],
  })
  .refine((r) => r.status !== undefined || r.httpStatus !== undefined || r.latencyMs !== undefined, {
    message: "required (or httpStatus / latencyMs for a fault-only rule)",
    path: ["status"],
  })
  .meta({
    description:
      "Matched by at least one of amount, card, operation; sets an outcome (status) or a fault (httpStatus, latencyMs)",
    // one anyOf (a generator reads a single one well): a matcher given, and within it an outcome or a fault
    anyOf: ["amount", "card", "operation"].map((matcher) => ({
      required: [matcher],
      anyOf: [{ required: ["status"] }, { required: ["httpStatus"] }, { required: ["latencyMs"] }],
    })),
  });

export const scenarioSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .regex(/^[\w.-]+$/, "letters, digits, '.', '_' and '-' only"),
    description: z.string().optional(),
    merchants: z.array(scenarioMerchantSchema).max(SCENARIO_LIMITS.merchants).default([]),
    fxRates: z
      .record(
        currency,
        z
          .number()
          .min(SCENARIO_LIMITS.minRate, `expected a rate of at least ${SCENARIO_LIMITS.minRate}`)
          .max(SCENARIO_LIMITS.maxRate, `expected a rate of at most ${SCENARIO_LIMITS.maxRate}`),
      )
      .default({})
      .meta({ propertyNames: { enum: CURRENCY_CODES } }),
    cards: z.array(scenarioCardSchema).max(SCENARIO_LIMITS.cards).default([]),
    rules: z.array(scenarioRuleSchema).max(SCENARIO_LIMITS.rules).default([]),
    startTime: z
      .string()
      .refine((s) => parseInstant(s) !== undefined, "expected an ISO 8601 date-time")
      .meta({ format: "date-time", pattern: INSTANT_PATTERN.source })
      .optional()
      .describe("`paysandbox run`: the virtual time its fresh sandbox starts at (default: now)"),
    snapshot: z
      .string()
      .min(1)
      .optional()
      .describe(
        "`paysandbox run`: a snapshot file (`paysandbox snapshot save`), its path relative to this file: each run starts its sandbox from it (docs/snapshots.md)",
      ),
    steps: stepsSchema.optional(),
  })
  .strict();

export type Scenario = z.output<typeof scenarioSchema>;

/** The scenario format as the document names it (`ScenarioDocument`): one instance, so every use is one component. */
export const ScenarioDocumentSchema = scenarioSchema.meta({ id: "ScenarioDocument" });
export type ScenarioCard = z.output<typeof scenarioCardSchema>;
export type ScenarioRule = z.output<typeof scenarioRuleSchema>;

/** `merchants.0.mid: expected string` for each problem, for a human. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.map(String).join(".") || "(root)";
      if (i.code === "unrecognized_keys") {
        const at = path === "(root)" ? "" : `${path}.`;
        return i.keys.map((k) => `${at}${k}: unknown key${didYouMean(k, i.keys)}`).join("; ");
      }
      return `${path}: ${i.message}`;
    })
    .join("; ");
}
