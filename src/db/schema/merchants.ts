import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { MerchantFields } from "../../platform/fixtures.js";

export const merchants = sqliteTable("merchants", {
  merchantKey: text("merchant_key").primaryKey(),
  merchantSecret: text("merchant_secret").notNull(),
  mid: text("mid").notNull().unique(),
  merchantId: integer("merchant_id").notNull().unique(),
  accountId: integer("account_id").notNull().unique(),
  processingCurrency: text("processing_currency"),
  walletDomains: text("wallet_domains", { mode: "json" }).$type<string[]>().notNull(),
  /** Display name (wallet sessions, HPP pages); null → the mid. */
  name: text("name"),
  /** Scenario `webhookChaos`: mode → rate 0..1 (docs/webhooks.md#webhook-chaos). */
  webhookChaos: text("webhook_chaos", { mode: "json" }).$type<Record<string, number | string>>(),
  /** `builtin` or the name of the scenario that added it. */
  source: text("source").notNull(),
});

/** A merchant as every layer sees it (docs/api.md#built-in-merchant); lives here, below the modules and webhooks that use it. */
export type Merchant = typeof merchants.$inferSelect;

/** The row and the platform's MerchantFields are one shape: a column added to one and not the other fails to compile. */
const sameShape: [Merchant, MerchantFields] extends [MerchantFields, Merchant] ? true : never = true;
void sameShape;
