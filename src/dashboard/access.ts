/**
 * Who may use the dashboard, and from where (docs/dashboard.md). When SANDBOX_ADMIN_TOKEN is set the
 * dashboard asks for the token once and then keeps an HttpOnly, SameSite=Strict session cookie
 * (an `Authorization: Bearer <token>` header is accepted too, for scripts). Whether it is set or
 * not, every form POST must come from the dashboard's own origin: the Origin header (or, when a
 * browser sends none, the Referer) must name this host, so another site cannot drive the clock or
 * replay webhooks from a visitor's browser.
 *
 * Each sandbox's session is its own: its cookie's Path is the sandbox's base path (`/` for the root),
 * so logging into one sandbox's dashboard does not replace another's cookie, and a browser holding
 * several sends each that applies; any one of them that is this sandbox's session admits.
 *
 * LIMITATIONS:
 * - The session is an HMAC of the token and a per-process random salt: it ends when the browser
 *   closes, when the sandbox restarts or when the token changes; logging out clears the cookie
 *   (a copied cookie stays valid until one of those).
 */
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { hmacBase64, randomSecret, safeEqual } from "../platform/crypto.js";

export const SESSION_COOKIE = "paysandbox_session";

export interface DashboardAccessDeps {
  /** SANDBOX_ADMIN_TOKEN, if set. */
  adminToken: string | undefined;
  /** The sandbox's base URL (docs/parallel-suites.md). */
  publicUrl: () => string;
}

export class DashboardAccess {
  private readonly session: string | undefined;
  private readonly adminToken: string | undefined;
  private readonly publicUrl: () => string;

  constructor(deps: DashboardAccessDeps) {
    this.adminToken = deps.adminToken;
    this.publicUrl = deps.publicUrl;
    this.session = deps.adminToken ? hmacBase64(deps.adminToken, `paysandbox dashboard session ${randomSecret(16)}`) : undefined;
  }

  /** True when SANDBOX_ADMIN_TOKEN is set. */
  get guarded(): boolean {
    return this.adminToken !== undefined;
  }

  /** Open dashboard, a valid session cookie, or the admin token as a bearer header. */
  admits(c: Context): boolean {
    if (!this.adminToken || !this.session) return true;
    for (const cookie of sessionCookies(c)) if (safeEqual(cookie, this.session)) return true;
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    return bearer !== undefined && safeEqual(bearer, this.adminToken);
  }

  /** Checks the token of the login form; when right, sets the session cookie. */
  logIn(c: Context, token: string): boolean {
    if (!this.adminToken || !this.session || !safeEqual(token, this.adminToken)) return false;
    setCookie(c, SESSION_COOKIE, this.session, {
      path: this.cookiePath(),
      httpOnly: true,
      sameSite: "Strict",
      secure: isHttps(c),
    });
    return true;
  }

  logOut(c: Context): void {
    deleteCookie(c, SESSION_COOKIE, { path: this.cookiePath(), httpOnly: true, sameSite: "Strict", secure: isHttps(c) });
  }

  /** The session cookie's Path: this sandbox's base path (`/sandboxes/<id>`), or `/` for the root. */
  private cookiePath(): string {
    let path: string;
    try {
      path = new URL(this.publicUrl()).pathname.replace(/\/+$/, "");
    } catch {
      path = "";
    }
    return path === "" ? "/" : path;
  }

  /** CSRF: a POST's Origin (else Referer) names this host, or the public URL's. */
  sameOrigin(c: Context): boolean {
    const source = c.req.header("origin") ?? c.req.header("referer");
    if (!source) return false;
    let host: string;
    try {
      host = new URL(source).host;
    } catch {
      return false; // "null" (a sandboxed frame, a privacy redirect) and garbage alike
    }
    if (host === "") return false;
    if (host === c.req.header("host")) return true;
    try {
      return host === new URL(this.publicUrl()).host;
    } catch {
      return false;
    }
  }
}

/**
 * Every value of the session cookie the request carries: a browser logged into the root's dashboard
 * and a sandbox's sends both cookies to the sandbox's pages (hono's getCookie reads only the first).
 */
function sessionCookies(c: Context): string[] {
  const header = c.req.header("cookie");
  if (header === undefined) return [];
  const values: string[] = [];
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq <= 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    try {
      // setCookie wrote it URI-encoded (the session is base64)
      values.push(decodeURIComponent(pair.slice(eq + 1).trim()));
    } catch {
      // not one we wrote
    }
  }
  return values;
}

function isHttps(c: Context): boolean {
  return c.req.url.startsWith("https:") || c.req.header("x-forwarded-proto") === "https";
}

/** A path of this site to come back to (`/x?y`), never another site's (`//evil`, `/\evil`, `https:`). */
export function localPath(value: string | undefined, fallback = "/"): string {
  if (!value || value.length > 2000 || !/^\/(?![/\\])/.test(value) || /[\r\n]/.test(value)) return fallback;
  return value;
}
