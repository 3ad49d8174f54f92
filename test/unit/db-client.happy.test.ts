/**
 * A connection's drizzle (src/db/client.ts): what `drizzle({ client, schema })` makes, with the
 * schema's relational config worked out once per process and shared by every connection (a sandbox's
 * database is opened on a request's path).
 */
import { describe, expect, it } from "vitest";
import { closeDb, openDb } from "../../src/db/client.js";
import { merchants } from "../../src/db/schema/index.js";
import { MerchantService } from "../../src/modules/merchants/merchants.service.js";

describe("openDb", () => {
  it("shares one relational config between connections, and each still queries its own database", () => {
    const a = openDb(":memory:");
    const b = openDb(":memory:");
    try {
      expect(a._.schema).toBeDefined();
      expect(a._.schema).toBe(b._.schema);
      expect(a._.tableNamesMap).toBe(b._.tableNamesMap);
      new MerchantService(a).seedBuiltin();
      expect(a.select().from(merchants).all().length).toBe(1);
      expect(b.select().from(merchants).all().length).toBe(0);
      expect(a.query.merchants.findFirst().sync()).toMatchObject({ merchantKey: expect.any(String) });
      expect(b.query.merchants.findFirst().sync()).toBeUndefined();
    } finally {
      closeDb(a);
      closeDb(b);
    }
  });
});
