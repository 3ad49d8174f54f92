/**
 * A list page's query (docs/dashboard.md): its filters and its page (`before` / `after` cursors,
 * `limit`); a bad one is a 400 naming it.
 */
import type { Context } from "hono";
import { invalidField } from "../platform/errors.js";
import { type Cursor, decodeCursor, type PageRequest } from "./dashboard.repo.js";
import { DEFAULT_PAGE_SIZE } from "./transactions.view.js";

const MAX_PAGE_SIZE = 200;

/** A query parameter, with "" (a filter's "All" option) as absent. */
export const param = (c: Context, name: string): string | undefined => {
  const v = c.req.query(name);
  return v === undefined || v === "" ? undefined : v;
};

/** A filter that takes one of `allowed` (or none). */
export function oneOf<T extends string>(c: Context, name: string, allowed: readonly T[]): T | undefined {
  const v = param(c, name);
  if (v !== undefined && !allowed.includes(v as T)) throw invalidField(name);
  return v as T | undefined;
}

/** `before` / `after` / `limit` of a list; a bad one is a 400 naming it. */
export function pageRequest(c: Context): PageRequest {
  const cursor = (name: string): Cursor | undefined => {
    const v = param(c, name);
    if (v === undefined) return undefined;
    const decoded = decodeCursor(v);
    if (!decoded) throw invalidField(name);
    return decoded;
  };
  const before = cursor("before");
  const after = cursor("after");
  if (before && after) throw invalidField("after (give before or after, not both)");
  const rawLimit = param(c, "limit");
  const limit = rawLimit === undefined ? DEFAULT_PAGE_SIZE : Number(rawLimit);
  if (!/^\d{1,4}$/.test(rawLimit ?? "50") || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalidField(`limit (1 to ${MAX_PAGE_SIZE})`);
  }
  return { before, after, limit };
}
