import { createRoute } from "@hono/zod-openapi";
import { ADMIN_SECURITY, errorResponses } from "../http/schemas.js";
import { SNAPSHOT_TYPE, SnapshotFileSchema } from "./snapshots.wire.js";

export const snapshotRoute = createRoute({
  operationId: "getSnapshot",
  method: "get",
  path: "/_sandbox/snapshot",
  tags: ["Sandbox control plane"],
  security: ADMIN_SECURITY,
  summary: "This sandbox's whole state as one file, to start new sandboxes from (docs/snapshots.md)",
  description:
    "Everything it acknowledged, at this instant, with its clock's now. `POST /_sandbox/sandboxes` with this file as the body (Content-Type: application/vnd.paysandbox.snapshot) starts a new sandbox from it.",
  responses: {
    200: { description: "The snapshot file", content: { [SNAPSHOT_TYPE]: { schema: SnapshotFileSchema } } },
    ...errorResponses(401),
  },
});
