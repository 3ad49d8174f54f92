import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonBody } from "../../http/schemas.js";

export const AuthRequestSchema = z
  .object({ merchantKey: z.string().min(1), merchantSecret: z.string().min(1) })
  .openapi("AuthRequest");

export const AuthResponseSchema = z
  .object({ merchantKey: z.string(), token: z.string().openapi({ example: "Bearer eyJhbGciOi..." }) })
  .openapi("AuthResponse");

export type AuthResponse = z.infer<typeof AuthResponseSchema>;

export const authRoute = createRoute({
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
