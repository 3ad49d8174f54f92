import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { type Merchant, merchants } from "../../db/schema/index.js";

export type MerchantRow = Merchant;

export const merchantsRepo = {
  all: (db: Db) => db.select().from(merchants).all(),
  byKey: (db: Db, key: string) => db.select().from(merchants).where(eq(merchants.merchantKey, key)).get(),
  upsert: (db: Db, row: MerchantRow) =>
    db.insert(merchants).values(row).onConflictDoUpdate({ target: merchants.merchantKey, set: row }).run(),
};
