/**
 * The shopper pages (3DS challenge, hosted payment page, QR page: docs/cards.md, docs/apm.md, docs/qr.md)
 * are opened and posted by a browser, so every error they answer is an HTML page, whoever raised
 * it (the form's validation, the body reader's 413/415, a service's 404/409), and an unknown
 * transaction is a 404 whatever the form holds. A wrong method stays the JSON 405 every path answers.
 */
import type { Hook } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { SandboxError } from "../platform/errors.js";
import type { AppEnv, RouteContext } from "./env.js";
import { validationHook } from "./errors.js";
import { renderMessage } from "./shopper-page.js";

export const NO_STORE = { "Cache-Control": "no-store" };

const TITLES: Record<number, string> = {
  400: "Form refused",
  404: "Unknown transaction",
  409: "Page closed",
  413: "Form too large",
  415: "Form refused",
};

/** Mounted on `/sandbox/*`: a JSON error answer becomes the same message as an HTML page, same status. */
export function htmlErrors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (res.status < 400 || res.status === 405 || !/json/.test(res.headers.get("content-type") ?? "")) return;
    const body = (await res.json().catch(() => ({}))) as { errorMessage?: unknown };
    const message = typeof body.errorMessage === "string" ? body.errorMessage : "Request refused";
    const kept = new Headers(res.headers);
    kept.delete("content-type");
    kept.delete("content-length");
    c.res = undefined;
    const page = await c.html(renderMessage(TITLES[res.status] ?? "Error", message), res.status as 400, NO_STORE);
    kept.forEach((v, k) => {
      if (!page.headers.has(k)) page.headers.set(k, v);
    });
    c.res = page;
  };
}

/**
 * The validation hook of a page's form post: an unknown transaction is a 404 before anything in the
 * form is judged; otherwise the shared hook's 400 (made HTML by htmlErrors).
 */
export function pageFormHook<I, P extends string, R>(lookup: (id: string, c: RouteContext) => unknown): Hook<I, AppEnv, P, R> {
  const hook: Hook<unknown, AppEnv, string, unknown> = async (result, c) => {
    if (result.success) return;
    try {
      lookup(c.req.param("id") ?? "", c);
    } catch (err) {
      if (err instanceof SandboxError && err.status === 404) {
        return c.html(renderMessage(TITLES[404] as string, err.message), 404, NO_STORE);
      }
    }
    return validationHook(result, c);
  };
  return hook as unknown as Hook<I, AppEnv, P, R>;
}

/** `url` with `transactionId=<id>` in its query (docs/cards.md#3ds-challenge: the 303 after the challenge). */
export function withTransactionId(url: string, id: string): string {
  const u = new URL(url);
  u.searchParams.set("transactionId", id);
  return u.toString();
}
