/**
 * The registry's bodies on the wire (docs/parallel-suites.md, docs/snapshots.md): the schemas that
 * sandboxes.routes.ts validates and documents with.
 */
import { z } from "@hono/zod-openapi";
import { isoDuration, isoInstant } from "../http/schemas.js";
import { instant } from "../http/wire.js";
import { ScenarioDocumentSchema } from "../scenarios/scenario.schema.js";
import { StorageSchema } from "../snapshots/snapshots.wire.js";

/** Where a create's scenario came from, in its errors (as a loaded file's: `Invalid scenario (...): ...`). */
export const SCENARIO_SOURCE = "POST /_sandbox/sandboxes (scenario)";

const name = z
  .string()
  .max(200)
  .optional()
  .openapi({ description: "A label for people (the dashboard, the list)", example: "checkout.test.ts" });
const ttl = isoDuration(
  "ISO 8601 duration of real time without a request after which it is deleted (default PT1H, PT1S to P7D)",
  "PT1H",
).optional();
const startTime = isoInstant("ISO 8601 instant its virtual clock starts at, 1970 to 9999 (default: the root's now)").optional();
const scenario = z
  .union([ScenarioDocumentSchema, z.string().openapi({ description: "The same document as YAML" })])
  .optional()
  .openapi({ description: "A scenario document (JSON object, or YAML as a string); its steps are not kept" });
const storage = StorageSchema.optional().openapi({
  description:
    "`memory`: faster, and gone when the server stops; `file`: survives a restart (default: the server's SANDBOX_STORAGE, file on a database file; docs/parallel-suites.md#storage)",
});
const from = z.string().min(1).max(200).openapi({
  description:
    "`root` or a sandbox id: the new sandbox starts as a copy of its state at this instant, its clock at the same now (docs/snapshots.md)",
  example: "sbx_0Ab1Cd2Ef3Gh4Ij5Kl6M",
});

/**
 * A fresh sandbox, or a fork (`from`), which takes its clock and scenarios from its source: two closed
 * objects, so that the document says a fork has no startTime or scenario (docs/snapshots.md).
 */
export const CreateSandboxSchema = z
  .union([
    z.strictObject({ name, startTime, scenario, ttl, storage }).openapi("CreateFreshSandbox", { description: "A fresh sandbox" }),
    z.strictObject({ from, name, ttl, storage }).openapi("ForkSandbox", { description: "A copy of a running sandbox (a fork)" }),
  ])
  .openapi("CreateSandboxRequest");

/**
 * The same rules as one object, for the words of a 400 only (the route's hook, explainedBy): each
 * wrong field named with its reason, a fork's startTime or scenario as "not with from".
 */
export const CreateSandboxReasons = z
  .strictObject({
    name,
    startTime,
    scenario: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
    ttl,
    from: from.optional(),
    storage,
  })
  .superRefine((body, ctx) => {
    if (body.from === undefined) return;
    if (body.startTime !== undefined) {
      ctx.addIssue({ code: "custom", path: ["startTime"], message: "not with from: a copy's clock is at its source's now" });
    }
    if (body.scenario !== undefined) {
      ctx.addIssue({ code: "custom", path: ["scenario"], message: "not with from: a copy has its source's scenarios" });
    }
  });

export const SandboxSchema = z
  .object({
    id: z.string().openapi({ example: "sbx_0Ab1Cd2Ef3Gh4Ij5Kl6M" }),
    name: z.string().nullable(),
    baseUrl: z.string().openapi({ example: "http://localhost:8080/sandboxes/sbx_0Ab1Cd2Ef3Gh4Ij5Kl6M" }),
    now: instant("Its virtual now"),
    createdAt: instant(),
    lastUsedAt: instant(),
    expiresAt: instant("Real time at which it is deleted unless used before"),
    storage: StorageSchema,
  })
  .openapi("Sandbox");

// a fresh object with the Sandbox's fields, not `.extend` (documented as allOf, which no generator or strict check closes)
export const CreatedSandboxSchema = z
  .object({
    ...SandboxSchema.shape,
    merchant: z
      .object({
        merchantKey: z.string(),
        merchantSecret: z.string(),
        mid: z.string(),
        merchantId: z.number(),
        accountId: z.number(),
      })
      .openapi({ description: "Credentials to use in it: its scenario's first merchant, else the built-in one" }),
  })
  .openapi("CreatedSandbox");
