import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import { explainedBy } from "../http/errors.js";
import { badRequest, invalidField } from "../platform/errors.js";
import { describeIssues, ScenarioDocumentSchema } from "../scenarios/scenario.schema.js";
import { SNAPSHOT_TYPE } from "../snapshots/snapshots.wire.js";
import type { SandboxRegistry } from "./registry.js";
import { createSandboxRoute, deleteSandboxRoute, getSandboxRoute, listSandboxesRoute } from "./sandboxes.routes.js";
import { CreateSandboxReasons, SCENARIO_SOURCE } from "./sandboxes.wire.js";

/** The root's `/_sandbox/sandboxes` (docs/parallel-suites.md). */
export function registerSandboxes(app: OpenAPIHono<AppEnv>, registry: SandboxRegistry) {
  app.openapi<typeof createSandboxRoute>(
    createSandboxRoute,
    async (c) => {
      // a snapshot file as the body: a sandbox started from it (docs/snapshots.md)
      if ((c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() === SNAPSHOT_TYPE) {
        const { name, ttl, storage } = c.req.valid("query");
        return c.json(await registry.load(Buffer.from(await c.req.arrayBuffer()), { name, ttl, storage }), 201);
      }
      const body = c.req.valid("json") ?? {};
      // the document lists the snapshot's binary schema beside the JSON one; a JSON body is always the object
      if (typeof body === "string") throw invalidField("body", "a JSON object, or a snapshot file with its content type");
      return c.json(await registry.create(body), 201);
    },
    // the fields as one object name what is wrong; what is left is in the scenario, worded as a loaded file's
    explainedBy(CreateSandboxReasons, (raw) => {
      const scenario = (raw as { scenario?: unknown }).scenario;
      const parsed = ScenarioDocumentSchema.safeParse(scenario);
      if (typeof scenario === "object" && !parsed.success) {
        throw badRequest(`Invalid scenario (${SCENARIO_SOURCE}): ${describeIssues(parsed.error)}`);
      }
    }),
  );
  app.openapi(listSandboxesRoute, (c) => c.json(registry.list(), 200));
  app.openapi(getSandboxRoute, (c) => c.json(registry.get(c.req.valid("param").id), 200));
  app.openapi(deleteSandboxRoute, async (c) => {
    await registry.delete(c.req.valid("param").id, { force: c.req.valid("query").force === "true" });
    return c.body(null, 204);
  });
}
