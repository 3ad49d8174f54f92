import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const merchants = sqliteTable("merchants", {
  merchantKey: text("merchant_key").primaryKey(),
  merchantSecret: text("merchant_secret").notNull(),
  mid: text("mid").notNull().unique(),
  merchantId: integer("merchant_id").notNull().unique(),
  accountId: integer("account_id").notNull().unique(),
  processingCurrency: text("processing_currency"),
  walletDomains: text("wallet_domains", { mode: "json" }).$type<string[]>().notNull(),
  /** `builtin` or the name of the scenario that added it. */
  source: text("source").notNull(),
});
