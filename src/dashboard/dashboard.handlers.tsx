/**
 * The dashboard's routes (docs/dashboard.md): HTML pages at `/` and under `/dashboard/`, and form POSTs
 * that perform an action through the service that owns it and answer 303 back to the page
 * (Post/Redirect/Get), with the outcome (a 4xx from the service included) as a flash message.
 * Pages read through DashboardRepo and change nothing.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Config } from "../config.js";
import type { ControlService } from "../control/control.service.js";
import type { Db } from "../db/client.js";
import type { EventLog } from "../events/event-log.js";
import { eventStream } from "../events/events.handlers.js";
import { EventsQuerySchema } from "../events/events.routes.js";
import type { AppEnv } from "../http/env.js";
import { isTransactionKind, KIND_FACTS, TRANSACTION_KINDS } from "../modules/transactions/kinds.js";
import type { CompleteInput, TransactionLifecycle } from "../modules/transactions/lifecycle.js";
import { type Clock, toIso } from "../platform/clock.js";
import { invalidField, missingField, notFound, SandboxError } from "../platform/errors.js";
import { APM_METHODS, DECLINE_CODES } from "../platform/fixtures.js";
import type { Recorder } from "../recording/recorder.js";
import { type RecordingDeps, recordingFile, recordingYaml } from "../recording/recording.handlers.js";
import { type Lineage, snapshotFile, snapshotOf } from "../snapshots/images.js";
import { SNAPSHOT_TYPE } from "../snapshots/snapshot-file.js";
import type { WebhookJournal } from "../webhooks/journal.js";
import { DashboardAccess, localPath } from "./access.js";
import {
  type Cursor,
  DashboardRepo,
  decodeCursor,
  type MerchantRow,
  type PageRequest,
  type TransactionRow,
} from "./dashboard.repo.js";
import { SUBSCRIPTION_STATUSES, TRANSACTION_STATUSES } from "./format.js";
import { CONTENT_SECURITY_POLICY, type Flash, type Frame, MessagePage } from "./layout.js";
import { LoginPage } from "./login.view.js";
import { MerchantsPage } from "./merchants.view.js";
import type { SandboxListItem } from "./sandboxes.view.js";
import { SubscriptionListPage } from "./subscriptions.view.js";
import { buildTimeline } from "./timeline.js";
import { TransactionPage } from "./transaction.view.js";
import { DEFAULT_PAGE_SIZE, type MerchantOption, TransactionListPage } from "./transactions.view.js";

/** What the dashboard reads and does: a few services of its sandbox's composition. */
export interface DashboardDeps {
  config: Pick<Config, "adminToken">;
  db: Db;
  clock: Clock;
  control: ControlService;
  journal: WebhookJournal;
  transactions: TransactionLifecycle;
  /** The live events the pages follow (docs/events.md). */
  events: EventLog;
  publicUrl: () => string;
  /** The server's other sandboxes (the root only). */
  sandboxList?: (() => readonly SandboxListItem[]) | undefined;
  /** A copy of this sandbox as a new one of the server (docs/snapshots.md); none outside a server. */
  fork?: (() => Promise<{ id: string; baseUrl: string }>) | undefined;
  /** What its snapshot says it came from (docs/snapshots.md). */
  lineage: Lineage;
  /** What is done here, the dashboard's own actions included, for the recording (docs/recording.md). */
  recorder: Recorder;
  scenarios: RecordingDeps["scenarios"];
}

const FLASH_COOKIE = "paysandbox_flash";
const MAX_PAGE_SIZE = 200;

/**
 * Every action the dashboard performs, each one call to the service that owns it (docs/control-plane.md
 * clock/advance, webhook replay, transaction complete): the one place to follow a rename.
 */
function dashboardActions(ctx: DashboardDeps) {
  /** An action as the control-plane call it stands for, in the recording (docs/recording.md). */
  const record = (kind: "advance" | "request", at: number, path: string, body: unknown, status: number, answer: unknown) =>
    ctx.recorder.record({
      kind,
      at,
      method: "POST",
      path,
      merchantKey: undefined,
      body: body === undefined ? undefined : JSON.stringify(body),
      status,
      response: JSON.stringify(answer),
    });
  return {
    advance: async (by: string | undefined) => {
      const at = ctx.clock.nowMs();
      const r = await ctx.control.advance({ by });
      record("advance", at, "/_sandbox/clock/advance", { by }, 200, { now: r.now });
      return r;
    },
    replay: (deliveryId: string) => {
      const at = ctx.clock.nowMs();
      const entry = ctx.journal.replay(deliveryId);
      record("request", at, `/_sandbox/webhooks/${encodeURIComponent(deliveryId)}/replay`, undefined, 201, { id: entry.id });
      return entry;
    },
    complete: (transactionId: string, input: CompleteInput) => {
      const at = ctx.clock.nowMs();
      const r = ctx.transactions.complete(transactionId, input);
      const path = `/_sandbox/transactions/${encodeURIComponent(transactionId)}/complete`;
      record(
        "request",
        at,
        path,
        { status: input.status, ...(input.declineCode === undefined ? {} : { declineCode: input.declineCode }) },
        200,
        r,
      );
      return r;
    },
  };
}

type Rendered = { toString(): string | Promise<string> };

/** When a request's work started: wall clock and this process's CPU time. */
interface Started {
  wall: number;
  cpu: NodeJS.CpuUsage;
}
const start = (): Started => ({ wall: performance.now(), cpu: process.cpuUsage() });

/**
 * The page with the dashboard's headers. Server-Timing gives the server's time on it (queries and
 * render): `app` in wall-clock ms, `cpu` in CPU ms of the process (unmoved by other work on the machine).
 */
async function sendPage(c: Context, status: 200 | 400 | 401 | 403 | 404, node: Rendered, started: Started) {
  const body = `<!doctype html>${await node.toString()}`;
  c.header("Cache-Control", "no-store");
  c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  c.header("X-Frame-Options", "DENY");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
  const cpu = process.cpuUsage(started.cpu);
  c.header(
    "Server-Timing",
    `app;dur=${(performance.now() - started.wall).toFixed(2)}, cpu;dur=${((cpu.user + cpu.system) / 1000).toFixed(2)}`,
  );
  return c.html(body, status);
}

function readFlash(c: Context): Flash | undefined {
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

function setFlash(c: Context, flash: Flash): void {
  const value = Buffer.from(JSON.stringify({ kind: flash.kind, text: flash.text.slice(0, 600) })).toString("base64url");
  setCookie(c, FLASH_COOKIE, value, { path: "/", httpOnly: true, sameSite: "Strict", maxAge: 60 });
}

/** The form fields of a POST as strings (files and repeated names: the first string). */
async function readForm(c: Context): Promise<Record<string, string | undefined>> {
  let body: Record<string, unknown> = {};
  try {
    body = await c.req.parseBody();
  } catch {
    // not a form: every field is missing
  }
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(body)) {
    const first = Array.isArray(v) ? v[0] : v;
    if (typeof first === "string") out[k] = first;
  }
  return out;
}

/** A query parameter, with "" (a filter's "All" option) as absent. */
const param = (c: Context, name: string): string | undefined => {
  const v = c.req.query(name);
  return v === undefined || v === "" ? undefined : v;
};

function oneOf<T extends string>(c: Context, name: string, allowed: readonly T[]): T | undefined {
  const v = param(c, name);
  if (v !== undefined && !allowed.includes(v as T)) throw invalidField(name);
  return v as T | undefined;
}

/** `before` / `after` / `limit` of a list; a bad one is a 400 naming it. */
function pageRequest(c: Context): PageRequest {
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

const merchantLabel = (m: MerchantRow): string => (m.name ? `${m.name} · ${m.mid}` : m.mid);

/** The pages a shopper would open for this transaction, while they are open (docs/dashboard.md). */
function shopperLinks(row: TransactionRow): Array<{ href: string; text: string }> {
  const id = encodeURIComponent(row.id);
  const links: Array<{ href: string; text: string }> = [];
  if (row.status === "CUSTOMER_VERIFICATION") links.push({ href: `/sandbox/3ds/${id}`, text: "Open the 3DS challenge page" });
  const facts = isTransactionKind(row.kind) ? KIND_FACTS[row.kind] : undefined;
  const payIn = facts?.paymentMethod === "apm" && facts.reportType === "PAYMENT";
  if (payIn && (row.status === "PENDING" || row.status === "NEW")) {
    const method = APM_METHODS.methods.find((m) => m.paymentMethod === row.paymentMethod);
    links.push(
      method?.actionType === "QR"
        ? { href: `/sandbox/qr/${id}`, text: "Open the QR page" }
        : { href: `/sandbox/hpp/${id}`, text: "Open the hosted payment page" },
    );
  }
  return links;
}

const CAN_COMPLETE = new Set(["PROCESSING", "PENDING"]);

/** `GET /` for browsers and everything under `/dashboard/` (docs/dashboard.md). */
export function registerDashboard(app: OpenAPIHono<AppEnv>, ctx: DashboardDeps) {
  const repo = new DashboardRepo(ctx.db);
  const access = new DashboardAccess(ctx.config.adminToken, ctx.publicUrl);
  const actions = dashboardActions(ctx);

  // the path as this app routes it (a sandbox's without its base: its links get it back, src/http/base-path.ts)
  const here = (c: Context): string => `${c.req.path}${new URL(c.req.url).search}`;

  const frame = (c: Context, section: Frame["section"]): Frame => ({
    here: here(c),
    section,
    nowMs: ctx.clock.nowMs(),
    scale: ctx.clock.scale,
    flash: readFlash(c),
    loggedIn: access.guarded,
    eventsSince: ctx.events.newest,
    canFork: ctx.fork !== undefined,
  });

  const merchantOptions = (): { rows: MerchantRow[]; options: MerchantOption[] } => {
    const rows = repo.merchants();
    return { rows, options: rows.map((m) => ({ key: m.merchantKey, label: merchantLabel(m) })) };
  };

  /** A page handler whose bad input (a SandboxError 4xx) becomes an HTML page with that status. */
  const htmlPage = (section: Frame["section"], build: (c: Context, f: Frame) => Rendered) => async (c: Context) => {
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

  // Every dashboard request: POSTs from our own origin only (CSRF), then the admin session.
  const guard: MiddlewareHandler<AppEnv> = async (c, next) => {
    const t0 = start();
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
    return c.redirect(`/dashboard/login?next=${encodeURIComponent(here(c))}`, 303);
  };
  app.use("/dashboard/*", guard);

  app.get(
    "/",
    guard,
    htmlPage("transactions", (c, f) => {
      const { rows, options } = merchantOptions();
      const merchant = oneOf(
        c,
        "merchant",
        rows.map((m) => m.merchantKey),
      );
      const filter = {
        merchant,
        kind: oneOf(c, "kind", TRANSACTION_KINDS),
        status: oneOf(c, "status", TRANSACTION_STATUSES),
        subscription: param(c, "subscription"),
      };
      if (filter.subscription !== undefined && filter.subscription.length > 100) throw invalidField("subscription");
      const req = pageRequest(c);
      return (
        <TransactionListPage
          frame={f}
          filter={filter}
          limit={req.limit}
          merchants={options}
          page={repo.transactions(filter, req)}
          sandboxes={ctx.sandboxList?.()}
        />
      );
    }),
  );

  app.get(
    "/dashboard/transactions/:id",
    htmlPage("transactions", (c, f) => {
      const id = c.req.param("id") ?? "";
      const row = repo.transaction(id);
      if (!row) throw notFound(`Transaction not found: ${id}`);
      const merchant = repo.merchants().find((m) => m.merchantKey === row.merchantKey);
      const deliveries = repo.deliveries(id);
      const attempts = repo.attempts(deliveries.map((d) => d.id));
      const children = repo.children(id);
      return (
        <TransactionPage
          frame={f}
          row={row}
          merchant={merchant ? merchantLabel(merchant) : row.merchantKey}
          linked={children}
          deliveries={deliveries.map((d) => ({ row: d, attempts: attempts.filter((a) => a.deliveryId === d.id) }))}
          timeline={buildTimeline(row, deliveries, children)}
          shopperLinks={shopperLinks(row)}
          canComplete={CAN_COMPLETE.has(row.status)}
        />
      );
    }),
  );

  app.get(
    "/dashboard/subscriptions",
    htmlPage("subscriptions", (c, f) => {
      const { rows, options } = merchantOptions();
      const filter = {
        merchant: oneOf(
          c,
          "merchant",
          rows.map((m) => m.merchantKey),
        ),
        status: oneOf(c, "status", SUBSCRIPTION_STATUSES),
      };
      const req = pageRequest(c);
      return (
        <SubscriptionListPage
          frame={f}
          filter={filter}
          limit={req.limit}
          merchants={options}
          page={repo.subscriptions(filter, req)}
        />
      );
    }),
  );

  app.get(
    "/dashboard/merchants",
    htmlPage("merchants", (_c, f) => <MerchantsPage frame={f} merchants={repo.merchants()} scenarios={repo.scenarios()} />),
  );

  app.post("/dashboard/clock/advance", async (c) => {
    const form = await readForm(c);
    return act(c, localPath(form.back), async () => {
      const by = form.by?.trim();
      if (!by) throw missingField("by");
      const r = await actions.advance(by);
      return `Clock advanced by ${by} to ${r.now}: ${r.ran.ticks} scheduler ticks, ${r.ran.charges} charges, ${r.ran.deliveries} webhook attempts.`;
    });
  });

  app.post("/dashboard/webhooks/:id/replay", async (c) => {
    const id = c.req.param("id") ?? "";
    const form = await readForm(c);
    return act(c, localPath(form.back), () => {
      const entry = actions.replay(id);
      return `Webhook ${id} replayed as ${entry.id} (sent now).`;
    });
  });

  app.post("/dashboard/transactions/:id/complete", async (c) => {
    const id = c.req.param("id") ?? "";
    const form = await readForm(c);
    return act(c, localPath(form.back, `/dashboard/transactions/${encodeURIComponent(id)}`), () => {
      const status = form.status;
      if (!status) throw missingField("status");
      if (status !== "SUCCEED" && status !== "FAILED") throw invalidField("status");
      let declineCode: number | undefined;
      if (status === "FAILED" && form.declineCode) {
        declineCode = Number(form.declineCode);
        if (!DECLINE_CODES.some((d) => String(d.code) === form.declineCode)) throw invalidField("declineCode");
      }
      const r = actions.complete(id, { status, declineCode });
      return `Transaction ${r.transactionId} completed: ${r.transactionStatus}${r.declineCode !== null ? ` (declineCode ${r.declineCode})` : ""}.`;
    });
  });

  // the session as a steps file to download (GET /_sandbox/recording behind the dashboard's session)
  app.get("/dashboard/recording", (c) => {
    c.header("Content-Disposition", 'attachment; filename="recording.yaml"');
    c.header("Cache-Control", "no-store");
    return c.body(recordingYaml(recordingFile(ctx)), 200, { "content-type": "application/yaml; charset=utf-8" });
  });

  // the sandbox's whole state as a file (GET /_sandbox/snapshot behind the dashboard's session, docs/snapshots.md)
  app.get("/dashboard/snapshot", (c) => {
    const { state, meta, migrations } = snapshotOf(ctx);
    const stamp = toIso(state.nowMs).replace(/[:.]/g, "-");
    c.header("Content-Disposition", `attachment; filename="${meta.source}-${stamp}.paysandbox"`);
    c.header("Cache-Control", "no-store");
    return c.body(new Uint8Array(snapshotFile(state, meta, migrations)), 200, { "content-type": SNAPSHOT_TYPE });
  });

  // Fork: a new sandbox, a copy of this one now (docs/snapshots.md); the browser lands on the copy's
  // dashboard, at the path of its baseUrl on the host the browser used (the public URL may name another)
  app.post("/dashboard/fork", async (c) => {
    const form = await readForm(c);
    const fork = ctx.fork;
    if (!fork) return act(c, localPath(form.back), () => Promise.reject(notFound("Fork: this sandbox is not part of a server")));
    let copy: { id: string; baseUrl: string };
    try {
      copy = await fork();
    } catch (err) {
      return act(c, localPath(form.back), () => Promise.reject(err));
    }
    setFlash(c, {
      kind: "ok",
      text: `Forked ${ctx.lineage.source} as ${copy.id}: this is the copy, its clock at the source's now.`,
    });
    return c.redirect(new URL(`${new URL(copy.baseUrl).pathname}/`, c.req.url).href, 303);
  });

  // the pages' live updates: the stream of /_sandbox/events, behind the dashboard's session (an
  // EventSource cannot send the admin token)
  app.get("/dashboard/events", (c) => {
    const query = EventsQuerySchema.safeParse(c.req.query());
    if (!query.success) throw invalidField(String(query.error.issues[0]?.path[0] ?? "query"));
    return eventStream(c, ctx.events, query.data, c.req.header("last-event-id"));
  });

  app.get("/dashboard/login", async (c) => {
    const next = localPath(c.req.query("next"));
    if (!access.guarded || access.admits(c)) return c.redirect(next, 303);
    return sendPage(c, 200, <LoginPage next={next} />, start());
  });

  app.post("/dashboard/login", async (c) => {
    const t0 = start();
    const form = await readForm(c);
    const next = localPath(form.next);
    if (!access.guarded) return c.redirect(next, 303);
    if (access.logIn(c, form.token ?? "")) return c.redirect(next, 303);
    return sendPage(c, 401, <LoginPage next={next} error="Wrong admin token." />, t0);
  });

  app.post("/dashboard/logout", (c) => {
    access.logOut(c);
    return c.redirect(access.guarded ? "/dashboard/login" : "/", 303);
  });

  // a bookmark of the old JSON index, or a typo under /dashboard, lands somewhere useful
  app.get("/dashboard", (c) => c.redirect("/", 303));
}
