/**
 * The coverage report on the wire (docs/coverage.md): the schema `GET /_sandbox/coverage` answers
 * with and documents, and its type, inferred from it, for the service, the dashboard, the CLI and
 * `paysandbox/testing` (which spells it out in src/testing/types.ts, checked equal there).
 */
import { z } from "@hono/zod-openapi";
import { instant } from "../http/wire.js";
import { AREAS } from "../platform/behaviours.js";

export const CoverageEvidenceSchema = z
  .object({
    transactionId: z.string().optional(),
    subscriptionId: z.string().optional(),
    deliveryId: z.string().optional().openapi({ description: "A webhook delivery of the journal (wh_…)" }),
    request: z
      .string()
      .optional()
      .openapi({ description: "The call, for an error answer", example: "POST /api/v1/refunds/card" }),
    at: instant("Virtual time it was first seen"),
    file: z
      .string()
      .optional()
      .openapi({ description: "In a report merged by `paysandbox run --coverage`: the file whose sandbox saw it first" }),
  })
  .openapi("CoverageEvidence");

const area = z.enum(AREAS).openapi({ description: "What part of the gateway it is" });

export const CoverageBehaviourSchema = z
  .object({
    id: z.string().openapi({ description: "Stable id", example: "card.payment.failed.decline-5" }),
    area,
    title: z.string().openapi({ example: "Card payment FAILED, declineCode 5 (INSUFFICIENT_FUNDS_ERROR)" }),
    hint: z.string().openapi({ description: "How to cause it: a test card, a scenario rule, a page's answer, a clock move" }),
    count: z.number().int().min(0).openapi({ description: "Times seen since the sandbox's last reset" }),
    first: CoverageEvidenceSchema.nullable().openapi({ description: "Where and when it was first seen; null when never" }),
  })
  .openapi("CoverageBehaviour");

export const CoverageAreaSchema = z
  .object({
    area,
    title: z.string(),
    total: z.number().int(),
    seen: z.number().int(),
    percent: z.number().openapi({ description: "seen / total, in percent, rounded down to a tenth" }),
  })
  .openapi("CoverageArea");

export const CoverageReportSchema = z
  .object({
    now: instant("The sandbox's virtual now"),
    total: z.number().int().openapi({ description: "Behaviours in the catalogue" }),
    seen: z.number().int().openapi({ description: "Behaviours seen at least once" }),
    percent: z.number().openapi({ description: "seen / total, in percent, rounded down to a tenth" }),
    areas: z.array(CoverageAreaSchema),
    behaviours: z.array(CoverageBehaviourSchema).openapi({ description: "Every behaviour of the catalogue, by area" }),
    unseen: z.array(z.string()).openapi({ description: "The ids never seen" }),
  })
  .openapi("CoverageReport");

export type CoverageReport = z.infer<typeof CoverageReportSchema>;
export type CoverageBehaviourEntry = z.infer<typeof CoverageBehaviourSchema>;
export type CoverageEvidence = z.infer<typeof CoverageEvidenceSchema>;
