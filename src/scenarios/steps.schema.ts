/**
 * The `steps` of a scenario file (docs/run.md): a scripted run that
 * `paysandbox run` executes in order. A step is one object with exactly one action key (`request`,
 * `advance`, `threeDS`, `hpp`, `qr`, `webhook`) and the keys that action allows; one flat schema rather
 * than a union, so a mistake is reported at its own path (`steps[3].expect.status`), not as
 * "no union member matched".
 *
 * References: `${name.path}` reads the body a step saved with `save: name` (`${p.transactionId}`,
 * `${sub.items.0.id}`); `${uuid}` is a fresh unique id; `${checksum}` is the APM request checksum
 * of the body it stands in; `${callbackUrl}` is a webhook receiver the runner opens for the run.
 * A reference to a name no earlier step saves is an error of the file, found before anything runs.
 */
import { z } from "zod";
import { DELIVERY_STATUSES } from "../db/schema/webhooks.js";
import { JsonValueSchema } from "../http/wire.js";
import { parseDuration } from "../platform/duration.js";

/** The names `${...}` may use without a step saving them. */
export const BUILTIN_REFS = ["uuid", "checksum", "callbackUrl"] as const;

/** The action keys: each step has exactly one. */
export const STEP_ACTIONS = ["request", "advance", "threeDS", "hpp", "qr", "webhook"] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/**
 * The shopper pages a step can answer (docs/run.md), by step key: the page's path segment
 * (`/sandbox/{path}/{id}`), its name for a person, and what a recorded post of it is called.
 */
export const PAGE_STEPS = {
  threeDS: { path: "3ds", label: "3DS challenge page", step: "3DS challenge" },
  hpp: { path: "hpp", label: "hosted payment page", step: "hosted payment page" },
  qr: { path: "qr", label: "QR page", step: "QR page" },
} as const;
export type PageStep = keyof typeof PAGE_STEPS;
export const isPageStep = (key: string): key is PageStep => Object.hasOwn(PAGE_STEPS, key);

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const REQUEST_LINE = new RegExp(`^(${METHODS.join("|")}) (\\S+)$`);

const saveName = z
  .string()
  .regex(/^[A-Za-z_][\w-]*$/, "a name of letters, digits, '_' and '-'")
  .refine((n) => !(BUILTIN_REFS as readonly string[]).includes(n), `reserved: ${BUILTIN_REFS.join(", ")} are built in`)
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a step reference, not a template
  .describe("keep the response body for later steps, as ${name.field}");

/** The buttons of every shopper page, the only outcomes a page step presses. */
export const PAGE_OUTCOMES = ["success", "failure"] as const;

const pageAnswer = {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a step reference, not a template
  transactionId: z.string().min(1).describe('the transaction, usually "${saved.transactionId}"'),
  outcome: z.enum(PAGE_OUTCOMES).describe("the button the shopper presses"),
};

export const stepSchema = z
  .object({
    name: z.string().min(1).optional().describe("a label; the JUnit test case name"),
    as: z
      .string()
      .min(1)
      .optional()
      .describe("merchantKey to act as: one of the file's merchants or the built-in one (default: the file's first merchant)"),
    request: z
      .string()
      .regex(REQUEST_LINE, `expected "METHOD /path" with METHOD one of ${METHODS.join(", ")}`)
      .optional()
      .describe("a gateway or /_sandbox call, e.g. POST /api/v1/payments/card; the runner adds auth"),
    headers: z.record(z.string(), z.string()).optional().describe("extra request headers (an Authorization given here is kept)"),
    body: JsonValueSchema.optional().describe("the JSON request body"),
    expect: z
      .object({
        status: z.number().int().min(100).max(599).optional(),
        body: JsonValueSchema.optional().describe("every key given must match, objects partially and deeply"),
        headers: z.record(z.string(), z.string()).optional(),
      })
      .strict()
      .optional(),
    save: saveName.optional(),
    advance: z
      .string()
      .refine((d) => parseDuration(d) !== undefined, "expected an ISO 8601 duration such as P1M or PT30M")
      .optional()
      .describe("moves the virtual clock forward, running everything due on the way"),
    threeDS: z.object(pageAnswer).strict().optional().describe("opens the 3DS challenge page and posts its form"),
    hpp: z
      .object({
        ...pageAnswer,
        fields: z.record(z.string(), z.string()).optional().describe("the form fields to fill (apmPayload field names)"),
      })
      .strict()
      .optional()
      .describe("opens the hosted payment page and posts its form"),
    qr: z
      .object(pageAnswer)
      .strict()
      .optional()
      .describe("opens a QR pay-in's page and posts its form (the shopper paid, or not)"),
    webhook: z
      .object({
        transactionId: z.string().min(1).optional(),
        subscriptionId: z.string().min(1).optional(),
        body: JsonValueSchema.optional().describe(
          "a delivery whose body matches this (partially, deeply) must be in the journal",
        ),
        delivery: z.enum(DELIVERY_STATUSES).optional().describe("and its delivery status"),
      })
      .strict()
      .optional()
      .describe("expects a delivery in the webhook journal, after running the work that is due"),
  })
  .strict()
  .superRefine((step, ctx) => {
    const actions = STEP_ACTIONS.filter((a) => step[a] !== undefined);
    if (actions.length !== 1) {
      ctx.addIssue({
        code: "custom",
        path: actions.length === 0 ? [] : [actions[1] as string],
        message:
          actions.length === 0
            ? `a step needs one of ${STEP_ACTIONS.join(", ")}`
            : `a step does one thing: ${actions.join(" and ")} given`,
      });
      return;
    }
    const action = actions[0] as StepAction;
    const allowed: Record<StepAction, readonly string[]> = {
      request: ["headers", "body", "expect", "save", "as"],
      advance: [],
      threeDS: ["expect"],
      hpp: ["expect"],
      qr: ["expect"],
      webhook: ["save"],
    };
    for (const key of ["headers", "body", "expect", "save", "as"] as const) {
      if (step[key] !== undefined && !allowed[action].includes(key)) {
        ctx.addIssue({ code: "custom", path: [key], message: `not allowed in a ${action} step` });
      }
    }
    if (action === "webhook" && step.webhook && !step.webhook.transactionId === !step.webhook.subscriptionId) {
      ctx.addIssue({ code: "custom", path: ["webhook", "transactionId"], message: "give transactionId or subscriptionId" });
    }
    if (action !== "request" && step.expect?.body !== undefined) {
      ctx.addIssue({ code: "custom", path: ["expect", "body"], message: `not allowed in a ${action} step (only status)` });
    }
  });

export type Step = z.output<typeof stepSchema>;

const REF = /\$\{([^}]*)\}/g;

/** Every `${...}` in a value, with the path where it sits. */
export function referencesIn(
  value: unknown,
  path: Array<string | number> = [],
): Array<{ ref: string; path: Array<string | number> }> {
  if (typeof value === "string") return [...value.matchAll(REF)].map((m) => ({ ref: m[1] ?? "", path }));
  if (Array.isArray(value)) return value.flatMap((v, i) => referencesIn(v, [...path, i]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => referencesIn(v, [...path, k]));
  return [];
}

/**
 * The steps list: each step as above, and every reference names a built-in or a name saved by an
 * earlier step (a typo in a saved name fails the file before it runs, not halfway through).
 */
export const stepsSchema = z
  .array(stepSchema)
  .superRefine((steps, ctx) => {
    const saved = new Set<string>();
    steps.forEach((step, i) => {
      for (const { ref, path } of referencesIn(step, [i])) {
        const name = ref.split(/[.[]/)[0] ?? "";
        if ((BUILTIN_REFS as readonly string[]).includes(ref)) continue;
        if (!saved.has(name)) {
          const known = [...BUILTIN_REFS, ...saved].join(", ");
          ctx.addIssue({
            code: "custom",
            path,
            message: `\${${ref}}: no earlier step saves "${name}" (known: ${known})`,
          });
        }
      }
      if (step.save) saved.add(step.save);
    });
  })
  .describe("a scripted run for `paysandbox run` (docs/run.md)");
