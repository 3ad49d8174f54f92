/**
 * A deletion drops the sandbox's database (docs/parallel-suites.md#deleting-a-sandbox), so it writes
 * nothing to it on the way out: no clock saved, no next work asked for, no interrupted attempt
 * recorded when none is on the wire (docs/performance.md "Sandboxes at once": a test file's delete
 * is on its suite's path). Held here by a database that refuses every write: a forced deletion (no
 * due webhook to send first, which claims them) still answers 204, logs no failed close, and the
 * sandbox is gone at once.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { Table } from "../../src/sandboxes/table.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "./payments.body.js";

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe("a deletion", () => {
  it("writes nothing to the database it drops, file or memory", async () => {
    for (const storage of ["file", "memory"] as const) {
      const lines: string[] = [];
      const logger = pino(
        { level: "error" },
        new Writable({
          write(chunk, _enc, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      );
      s = makeServer({ config: { db: tempDbPath(), storage }, groupCommit: true, logger });
      const box = await s.create({ from: (await s.create({ name: "world" })).id });
      const token = await s.token(box.base);
      const paid = await s.http.post(`${box.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
      expect(paid.status).toBe(200);
      // its database refuses every write from here on
      const table = (s.server.sandboxes as unknown as { t: Table }).t;
      const db = table.opened.get(box.id)?.opened.db;
      expect(db).toBeDefined();
      db?.$client.pragma("query_only = ON");
      // forced: no due webhook to send first (that one writes: it claims them)
      const res = await s.http.delete(`/_sandbox/sandboxes/${box.id}?force=true`);
      expect(res.status).toBe(204);
      expect(lines.join("")).not.toContain("closing a sandbox failed");
      expect(db?.$client.open).toBe(false);
      expect((await s.http.get(`${box.base}/_sandbox/clock`)).status).toBe(404);
      expect(table.opened.has(box.id)).toBe(false);
      await s.close();
      s = undefined;
    }
  });
});
