/**
 * Who may use the dashboard, and from where (docs/dashboard.md). When SANDBOX_ADMIN_TOKEN is set the
 * dashboard asks for the token once and then keeps an HttpOnly, SameSite=Strict session cookie
 * (an `Authorization: Bearer <token>` header is accepted too, for scripts). Whether it is set or
 * not, every form POST must come from the dashboard's own origin: the Origin header (or, when a
 * browser sends none, the Referer) must name this host, so another site cannot drive the clock or
 * replay webhooks from a visitor's browser.
 *
 * LIMITATIONS:
 * - The session is an HMAC of the token and a per-process random salt: it ends when the browser
 *   closes, when the sandbox restarts or when the token changes; logging out clears the cookie
 *   (a copied cookie stays valid until one of those).
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
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
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined && safeEqual(cookie, this.session)) return true;
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    return bearer !== undefined && safeEqual(bearer, this.adminToken);
  }

  /** Checks the token of the login form; when right, sets the session cookie. */
  logIn(c: Context, token: string): boolean {
    if (!this.adminToken || !this.session || !safeEqual(token, this.adminToken)) return false;
    setCookie(c, SESSION_COOKIE, this.session, {
      path: "/",
      httpOnly: true,
      sameSite: "Strict",
      secure: isHttps(c),
    });
    return true;
  }

  logOut(c: Context): void {
    deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Strict", secure: isHttps(c) });
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

function isHttps(c: Context): boolean {
  return c.req.url.startsWith("https:") || c.req.header("x-forwarded-proto") === "https";
}

/** A path of this site to come back to (`/x?y`), never another site's (`//evil`, `/\evil`, `https:`). */
export function localPath(value: string | undefined, fallback = "/"): string {
  if (!value || value.length > 2000 || !/^\/(?![/\\])/.test(value) || /[\r\n]/.test(value)) return fallback;
  return value;
}
