/**
 * Snapshots on the wire (docs/snapshots.md): the file's media type and its schema, and the query of a
 * create from a file. The file itself is binary (src/snapshots/snapshot-file.ts).
 */
import { z } from "@hono/zod-openapi";
import { isoDuration } from "../http/schemas.js";
import { SNAPSHOT_TYPE } from "./snapshot-file.js";

export { SNAPSHOT_TYPE };

export const SnapshotFileSchema = z.string().openapi("SnapshotFile", {
  type: "string",
  format: "binary",
  description:
    "A sandbox's whole state (merchants, scenarios, transactions, tokens, subscriptions, the webhook journal, the recording, its clock's now): a header naming the format version, then its SQLite database (docs/snapshots.md)",
});

/** Where a sandbox keeps its database (docs/parallel-suites.md#storage). */
export const StorageSchema = z.enum(["file", "memory"]).openapi("SandboxStorage", {
  description:
    "Where its database lives: `file` survives a restart (and a kill -9), `memory` is faster and gone when the server stops (docs/parallel-suites.md#storage)",
});

/** `?name=&ttl=&storage=` of `POST /_sandbox/sandboxes` with a snapshot body. */
export const LoadSnapshotQuerySchema = z.strictObject({
  name: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: "A label for people (with a snapshot body)", example: "checkout.test.ts" }),
  ttl: isoDuration("With a snapshot body: its ttl (default PT1H, PT1S to P7D)", "PT1H").optional(),
  storage: StorageSchema.optional().openapi({
    description: "With a snapshot body: where it lives (default: the server's SANDBOX_STORAGE)",
  }),
});
