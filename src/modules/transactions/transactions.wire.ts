/**
 * The control plane's complete call on the wire (docs/control-plane.md): the schemas that
 * src/control/transactions.routes.ts validates and documents with, and the types the lifecycle
 * takes and answers, inferred from them.
 */
import { z } from "@hono/zod-openapi";
import { DeclineCodeSchema, oneOf } from "../../http/wire.js";
import { DECLINE_CODES } from "../../platform/fixtures.js";

export const CompleteRequestSchema = z
  .strictObject({
    status: oneOf(["SUCCEED", "FAILED"]),
    declineCode: z
      .number()
      .int()
      .refine((c) => DECLINE_CODES.some((d) => d.code === c))
      .optional()
      .openapi({ description: "With FAILED (fixtures/decline-codes.json); default 2" }),
  })
  .openapi("CompleteTransactionRequest");

export const CompleteResponseSchema = z
  .object({ transactionId: z.string(), transactionStatus: z.string(), declineCode: DeclineCodeSchema.nullable() })
  .openapi("CompleteTransactionResponse");

export type CompleteRequest = z.infer<typeof CompleteRequestSchema>;
export type CompleteResponse = z.infer<typeof CompleteResponseSchema>;
