import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Db } from "../db/client.js";
import type { AppEnv, Scoped } from "../http/env.js";
import { toIso } from "../platform/clock.js";
import { type Lineage, snapshotOf } from "./images.js";
import { snapshotRoute } from "./snapshots.routes.js";
import { SNAPSHOT_TYPE } from "./snapshots.wire.js";

/** `GET {base}/_sandbox/snapshot` (docs/snapshots.md), in the root and every sandbox. */
export function registerSnapshots(
  app: OpenAPIHono<AppEnv>,
  of: Scoped<{ db: Db; clock: { nowMs(): number }; lineage: Lineage; config: { db: string } }>,
) {
  app.openapi(snapshotRoute, async (c) => {
    const ctx = of(c);
    const { file, nowMs, source } = await snapshotOf(ctx, ctx.config.db);
    const stamp = toIso(nowMs).replace(/[:.]/g, "-");
    return c.body(new Uint8Array(file.buffer as ArrayBuffer, file.byteOffset, file.byteLength), 200, {
      "content-type": SNAPSHOT_TYPE,
      "content-disposition": `attachment; filename="${source}-${stamp}.paysandbox"`,
    });
  });
}
