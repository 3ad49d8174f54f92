/**
 * Merchants (docs/api.md#built-in-merchant): the built-in one, always present, and those scenario files add.
 * Every resource belongs to one merchant; lookups are cached because every request needs one.
 */
import type { Db } from "../../db/client.js";
import type { Merchant } from "../../db/schema/index.js";
import { invalidField } from "../../platform/errors.js";
import { BUILTIN_MERCHANT } from "../../platform/fixtures.js";
import { merchantsRepo } from "./merchants.repo.js";

export type { Merchant };

export class MerchantService {
  private cache = new Map<string, Merchant>();

  constructor(private readonly db: Db) {}

  /** Writes the built-in merchant (start and reset). */
  seedBuiltin(): void {
    merchantsRepo.upsert(this.db, BUILTIN_MERCHANT);
    this.invalidate();
  }

  byKey(key: string): Merchant | undefined {
    let m = this.cache.get(key);
    if (!m) {
      m = merchantsRepo.byKey(this.db, key);
      if (m) this.cache.set(key, m);
    }
    return m;
  }

  all(): Merchant[] {
    return merchantsRepo.all(this.db);
  }

  /**
   * Adds or replaces merchants by merchantKey. A mid/merchantId/accountId already held by
   * another merchant is refused, naming `<pathPrefix>.<index>.<field>`. Call inside a transaction.
   */
  upsertMany(list: Merchant[], pathPrefix: string): void {
    const existing = this.all();
    list.forEach((m, i) => {
      for (const field of ["mid", "merchantId", "accountId"] as const) {
        const clash =
          existing.find((e) => e.merchantKey !== m.merchantKey && e[field] === m[field]) ??
          list.find((o, j) => j !== i && o[field] === m[field]);
        if (clash) throw invalidField(`${pathPrefix}.${i}.${field} (already used by merchant ${clash.merchantKey})`);
      }
    });
    for (const m of list) merchantsRepo.upsert(this.db, m);
    this.invalidate();
  }

  invalidate(): void {
    this.cache.clear();
  }
}

/** 400 `Invalid field: <field>` unless the body names the authenticated merchant (docs/api.md). */
export function requireOwnMerchant(merchant: Merchant, field: "mid" | "merchantId" | "accountId", value: string | number): void {
  if (String(merchant[field]) !== String(value)) throw invalidField(field);
}
