/**
 * The control plane's complete call on the wire (docs/control-plane.md): the schemas that
 * src/control/transactions.routes.ts validates and documents with, and the types the lifecycle
 * takes and answers, inferred from them.
 */
import { z } from "@hono/zod-openapi";
import { DeclineCodeSchema, oneOf } from "../../http/wire.js";

export const CompleteRequestSchema = z
  .strictObject({
    status: oneOf(["SUCCEED", "FAILED"]),
    declineCode: DeclineCodeSchema.optional().openapi({ description: "With FAILED (fixtures/decline-codes.json); default 2" }),
  })
  .openapi("CompleteTransactionRequest");

export const CompleteResponseSchema = z
  .object({
    transactionId: z.string(),
    transactionStatus: z.enum(["SUCCEED", "FAILED"]),
    declineCode: DeclineCodeSchema.nullable(),
  })
  .openapi("CompleteTransactionResponse");

export type CompleteRequest = z.infer<typeof CompleteRequestSchema>;
export type CompleteResponse = z.infer<typeof CompleteResponseSchema>;
