import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import type { SandboxRegistry } from "./registry.js";
import { createSandboxRoute, deleteSandboxRoute, getSandboxRoute, listSandboxesRoute } from "./sandboxes.routes.js";

/** The root's `/_sandbox/sandboxes` (docs/parallel-suites.md). */
export function registerSandboxes(app: OpenAPIHono<AppEnv>, registry: SandboxRegistry) {
  app.openapi(createSandboxRoute, async (c) => c.json(await registry.create(c.req.valid("json") ?? {}), 201));
  app.openapi(listSandboxesRoute, (c) => c.json(registry.list(), 200));
  app.openapi(getSandboxRoute, (c) => c.json(registry.get(c.req.valid("param").id), 200));
  app.openapi(deleteSandboxRoute, async (c) => {
    await registry.delete(c.req.valid("param").id, { force: c.req.valid("query").force === "true" });
    return c.body(null, 204);
  });
}
