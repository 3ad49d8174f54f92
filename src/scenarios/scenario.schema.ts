/**
 * The scenario file format (CONTRACT §6). `merchants`, `fxRates`, `cards`, `rules` are the
 * stable core; `steps` is accepted for `paysandbox run` and otherwise ignored; any other
 * top-level key is an error so that a typo never loads silently.
 */
import { z } from "zod";
import { luhnValid } from "../platform/card-number.js";
import { parseDuration } from "../platform/duration.js";
import { CURRENCIES, DECLINE_CODES } from "../platform/fixtures.js";

export { luhnValid } from "../platform/card-number.js";

const currency = z.string().refine((c) => Object.hasOwn(CURRENCIES, c), "unknown ISO 4217 currency");
const declineCode = z
  .number()
  .int()
  .refine((c) => DECLINE_CODES.some((d) => d.code === c), "unknown decline code (see fixtures/decline-codes.json)");
const duration = z.string().refine((d) => parseDuration(d) !== undefined, "expected an ISO 8601 duration such as PT5M");

export const outcomeSpecSchema = z
  .object({
    status: z.enum(["SUCCEED", "FAILED", "CUSTOMER_VERIFICATION", "PROCESSING", "PENDING"]),
    declineCode: declineCode.optional(),
    completeAfter: duration.optional(),
    completeWith: z.enum(["SUCCEED", "FAILED"]).optional(),
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
  })
  .strict();

export const scenarioCardSchema = z
  .object({
    number: z.string().refine(luhnValid, "not a Luhn-valid card number"),
    label: z.string().optional(),
    payment: outcomeSpecSchema.optional(),
    recurring: z.object({ first: outcomeSpecSchema.optional(), later: outcomeSpecSchema.optional() }).strict().optional(),
    payout: outcomeSpecSchema.optional(),
  })
  .strict();

/** Which requests a rule applies to (CONTRACT §3 Refunds and card payouts, §6). */
export const RULE_OPERATIONS = ["payment", "refund", "payout"] as const;
export type RuleOperation = (typeof RULE_OPERATIONS)[number];

/**
 * An outcome rule (CONTRACT §6) or an API fault (CONTRACT §4 Chaos and faults), matched by
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
    card: z.string().refine(luhnValid, "not a Luhn-valid card number").optional(),
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
  });

export const scenarioSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .regex(/^[\w.-]+$/, "letters, digits, '.', '_' and '-' only"),
    description: z.string().optional(),
    merchants: z.array(scenarioMerchantSchema).default([]),
    fxRates: z.record(currency, z.number().positive()).default({}),
    cards: z.array(scenarioCardSchema).default([]),
    rules: z.array(scenarioRuleSchema).default([]),
    steps: z.array(z.unknown()).optional(),
  })
  .strict();

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioCard = z.output<typeof scenarioCardSchema>;
export type ScenarioRule = z.output<typeof scenarioRuleSchema>;

/** `merchants.0.mid: expected string` for each problem, for a human. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.map(String).join(".") || "(root)";
      if (i.code === "unrecognized_keys") return `${path === "(root)" ? "" : `${path}.`}${i.keys.join(", ")}: unknown key`;
      return `${path}: ${i.message}`;
    })
    .join("; ");
}
