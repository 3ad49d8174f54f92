import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody } from "../../http/schemas.js";
import { AuthRequestSchema, AuthResponseSchema } from "./auth.wire.js";

export const authRoute = createRoute({
  operationId: "createAuthToken",
  method: "post",
  path: "/auth",
  tags: ["Authentication"],
  security: [],
  summary: "Exchange merchant credentials for a bearer token (30 virtual days)",
  request: { body: jsonBody(AuthRequestSchema) },
  responses: {
    200: { description: "Token issued", content: { "application/json": { schema: AuthResponseSchema } } },
    ...errorResponses(400, 401),
  },
});
