/**
 * What every dashboard handler shares (docs/dashboard.md): the page frame (where it is, the clock,
 * the flash message, the session), a page handler whose bad input becomes an HTML page with its
 * 4xx, and an action answered 303 back to its page with its outcome as the flash message.
 */
import type { Context } from "hono";
import type { RouteContext, Scoped } from "../http/env.js";
import { SandboxError } from "../platform/errors.js";
import type { DashboardAccess } from "./access.js";
import type { DashboardActions } from "./actions.js";
import type { DashboardRepo, MerchantRow } from "./dashboard.repo.js";
import type { DashboardDeps } from "./deps.js";
import { readFlash, setFlash } from "./flash.js";
import { type Frame, MessagePage } from "./layout.js";
import { type Rendered, sendPage, start } from "./page-response.js";
import type { MerchantOption } from "./transactions.view.js";

export const merchantLabel = (m: MerchantRow): string => (m.name ? `${m.name} · ${m.mid}` : m.mid);

export type PageKit = ReturnType<typeof pageKit>;

/** What one sandbox's dashboard holds: its services, its queries, its session, its actions. */
export interface DashboardScope {
  ctx: DashboardDeps;
  repo: DashboardRepo;
  access: DashboardAccess;
  actions: DashboardActions;
}

/** `scope(c)`: the request's sandbox's dashboard (one route tree serves every sandbox, src/http/env.ts). */
export function pageKit(scope: Scoped<DashboardScope>) {
  // the path as this app routes it (a sandbox's without its base: its links get it back, src/http/base-path.ts)
  const here = (c: Context): string => `${c.req.path}${new URL(c.req.url).search}`;

  const frame = (c: RouteContext, section: Frame["section"]): Frame => {
    const { ctx, access } = scope(c);
    return {
      here: here(c),
      section,
      nowMs: ctx.clock.nowMs(),
      scale: ctx.clock.scale,
      flash: readFlash(c),
      loggedIn: access.guarded,
      eventsSince: ctx.events.newest,
      canFork: ctx.fork !== undefined,
    };
  };

  const merchantOptions = (c: RouteContext): { rows: MerchantRow[]; options: MerchantOption[] } => {
    const rows = scope(c).repo.merchants();
    return { rows, options: rows.map((m) => ({ key: m.merchantKey, label: merchantLabel(m) })) };
  };

  /** A page handler whose bad input (a SandboxError 4xx) becomes an HTML page with that status. */
  const htmlPage = (section: Frame["section"], build: (c: RouteContext, f: Frame) => Rendered) => async (c: RouteContext) => {
    const t0 = start();
    const f = frame(c, section);
    try {
      return await sendPage(c, 200, build(c, f), t0);
    } catch (err) {
      if (!(err instanceof SandboxError) || (err.status !== 400 && err.status !== 404)) throw err;
      const title = err.status === 404 ? "Not found" : "Bad request";
      return sendPage(
        c,
        err.status,
        <MessagePage title={title} message={err.message} frame={f}>
          <p>
            <a href="/">All transactions</a>
          </p>
        </MessagePage>,
        t0,
      );
    }
  };

  /** Runs an action and answers 303 back to `back` with its outcome as the flash message. */
  const act = async (c: Context, back: string, run: () => Promise<string> | string) => {
    try {
      setFlash(c, { kind: "ok", text: await run() });
    } catch (err) {
      if (!(err instanceof SandboxError) || err.status >= 500) throw err;
      setFlash(c, { kind: "error", text: err.message });
    }
    return c.redirect(back, 303);
  };

  return { scope, here, frame, merchantOptions, htmlPage, act };
}
