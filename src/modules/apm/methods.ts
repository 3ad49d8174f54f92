/**
 * The APM method catalog (docs/apm.md), read from fixtures/apm-methods.json, the one
 * source of the methods, their directions, currencies, the apmPayload fields each needs and the
 * labels the hosted payment page shows. Routes build their enums from it; services look methods up.
 */
import { APM_METHODS } from "../../platform/fixtures.js";

export type Direction = "payin" | "payout";
export type ActionType = "NONE" | "REDIRECT" | "QR";

export interface ApmMethod {
  paymentMethod: string;
  paymentType: string;
  directions: Direction[];
  /** apmPayload fields the provider route needs; a pay-in or payout without them goes through the HPP. */
  requiredFields: string[];
  /** True when the HPP always collects the data (the payload's fields are not used). */
  alwaysHpp: boolean;
  /** The fields the HPP asks for when `alwaysHpp` (default: requiredFields). */
  hppFields?: string[];
  currencies: "any" | string[];
  actionType: ActionType;
}

const catalog = APM_METHODS as unknown as {
  paymentTypes: string[];
  methods: ApmMethod[];
  fieldLabels: Record<string, string>;
  examples: Record<string, string>;
  fieldPatterns: Record<string, string>;
};

export const PAYMENT_TYPES = catalog.paymentTypes as [string, ...string[]];
export const METHODS: readonly ApmMethod[] = catalog.methods;
export const PAYMENT_METHODS = METHODS.map((m) => m.paymentMethod) as [string, ...string[]];
export const FIELD_EXAMPLES: Readonly<Record<string, string>> = catalog.examples;
const BY_NAME = new Map(METHODS.map((m) => [m.paymentMethod, m]));
const PATTERNS = new Map(Object.entries(catalog.fieldPatterns).map(([f, p]) => [f, new RegExp(p)]));

export const methodOf = (name: string): ApmMethod | undefined => BY_NAME.get(name);

/** The label a person reads for an apmPayload field on the HPP. */
export const labelOf = (field: string): string => catalog.fieldLabels[field] ?? field;

/** Whether a string value is acceptable for a field (the catalog's pattern, else any non-blank text up to 200). */
export const fieldValueValid = (field: string, value: string): boolean =>
  value.trim() !== "" && value.length <= 200 && (PATTERNS.get(field)?.test(value) ?? true);

/** A method with a wallet token instead of typed fields (MOBILE_WALLET). */
export const isWallet = (m: ApmMethod): boolean => m.paymentType === "MOBILE_WALLET";

/** True when the currency is one the method takes. */
export const takesCurrency = (m: ApmMethod, currency: string): boolean =>
  m.currencies === "any" || m.currencies.includes(currency);

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== "";

/**
 * The data-collection rule (docs/apm.md): the fields the HPP must still collect; empty
 * when the payload holds all the method needs. A wallet's `token` is also satisfied by `decrypted`.
 */
export function missingFields(m: ApmMethod, payload: Record<string, unknown>): string[] {
  if (m.alwaysHpp) return m.hppFields ?? m.requiredFields;
  if (isWallet(m) && present(payload.decrypted)) return [];
  return m.requiredFields.filter((f) => !present(payload[f]));
}
