/**
 * The dashboard's session (docs/dashboard.md): the guard in front of every dashboard request (POSTs
 * from its own origin only, then the admin session), and logging in and out.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import { localPath } from "./access.js";
import { MessagePage } from "./layout.js";
import { LoginPage } from "./login.view.js";
import type { PageKit } from "./page-kit.js";
import { readForm, sendPage, start } from "./page-response.js";

/** Every dashboard request: POSTs from our own origin only (CSRF), then the admin session. */
export function dashboardGuard(kit: PageKit): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const t0 = start();
    const { access } = kit.scope(c);
    const post = c.req.method === "POST";
    if (post && !access.sameOrigin(c)) {
      const message = "Refused: this form was not posted from the dashboard's own origin (Origin or Referer header).";
      return sendPage(c, 403, <MessagePage title="Forbidden" message={message} />, t0);
    }
    if (c.req.path === "/dashboard/login" || access.admits(c)) return next();
    if (post) {
      const message = "Log in first: this dashboard needs the admin token.";
      return sendPage(c, 401, <MessagePage title="Unauthorized" message={message} />, t0);
    }
    return c.redirect(`/dashboard/login?next=${encodeURIComponent(kit.here(c))}`, 303);
  };
}

/** `GET`/`POST /dashboard/login`, `POST /dashboard/logout`. */
export function registerSession(app: OpenAPIHono<AppEnv>, kit: PageKit) {
  app.get("/dashboard/login", async (c) => {
    const { access } = kit.scope(c);
    const next = localPath(c.req.query("next"));
    if (!access.guarded || access.admits(c)) return c.redirect(next, 303);
    return sendPage(c, 200, <LoginPage next={next} />, start());
  });

  app.post("/dashboard/login", async (c) => {
    const t0 = start();
    const { access } = kit.scope(c);
    const form = await readForm(c);
    const next = localPath(form.next);
    if (!access.guarded) return c.redirect(next, 303);
    if (access.logIn(c, form.token ?? "")) return c.redirect(next, 303);
    return sendPage(c, 401, <LoginPage next={next} error="Wrong admin token." />, t0);
  });

  app.post("/dashboard/logout", (c) => {
    const { access } = kit.scope(c);
    access.logOut(c);
    return c.redirect(access.guarded ? "/dashboard/login" : "/", 303);
  });
}
