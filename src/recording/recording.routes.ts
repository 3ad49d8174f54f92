import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses } from "../http/schemas.js";
import { parseInstant } from "../platform/clock.js";
import { ScenarioDocumentSchema } from "../scenarios/scenario.schema.js";

const instant = (what: string) =>
  z
    .string()
    .refine((s) => parseInstant(s) !== undefined, "expected an ISO 8601 date-time")
    .optional()
    .openapi({ description: `Only calls made ${what} this virtual time`, example: "2026-01-01T00:00:00Z" });

export const RecordingQuerySchema = z.strictObject({ from: instant("at or after"), to: instant("at or before") });
export type RecordingQuery = z.infer<typeof RecordingQuerySchema>;

const DESCRIPTION = `What was done in this sandbox since its last reset, as a steps file (docs/scenarios.md) that \`paysandbox run\` replays on a fresh sandbox: every gateway call with its body (\`requestId\`s as \`\${uuid}\`, ids of earlier answers as \`\${name.path}\` references), \`expect\` with the answer's status and \`transactionStatus\`/\`declineCode\`, clock moves as \`advance\`, 3DS, HPP and QR page posts as their steps, and a \`webhook\` expectation for each callback that went out. YAML; JSON with \`Accept: application/json\`. Card numbers are never stored to make this possible: a card shows as the test card with its mask, CVV "123".`;

export const recordingRoute = createRoute({
  operationId: "getRecording",
  method: "get",
  path: "/_sandbox/recording",
  tags: ["Sandbox control plane"],
  security: ADMIN_SECURITY,
  summary: "This sandbox's session as a steps file for paysandbox run",
  description: DESCRIPTION,
  request: { query: RecordingQuerySchema },
  responses: {
    200: {
      description: "The steps file",
      content: {
        // the same document either way (a steps file, docs/scenarios.md): YAML by default, JSON by Accept
        "application/yaml": { schema: ScenarioDocumentSchema },
        "application/json": { schema: ScenarioDocumentSchema },
      },
    },
    ...errorResponses(400, 401),
  },
});
