import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY, ErrorSchema, errorResponses, jsonResponse, pathParam } from "../http/schemas.js";
import { LoadSnapshotQuerySchema, SNAPSHOT_TYPE, SnapshotFileSchema } from "../snapshots/snapshots.wire.js";
import { CreatedSandboxSchema, CreateSandboxSchema, SandboxSchema } from "./sandboxes.wire.js";

const tags = ["Sandboxes"];
const security = ADMIN_SECURITY;

export const createSandboxRoute = createRoute({
  operationId: "createSandbox",
  method: "post",
  path: "/_sandbox/sandboxes",
  tags,
  security,
  summary: "A new isolated sandbox under its own base URL, with its own clock (docs/parallel-suites.md)",
  description:
    "A fresh sandbox; with `from`, a copy of a running one (a fork); with a snapshot file as the body (Content-Type: application/vnd.paysandbox.snapshot, `name` and `ttl` in the query), one started from it (docs/snapshots.md).",
  request: {
    query: LoadSnapshotQuerySchema,
    body: {
      required: false,
      content: { "application/json": { schema: CreateSandboxSchema }, [SNAPSHOT_TYPE]: { schema: SnapshotFileSchema } },
    },
  },
  responses: {
    201: jsonResponse(CreatedSandboxSchema, "Created and open"),
    ...errorResponses(400, 401, 404, 413),
    429: {
      description: "SANDBOX_MAX_SANDBOXES reached; nothing created",
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

export const listSandboxesRoute = createRoute({
  operationId: "listSandboxes",
  method: "get",
  path: "/_sandbox/sandboxes",
  tags,
  security,
  summary: "Every sandbox of the server, oldest first",
  responses: { 200: jsonResponse(z.array(SandboxSchema), "The sandboxes"), ...errorResponses(401) },
});

export const getSandboxRoute = createRoute({
  operationId: "getSandbox",
  method: "get",
  path: "/_sandbox/sandboxes/{id}",
  tags,
  security,
  summary: "One sandbox",
  request: { params: pathParam("id", "sbx_0Ab1Cd2Ef3Gh4Ij5Kl6M") },
  responses: { 200: jsonResponse(SandboxSchema, "The sandbox"), ...errorResponses(401, 404) },
});

export const deleteSandboxRoute = createRoute({
  operationId: "deleteSandbox",
  method: "delete",
  path: "/_sandbox/sandboxes/{id}",
  tags,
  security,
  summary: "Delete a sandbox and everything it held",
  description:
    "Answers 204 once the webhook attempts on the wire have their answers and every delivery already due has had its attempt (at most the attempt timeout, 10 s); then it is gone. `?force=true` cuts them off at once.",
  request: {
    params: pathParam("id"),
    query: z.strictObject({
      force: z
        .enum(["true", "false"])
        .optional()
        .openapi({ description: "true: do not wait for its webhooks (attempts on the wire are cut off)" }),
    }),
  },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 404) },
});
