import type { Merchant } from "../modules/merchants/merchants.service.js";
import { invalidField } from "../platform/errors.js";

/** 400 `Invalid field: <field>` unless the body names the authenticated merchant (CONTRACT §3). */
export function requireOwnMerchant(merchant: Merchant, field: "mid" | "merchantId" | "accountId", value: string | number): void {
  if (String(merchant[field]) !== String(value)) throw invalidField(field);
}
