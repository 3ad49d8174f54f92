import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { lazy } from "../../db/lazy.js";
import { cardTokens } from "../../db/schema/index.js";

export type TokenRow = typeof cardTokens.$inferSelect;
export type NewTokenRow = typeof cardTokens.$inferInsert;

export class TokensRepo {
  private readonly byIdStmt;

  constructor(private readonly db: Db) {
    this.byIdStmt = lazy(() =>
      db
        .select()
        .from(cardTokens)
        .where(eq(cardTokens.token, sql.placeholder("token")))
        .prepare(),
    );
  }

  insert(row: NewTokenRow): void {
    this.db.insert(cardTokens).values(row).run();
  }

  byToken(token: string): TokenRow | undefined {
    return this.byIdStmt.get({ token });
  }
}
