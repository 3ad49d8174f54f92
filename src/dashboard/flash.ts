/**
 * The flash message (docs/dashboard.md): an action's outcome, carried across its 303 to the page
 * in a short-lived cookie and shown once.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Flash } from "./layout.js";

const FLASH_COOKIE = "paysandbox_flash";

/** The flash message this request carries, if any (and it is spent). */
export function readFlash(c: Context): Flash | undefined {
  const raw = getCookie(c, FLASH_COOKIE);
  if (raw === undefined) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: "/" });
  try {
    const f = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<Flash>;
    if ((f.kind === "ok" || f.kind === "error") && typeof f.text === "string") return { kind: f.kind, text: f.text };
  } catch {
    // a cookie we did not write: ignore it
  }
  return undefined;
}

/** Sets the flash message the next page shows. */
export function setFlash(c: Context, flash: Flash): void {
  const value = Buffer.from(JSON.stringify({ kind: flash.kind, text: flash.text.slice(0, 600) })).toString("base64url");
  setCookie(c, FLASH_COOKIE, value, { path: "/", httpOnly: true, sameSite: "Strict", maxAge: 60 });
}
