import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses, jsonBody, pathParam } from "../http/schemas.js";
import { DeclineCodeSchema, oneOf } from "../http/wire.js";
import { DECLINE_CODES } from "../platform/fixtures.js";

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

export const completeTransactionRoute = createRoute({
  method: "post",
  path: "/_sandbox/transactions/{id}/complete",
  tags: ["Sandbox control plane"],
  security: ADMIN_SECURITY,
  summary: "Finish a transaction waiting in PROCESSING/PENDING, with its webhook",
  request: {
    params: pathParam("id"),
    body: jsonBody(CompleteRequestSchema),
  },
  responses: {
    200: { description: "Finished", content: { "application/json": { schema: CompleteResponseSchema } } },
    ...errorResponses(400, 401, 404, 409),
  },
});
