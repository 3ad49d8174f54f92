/**
 * The token exchange's bodies on the wire: the schemas that auth.routes.ts validates and documents
 * with, and the type of the answer, inferred from them, for the service.
 */
import { z } from "@hono/zod-openapi";

export const AuthRequestSchema = z
  .object({ merchantKey: z.string().min(1), merchantSecret: z.string().min(1) })
  .openapi("AuthRequest");

export const AuthResponseSchema = z
  .object({ merchantKey: z.string(), token: z.string().openapi({ example: "Bearer eyJhbGciOi..." }) })
  .openapi("AuthResponse");

export type AuthResponse = z.infer<typeof AuthResponseSchema>;
