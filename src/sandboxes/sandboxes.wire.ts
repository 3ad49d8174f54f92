/**
 * The registry's bodies on the wire (docs/parallel-suites.md, docs/snapshots.md): the schemas that
 * sandboxes.routes.ts validates and documents with.
 */
import { z } from "@hono/zod-openapi";
import { isoDuration, isoInstant } from "../http/schemas.js";
import { instant } from "../http/wire.js";
import { StorageSchema } from "../snapshots/snapshots.wire.js";

export const CreateSandboxSchema = z
  .strictObject({
    name: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: "A label for people (the dashboard, the list)", example: "checkout.test.ts" }),
    startTime: isoInstant("ISO 8601 instant its virtual clock starts at, 1970 to 9999 (default: the root's now)").optional(),
    scenario: z
      .union([z.record(z.string(), z.unknown()), z.string()])
      .optional()
      .openapi({ description: "A scenario document (JSON object, or YAML as a string); its steps are not kept" }),
    ttl: isoDuration(
      "ISO 8601 duration of real time without a request after which it is deleted (default PT1H, PT1S to P7D)",
      "PT1H",
    ).optional(),
    from: z.string().min(1).max(200).optional().openapi({
      description:
        "A fork: `root` or a sandbox id; the new sandbox starts as a copy of its state at this instant, its clock at the same now (not with startTime or scenario; docs/snapshots.md)",
      example: "sbx_0Ab1Cd2Ef3Gh4Ij5Kl6M",
    }),
    storage: StorageSchema.optional().openapi({
      description:
        "`memory`: faster, and gone when the server stops; `file`: survives a restart (default: the server's SANDBOX_STORAGE, file on a database file; docs/parallel-suites.md#storage)",
    }),
  })
  .openapi("CreateSandboxRequest");

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

export const CreatedSandboxSchema = SandboxSchema.extend({
  merchant: z
    .object({
      merchantKey: z.string(),
      merchantSecret: z.string(),
      mid: z.string(),
      merchantId: z.number(),
      accountId: z.number(),
    })
    .openapi({ description: "Credentials to use in it: its scenario's first merchant, else the built-in one" }),
}).openapi("CreatedSandbox");
