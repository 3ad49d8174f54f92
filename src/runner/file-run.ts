/**
 * One file's run of scenario steps (docs/run.md): its saved bodies,
 * its merchants' bearer tokens, and what each step kind does against the target. A failed step
 * throws a StepFailure carrying expected vs actual; run.ts turns it into the step's result.
 */
import { GATEWAY_PREFIXES, PUBLIC_GATEWAY_PATHS } from "../http/gateway.js";
import { tokenExpiry } from "../platform/bearer.js";
import { PAGE_STEPS, type PageStep, type Step } from "../scenarios/steps.schema.js";
import { readForm } from "./form.js";
import type { LoadedFile } from "./load.js";
import { type Mismatch, mismatch } from "./match.js";
import type { Receiver } from "./receiver.js";
import { fillChecksums, RefError, type RefScope, resolveRefs } from "./refs.js";
import type { Reply, Target } from "./target.js";

const RESPONSE_LIMIT = 400;

/** A response body for a human: compact JSON, or text without HTML tags, cut at RESPONSE_LIMIT. */
export function trimBody(text: string): string {
  let t = text;
  try {
    t = JSON.stringify(JSON.parse(text));
  } catch {
    if (/^\s*</.test(text)) t = text.replace(/<style[\s\S]*?<\/style>/gi, "").replace(/<[^>]+>/g, " ");
  }
  t = t.replace(/\s+/g, " ").trim();
  return t.length > RESPONSE_LIMIT ? `${t.slice(0, RESPONSE_LIMIT)}…` : t;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What a step does, for its line and its JUnit name when it has no `name`. */
export function describeStep(step: Step): string {
  if (step.request) return step.request;
  if (step.advance) return `advance ${step.advance}`;
  if (step.threeDS) return `threeDS ${step.threeDS.outcome} ${step.threeDS.transactionId}`;
  if (step.hpp) return `hpp ${step.hpp.outcome} ${step.hpp.transactionId}`;
  if (step.qr) return `qr ${step.qr.outcome} ${step.qr.transactionId}`;
  if (step.webhook) return `webhook ${step.webhook.transactionId ?? step.webhook.subscriptionId}`;
  return "step";
}

/** A failed step's outcome; thrown inside a step, caught by the loop. */
export class StepFailure extends Error {
  constructor(
    message: string,
    readonly details: { expected?: unknown; actual?: unknown; response?: string; summary?: string } = {},
  ) {
    super(message);
  }
}

const fromMismatch = (m: Mismatch, reply: Reply, summary: string) =>
  new StepFailure(`${m.path}: expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.actual) ?? "nothing"}`, {
    expected: m.expected,
    actual: m.actual,
    response: trimBody(reply.text),
    summary,
  });

/** One file's run: its target, its saved bodies and its merchants' bearer tokens. */
export class FileRun {
  private readonly saved = new Map<string, unknown>();
  private readonly tokens = new Map<string, { token: string; expMs: number }>();
  /** The target's virtual time as last asked; undefined after a clock jump, so the next token use asks again. */
  private knownNow: number | undefined;
  private readonly scope: RefScope;

  constructor(
    private readonly loaded: LoadedFile,
    private readonly target: Target,
    receiver: Receiver,
  ) {
    this.scope = { saved: this.saved, callbackUrl: () => receiver.current() };
  }

  private resolve<T>(value: T): T {
    try {
      return resolveRefs(value, this.scope) as T;
    } catch (err) {
      if (err instanceof RefError) throw new StepFailure(err.message);
      throw err;
    }
  }

  /** A bearer token for the merchant (POST /api/v1/auth), renewed once the virtual clock passes its expiry. */
  private async token(merchantKey: string, renew = false): Promise<string> {
    const cached = this.tokens.get(merchantKey);
    if (cached && !renew) {
      this.knownNow ??= await this.target.now();
      if (this.knownNow < cached.expMs - 60_000) return cached.token;
    }
    const secret = this.loaded.secrets.get(merchantKey) ?? "";
    const reply = await this.target.send("POST", "/api/v1/auth", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ merchantKey, merchantSecret: secret }),
    });
    const body = parseJson(reply.text) as { token?: unknown };
    if (reply.status !== 200 || typeof body?.token !== "string") {
      throw new StepFailure(`authentication as ${merchantKey} failed: POST /api/v1/auth answered ${reply.status}`, {
        response: trimBody(reply.text),
      });
    }
    this.tokens.set(merchantKey, { token: body.token, expMs: tokenExpiry(body.token) });
    return body.token;
  }

  async step(step: Step): Promise<string> {
    if (step.request) return this.request(step);
    if (step.advance) return this.advance(step.advance);
    if (step.threeDS) return this.page("threeDS", step);
    if (step.hpp) return this.page("hpp", step);
    if (step.qr) return this.page("qr", step);
    if (step.webhook) return this.webhook(step);
    throw new StepFailure("a step with nothing to do");
  }

  private async request(step: Step): Promise<string> {
    const [method = "GET", rawPath = "/"] = this.resolve(step.request ?? "").split(" ");
    const path = this.target.local(rawPath);
    const merchantKey = step.as ?? this.loaded.defaultMerchant;
    const secret = this.loaded.secrets.get(merchantKey) ?? "";
    const headers: Record<string, string> = { ...this.resolve(step.headers ?? {}) };
    const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
    let body: string | undefined;
    if (step.body !== undefined) {
      body = JSON.stringify(fillChecksums(this.resolve(step.body), secret));
      if (!has("content-type")) headers["content-type"] = "application/json";
    }
    const prefix = GATEWAY_PREFIXES.find((p) => path.startsWith(`${p}/`));
    const route = prefix ? (path.slice(prefix.length).split("?")[0] ?? "") : "";
    const addAuth = prefix !== undefined && !PUBLIC_GATEWAY_PATHS.has(route) && !has("authorization");
    if (route === "/report-generator/s2s" && !has("x-merchant-key")) {
      headers["x-merchant-key"] = merchantKey;
      headers["x-merchant-secret"] = secret;
    }
    if (addAuth) headers.authorization = await this.token(merchantKey);
    let reply = await this.target.send(method, path, { headers, body });
    if (addAuth && reply.status === 401) {
      // the clock moved past the token's expiry without a step saying so (a running target's own time)
      headers.authorization = await this.token(merchantKey, true);
      reply = await this.target.send(method, path, { headers, body });
    }
    const summary = `${method} ${path} → ${reply.status}`;
    const expect = this.resolve(step.expect ?? {});
    const actualBody = parseJson(reply.text);
    if (expect.status !== undefined && expect.status !== reply.status) {
      throw new StepFailure(`status: expected ${expect.status}, got ${reply.status}`, {
        expected: expect.status,
        actual: reply.status,
        response: trimBody(reply.text),
        summary,
      });
    }
    if (expect.status === undefined && reply.status >= 500) {
      throw new StepFailure(`status: ${reply.status} (a 5xx fails a step unless expect.status says so)`, {
        response: trimBody(reply.text),
        summary,
      });
    }
    if (expect.headers) {
      const actualHeaders = Object.fromEntries(Object.keys(expect.headers).map((h) => [h, reply.headers.get(h) ?? undefined]));
      const m = mismatch(expect.headers, actualHeaders, "headers");
      if (m) throw fromMismatch(m, reply, summary);
    }
    if (expect.body !== undefined) {
      const m = mismatch(expect.body, actualBody, "body");
      if (m) throw fromMismatch(m, reply, summary);
    }
    if (step.save) this.saved.set(step.save, actualBody);
    return summary;
  }

  private async advance(by: string): Promise<string> {
    const reply = await this.target.send("POST", "/_sandbox/clock/advance", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ by }),
    });
    this.knownNow = undefined;
    const body = parseJson(reply.text) as { now?: string };
    if (reply.status !== 200) {
      throw new StepFailure(`POST /_sandbox/clock/advance answered ${reply.status}`, { response: trimBody(reply.text) });
    }
    return `advance ${by} → ${body.now}`;
  }

  /**
   * threeDS / hpp / qr: what a shopper's browser does (docs/cards.md#3ds-challenge,
   * docs/apm.md#the-hosted-payment-page, docs/run.md#steps): GET the page, read its form, POST it
   * urlencoded to the form's action with the chosen `outcome` button (and, on the HPP, the fields
   * typed in). The page must be open and have that button, unless the step expects the post refused
   * (`expect.status` 400 or more): that is a post the page would not make now (a second press of a
   * page still on the screen, an unknown transaction, a button it lacks), which a recorded session
   * holds, so it is sent as given, to the form's action or the page's own address. Fields the page
   * does not ask for are sent too (the page ignores them, as it did for the session); a refused post
   * names them.
   */
  private async page(kind: PageStep, step: Step): Promise<string> {
    const spec = this.resolve(step[kind]);
    if (!spec) throw new StepFailure(`no ${kind}`);
    const { label, path } = PAGE_STEPS[kind];
    const wanted = step.expect?.status;
    const refusal = wanted !== undefined && wanted >= 400;
    const pagePath = `/sandbox/${path}/${encodeURIComponent(spec.transactionId)}`;
    const page = await this.target.send("GET", pagePath);
    const form = page.status === 200 ? readForm(page.text) : undefined;
    if (!refusal) {
      if (page.status !== 200) {
        throw new StepFailure(`the ${label} GET ${pagePath} answered ${page.status}`, {
          response: trimBody(page.text),
          summary: `GET ${pagePath} → ${page.status}`,
        });
      }
      if (!form) throw new StepFailure(`the ${label} ${pagePath} has no <form>`, { response: trimBody(page.text) });
      if (!form.outcomes.includes(spec.outcome)) {
        throw new StepFailure(
          `the ${label} has no outcome=${spec.outcome} button (it has: ${form.outcomes.join(", ") || "none"})`,
        );
      }
    }
    const fields = (kind === "hpp" ? (step.hpp?.fields ? this.resolve(step.hpp.fields) : {}) : {}) as Record<string, string>;
    const values = new URLSearchParams();
    for (const [name, value] of form?.inputs ?? []) values.set(name, fields[name] ?? value);
    for (const [name, value] of Object.entries(fields)) values.set(name, value);
    values.set("outcome", spec.outcome);
    const method = form?.method ?? "POST";
    const action = this.target.local(new URL(form?.action || pagePath, `http://page${pagePath}`).toString());
    const reply = await this.target.send(method, action, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: values.toString(),
    });
    const location = reply.headers.get("location");
    const summary = `${kind} ${spec.outcome}: ${method} ${action} → ${reply.status}${location ? ` ${location}` : ""}`;
    const ok = wanted === undefined ? reply.status >= 200 && reply.status < 400 : reply.status === wanted;
    if (!ok) {
      const unasked = form ? Object.keys(fields).filter((f) => !form.inputs.has(f)) : [];
      const asks = [...(form?.inputs.keys() ?? [])].join(", ") || "nothing";
      throw new StepFailure(
        `the ${label} form answered ${reply.status}${wanted === undefined ? "" : `, expected ${wanted}`}` +
          (unasked.length > 0 ? ` (the page has no field ${unasked.join(", ")}; it asks for: ${asks})` : ""),
        {
          expected: wanted ?? "2xx or 3xx",
          actual: reply.status,
          response: trimBody(reply.text),
          summary,
        },
      );
    }
    return summary;
  }

  /** Runs the due work, then looks for a matching delivery in the journal (docs/control-plane.md). */
  private async webhook(step: Step): Promise<string> {
    const spec = this.resolve(step.webhook);
    if (!spec) throw new StepFailure("no webhook");
    await this.target.runDue();
    const filter = spec.transactionId ? `transactionId=${spec.transactionId}` : `subscriptionId=${spec.subscriptionId}`;
    const query = spec.transactionId
      ? `transactionId=${encodeURIComponent(spec.transactionId)}`
      : `subscriptionId=${encodeURIComponent(spec.subscriptionId ?? "")}`;
    const reply = await this.target.send("GET", `/_sandbox/webhooks?${query}&limit=1000`);
    if (reply.status !== 200) {
      throw new StepFailure(`GET /_sandbox/webhooks answered ${reply.status}`, { response: trimBody(reply.text) });
    }
    const deliveries = parseJson(reply.text) as Array<{ id: string; status: string; body: unknown }>;
    const matches = (d: (typeof deliveries)[number]) =>
      (spec.delivery === undefined || d.status === spec.delivery) &&
      (spec.body === undefined || mismatch(spec.body, d.body, "body") === undefined);
    const found = deliveries.find(matches);
    const summary = `webhook ${filter}: ${deliveries.length} in the journal`;
    if (!found) {
      if (deliveries.length === 0) throw new StepFailure(`no delivery in the journal for ${filter}`, { summary });
      const newest = deliveries[0] as (typeof deliveries)[number];
      const m = spec.body === undefined ? undefined : mismatch(spec.body, newest.body, "body");
      throw new StepFailure(
        `none of the ${deliveries.length} deliveries for ${filter} matches${m ? ` (newest: ${m.path} is ${JSON.stringify(m.actual)})` : ""}` +
          (spec.delivery ? ` with delivery ${spec.delivery} (newest: ${newest.status})` : ""),
        {
          expected: m ? m.expected : spec.body,
          actual: m ? m.actual : newest.body,
          response: trimBody(JSON.stringify(deliveries.map((d) => ({ id: d.id, status: d.status, body: d.body })))),
          summary,
        },
      );
    }
    if (step.save) this.saved.set(step.save, found.body);
    return `${summary}, ${found.id} matches (${found.status})`;
  }
}
