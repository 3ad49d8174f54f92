import { createRoute } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses, jsonBody, pathParam } from "../http/schemas.js";
import { CompleteRequestSchema, CompleteResponseSchema } from "../modules/transactions/transactions.wire.js";

export const completeTransactionRoute = createRoute({
  operationId: "completeTransaction",
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
