/**
 * A recording as a steps file (docs/recording.md): the recorded calls, the webhook deliveries
 * and the loaded scenarios of a sandbox, turned into a scenario document whose `steps` replay that
 * session on a fresh sandbox (`paysandbox run`). Pure: the route reads the rows, this writes the file.
 *
 * How a session becomes steps:
 * - each call is a step: a gateway or control-plane call a `request` (its body as recorded, its
 *   answer's status and `transactionStatus`/`declineCode` as `expect`); a clock move an `advance`;
 *   a shopper page post a `threeDS`, `hpp` or `qr` step;
 * - ids that came from an earlier answer (`tx_…`, `tok_…`, `sub_…`, a delivery's `wh_…`, and a
 *   `requestId` the answer echoed) become `${name.path}` references to that answer, which is saved
 *   under a short name (`payment1`); any other `requestId` becomes `${uuid}`, an APM `checksum`
 *   `${checksum}`, a `callbackUrl` the runner's own receiver `${callbackUrl}`;
 * - a card number, kept as its mask, becomes the test card with that mask (CVV "123"); a mask that
 *   is no test card stays a mask, and the step says so in a comment;
 * - each webhook delivery becomes a `webhook` expectation after the call that caused it (the
 *   deliveries up to the call's `webhooksUpTo`); one that time caused between calls (a refund that
 *   settled, a challenge that timed out) comes after an `advance` over the time that had passed;
 * - where the session's clock ran ahead of what the steps move (a person thinking between calls),
 *   an `advance` over the gap keeps the replay's clock in step, when the gap is a minute or more.
 */
import { ID_PREFIXES } from "../platform/ids.js";
import type { Scenario } from "../scenarios/scenario.schema.js";
import { isPageStep, PAGE_OUTCOMES, PAGE_STEPS } from "../scenarios/steps.schema.js";
import type { RecordedCall, RecordedDelivery } from "./recorder.js";
import { Builder, isObject } from "./step-drafts.js";

export interface ExportInput {
  /** The file's `name`. */
  name: string;
  /** Where it was recorded, for the header comment. */
  source: string;
  calls: RecordedCall[];
  deliveries: RecordedDelivery[];
  /** The loaded scenarios, in load order: their merchants, rates, cards and rules head the file. */
  scenarios: Scenario[];
  /** Every test card number the sandbox knows (built-in and the scenarios'). */
  testCards: string[];
  /** The built-in merchant's key: the merchant a file without merchants acts as. */
  builtinMerchantKey: string;
}

/** A step of the file, with what the YAML shows above it. */
export interface ExportedStep {
  step: Record<string, unknown>;
  comment?: string;
}

export interface ExportedFile {
  document: Record<string, unknown>;
  steps: ExportedStep[];
  header: string;
}

/** Below this gap between calls (virtual ms), the replay's own pace is close enough. */
const GAP_MS = 60_000;
const DELIVERY_ID = new RegExp(`\\b${ID_PREFIXES.webhook}_[0-9A-Za-z]{6,40}\\b`, "g");

/** The readable name and the saved-body name of a call, by its method and route. */
const ROUTES: Array<{ method: string; path: RegExp; name: string; save: string }> = [
  { method: "POST", path: /^\/payments\/card$/, name: "card payment", save: "payment" },
  { method: "POST", path: /^\/payments\/card\/tokenize$/, name: "tokenize a card", save: "token" },
  { method: "POST", path: /^\/payments\/card\/charge$/, name: "one-click charge", save: "charge" },
  { method: "POST", path: /^\/payments\/card\/recurring$/, name: "create a subscription", save: "subscription" },
  { method: "GET", path: /^\/payments\/card\/recurring\/[^/]+$/, name: "read the subscription", save: "subscription" },
  { method: "PUT", path: /^\/payments\/card\/recurring\/[^/]+$/, name: "change the subscription", save: "subscription" },
  { method: "DELETE", path: /^\/payments\/card\/recurring\/[^/]+$/, name: "cancel the subscription", save: "subscription" },
  { method: "GET", path: /^\/payments\/card\/(status|info)\//, name: "card payment $1", save: "payment" },
  { method: "POST", path: /^\/refunds\/card$/, name: "refund", save: "refund" },
  { method: "GET", path: /^\/refunds\/card\/(status|info)\//, name: "refund $1", save: "refund" },
  { method: "POST", path: /^\/payouts\/card$/, name: "card payout", save: "payout" },
  { method: "GET", path: /^\/payouts\/card\/(status|info)\//, name: "card payout $1", save: "payout" },
  { method: "POST", path: /^\/payments\/apm$/, name: "APM pay-in", save: "apm" },
  { method: "GET", path: /^\/payments\/apm\/(status|info)\//, name: "APM pay-in $1", save: "apm" },
  { method: "POST", path: /^\/payouts\/apm$/, name: "APM payout", save: "apmPayout" },
  { method: "GET", path: /^\/payouts\/apm\/(status|info)\//, name: "APM payout $1", save: "apmPayout" },
  { method: "POST", path: /^\/wallet-pay\/merchant-session/, name: "wallet merchant session", save: "session" },
  { method: "POST", path: /^\/report-generator\/s2s$/, name: "transaction report", save: "report" },
  { method: "POST", path: /^\/_sandbox\/transactions\/[^/]+\/complete$/, name: "complete the transaction", save: "completed" },
  { method: "GET", path: /^\/_sandbox\/webhooks$/, name: "read the webhook journal", save: "journal" },
  { method: "GET", path: /^\/_sandbox\/webhooks\/[^/]+$/, name: "read a webhook delivery", save: "delivery" },
  { method: "POST", path: /^\/_sandbox\/webhooks\/[^/]+\/replay$/, name: "replay a webhook", save: "replay" },
];

const GATEWAY_PREFIX = /^\/(api\/)?v1(?=\/)/;

function routeOf(method: string, path: string): { name: string; save: string } {
  const bare = (path.split("?")[0] ?? "").replace(GATEWAY_PREFIX, "");
  for (const r of ROUTES) {
    const m = r.method === method ? r.path.exec(bare) : null;
    if (m) return { name: r.name.replace("$1", m[1] ?? ""), save: r.save };
  }
  return { name: `${method} ${bare}`, save: "call" };
}

/** An ISO 8601 duration of `ms` (days, hours, minutes, seconds with their fraction). */
export function durationOf(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  const time = `${hours ? `${hours}H` : ""}${minutes ? `${minutes}M` : ""}${seconds ? `${seconds}S` : ""}`;
  if (!days && !time) return "PT0S";
  return `P${days ? `${days}D` : ""}${time ? `T${time}` : ""}`;
}

function parse(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `${uuid}`, `${checksum}`, `${callbackUrl}`: what the runner fills in. */
/** What a webhook step expects of a delivery's body: its status (and decline code). */
function expectedOf(body: unknown): Record<string, unknown> | undefined {
  if (!isObject(body)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of ["transactionStatus", "declineCode"]) {
    if (body[key] !== undefined && !(key === "declineCode" && body[key] === null)) out[key] = body[key];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function exportSteps(input: ExportInput): ExportedFile {
  const session = new SessionSteps(input);
  for (const call of input.calls) session.call(call);
  session.end();
  return session.file();
}

/** A session turned into steps, a call at a time, with the deliveries each caused after it. */
class SessionSteps {
  private readonly b: Builder;
  private readonly defaultMerchant: string;
  private readonly deliveries: RecordedDelivery[];
  private nextDelivery = 0;
  private readonly startTime: number | undefined;
  /** Where the replay's clock is, as far as the steps so far moved it. */
  private replayNow: number;
  /** The newest delivery seq of the calls so far. */
  private lastUpTo = 0;
  /** Page posts no step can make (an `outcome` that is none of the page's buttons), for the header. */
  private readonly leftOut: string[] = [];

  constructor(private readonly input: ExportInput) {
    this.b = new Builder(input.testCards);
    const merchants = input.scenarios.flatMap((s) => s.merchants);
    this.defaultMerchant = merchants[0]?.merchantKey ?? input.builtinMerchantKey;
    this.deliveries = [...input.deliveries].sort((x, y) => x.seq - y.seq);
    this.startTime = input.calls[0]?.at ?? this.deliveries[0]?.createdAt;
    this.replayNow = this.startTime ?? 0;
  }

  /** One recorded call as its step, after what time caused before it, followed by the deliveries it caused. */
  call(call: RecordedCall): void {
    this.deliveriesBefore(call.webhooksUpTo, call.at);
    if (call.at - this.replayNow >= GAP_MS) this.advance(call.at - this.replayNow, "time passed in the session");
    const body = parse(call.body);
    const answer = parse(call.response);
    if (call.kind === "advance" && call.status === 200 && isObject(answer) && typeof answer.now === "string") {
      this.advanceStep(call, body, answer.now);
    } else if (isPageStep(call.kind) && isObject(body)) {
      this.pageStep(call, call.kind, body);
    } else {
      this.requestStep(call, body, answer);
    }
    for (; this.nextDelivery < this.deliveries.length; this.nextDelivery++) {
      const d = this.deliveries[this.nextDelivery] as RecordedDelivery;
      if (d.seq > call.webhooksUpTo) break;
      this.webhookStep(d);
    }
    this.lastUpTo = call.webhooksUpTo;
  }

  /** After the last call: the deliveries time caused since, after an advance over that time. */
  end(): void {
    const rest = this.deliveries.slice(this.nextDelivery);
    if (rest.length > 0) {
      this.advance(Math.max(...rest.map((d) => d.createdAt)) - this.replayNow, "time passed in the session");
      for (const d of rest) this.webhookStep(d);
    }
  }

  /** The steps file: the merged scenarios, the steps (with their notes as comments) and the header comment. */
  file(): ExportedFile {
    const { input, b } = this;
    const steps: ExportedStep[] = b.drafts.map((d) => {
      const { name, ...rest } = d.fields;
      const step = { name, ...rest, ...(d.save ? { save: d.save } : {}) };
      return d.notes.length > 0 ? { step, comment: [...new Set(d.notes)].join("\n") } : { step };
    });
    const scenario = mergeScenarios(input.scenarios);
    const document: Record<string, unknown> = {
      name: input.name,
      description: `A session recorded in ${input.source}: ${input.calls.length} calls`,
      ...(this.startTime === undefined ? {} : { startTime: new Date(this.startTime).toISOString() }),
      ...scenario,
      steps: steps.map((s) => s.step),
    };
    const header = [
      `Recorded by paysandbox in ${input.source}: ${input.calls.length} calls, ${this.deliveries.length} webhook deliveries.`,
      "Replay it on a fresh sandbox: paysandbox run THIS_FILE [--target http://localhost:8080]",
      ...(b.unplaced.length > 0
        ? [`Not expected (no earlier answer names them): the deliveries of ${[...new Set(b.unplaced)].join(", ")}`]
        : []),
      ...(this.leftOut.length > 0
        ? [`Left out (a page step presses the page's success or failure button only): ${this.leftOut.join(", ")}`]
        : []),
      ...(input.scenarios.length > 1
        ? [`The merchants, rates, cards and rules of ${input.scenarios.length} loaded scenarios, merged.`]
        : []),
    ].join("\n");
    return { document, steps, header };
  }

  private advance(ms: number, why: string): void {
    if (ms <= 0) return;
    const by = durationOf(ms);
    this.b.add({ name: this.b.name(`advance ${by} (${why})`), advance: by }, "advance");
    this.replayNow += ms;
  }

  /** A clock advance of the session: an `advance` by what it asked (or what it moved). */
  private advanceStep(call: RecordedCall, body: unknown, now: string): void {
    const moved = Date.parse(now) - call.at;
    const by = isObject(body) && typeof body.by === "string" ? body.by : durationOf(moved);
    this.b.add({ name: this.b.name(`advance ${by}`), advance: by }, "advance");
    this.replayNow += moved;
  }

  /** A shopper page's post: a `threeDS`, `hpp` or `qr` step. */
  private pageStep(call: RecordedCall, kind: keyof typeof PAGE_STEPS, body: Record<string, unknown>): void {
    const b = this.b;
    const id = decodeURIComponent(call.path.split("?")[0]?.split("/").pop() ?? "");
    const { outcome, ...fields } = body as Record<string, string>;
    if (!(PAGE_OUTCOMES as readonly (string | undefined)[]).includes(outcome)) {
      this.leftOut.push(`the ${PAGE_STEPS[kind].label} post of ${id} with outcome=${outcome ?? "(none)"} (${call.status})`);
      return;
    }
    const draft = b.add({}, "page");
    const spec: Record<string, unknown> = { transactionId: b.refText(id, draft), outcome };
    if (kind === "hpp" && Object.keys(fields).length > 0) spec.fields = fields;
    draft.fields = {
      name: b.name(`${PAGE_STEPS[kind].step}: ${outcome}`),
      [kind]: spec,
      ...(call.status >= 400 ? { expect: { status: call.status } } : {}),
    };
  }

  /** A gateway or control-plane call: a `request` with its body and what its answer is expected to say. */
  private requestStep(call: RecordedCall, body: unknown, answer: unknown): void {
    const b = this.b;
    this.lookUpDeliveries(call);
    const route = routeOf(call.method, call.path);
    const draft = b.add({}, route.save);
    const status = isObject(answer) ? answer.transactionStatus : undefined;
    const outcome = typeof status === "string" ? status : String(call.status);
    const expectBody = call.status < 400 ? expectedOf(answer) : undefined;
    const as = call.merchantKey && call.merchantKey !== this.defaultMerchant ? { as: call.merchantKey } : {};
    draft.fields = {
      name: b.name(`${route.name} → ${outcome}`),
      ...as,
      request: `${call.method} ${b.refText(call.path, draft)}`,
      ...(body === undefined ? {} : { body: b.body(body, draft) }),
      expect: { status: call.status, ...(expectBody ? { body: expectBody } : {}) },
    };
    b.harvest(answer, draft);
  }

  /** A delivery as a `webhook` expectation on its transaction (or subscription), if an earlier answer named it. */
  private webhookStep(d: RecordedDelivery): void {
    const b = this.b;
    const body = parse(d.body);
    const target =
      d.transactionId && b.knows(d.transactionId)
        ? { transactionId: d.transactionId }
        : d.subscriptionId && b.knows(d.subscriptionId)
          ? { subscriptionId: d.subscriptionId }
          : undefined;
    if (!target) {
      b.unplaced.push(d.transactionId ?? d.subscriptionId ?? `delivery ${d.seq}`);
      return;
    }
    const draft = b.add({}, "webhook");
    const expected = expectedOf(body);
    const status = isObject(body) ? body.transactionStatus : undefined;
    const filter = b.body(target, draft) as Record<string, string>;
    const of = /^\$\{([^.}]+)/.exec(Object.values(filter)[0] ?? "")?.[1];
    draft.fields = {
      name: b.name(`webhook of ${of}${typeof status === "string" ? `: ${status}` : ""}`),
      webhook: { ...filter, ...(expected ? { body: expected } : {}) },
    };
    b.harvest(body, draft);
  }

  /** The deliveries up to `upTo` that time caused before `at`, after an advance over that time. */
  private deliveriesBefore(upTo: number, at: number): void {
    const due: RecordedDelivery[] = [];
    while (this.nextDelivery < this.deliveries.length) {
      const d = this.deliveries[this.nextDelivery] as RecordedDelivery;
      if (d.seq > upTo || d.createdAt >= at) break;
      due.push(d);
      this.nextDelivery++;
    }
    if (due.length > 0) this.advance(Math.max(...due.map((d) => d.createdAt)) - this.replayNow, "time passed in the session");
    for (const d of due) this.webhookStep(d);
  }

  /**
   * A call naming a delivery no answer gave (a replay of one seen on the dashboard or in the
   * journal): a step reads its transaction's journal first, and the call refers to the delivery's
   * place in it (newest first, as the journal answers).
   */
  private lookUpDeliveries(call: RecordedCall): void {
    const b = this.b;
    for (const [id] of call.path.matchAll(DELIVERY_ID)) {
      const d = this.deliveries.find((x) => x.id === id);
      if (b.knows(id) || !d?.transactionId || !b.knows(d.transactionId)) continue;
      const journal = this.deliveries
        .filter((x) => x.transactionId === d.transactionId && (x.seq <= this.lastUpTo || x.createdAt < call.at))
        .sort((x, y) => y.seq - x.seq);
      const index = journal.findIndex((x) => x.id === id);
      if (index < 0) continue;
      const draft = b.add({}, "journal");
      draft.fields = {
        name: b.name("find the delivery in the webhook journal"),
        request: `GET /_sandbox/webhooks?transactionId=${b.refText(d.transactionId, draft)}&limit=1000`,
        expect: { status: 200 },
      };
      b.learn(id, draft, `${index}.id`);
    }
  }
}

/** The loaded scenarios' merchants, rates, cards and rules as one file's (a later load wins on a rate). */
function mergeScenarios(scenarios: Scenario[]): Record<string, unknown> {
  const merchants = new Map<string, Scenario["merchants"][number]>();
  const fxRates: Record<string, number> = {};
  const cards: Scenario["cards"] = [];
  const rules: Scenario["rules"] = [];
  for (const s of scenarios) {
    for (const m of s.merchants) merchants.set(m.merchantKey, m);
    Object.assign(fxRates, s.fxRates);
    cards.push(...s.cards);
    rules.push(...s.rules);
  }
  return {
    ...(merchants.size > 0 ? { merchants: [...merchants.values()] } : {}),
    ...(Object.keys(fxRates).length > 0 ? { fxRates } : {}),
    ...(cards.length > 0 ? { cards } : {}),
    ...(rules.length > 0 ? { rules } : {}),
  };
}
