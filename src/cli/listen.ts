/**
 * `paysandbox listen [--target URL] [--sandbox ID] [--types LIST] [--forward-to URL] [--json]
 * [--since ID] [--count N] [--admin-token T]` (docs/events.md): prints a sandbox's live events as they
 * happen, one line each (or one JSON object per line), from `GET {base}/_sandbox/events`. When the
 * connection drops (a network blip, a restart of the server) it reconnects by itself with the
 * `Last-Event-ID` it last saw, so nothing is missed or printed twice. With `--forward-to`, each
 * webhook delivery (on its first attempt) is also POSTed to that URL, with the exact body and
 * headers the sandbox sent (read from the journal, `GET {base}/_sandbox/webhooks/{id}`, signature
 * included) and the query it added (`paymentMethod`, `apmType`), and the answer is printed: for an
 * app whose callbackUrl the sandbox cannot reach.
 *
 * Until it has connected once, it tries CONNECT_TRIES times and then gives up saying it could not
 * connect (nothing listens at --target, a wrong port); once connected, a drop is retried forever.
 *
 * Exit status: 0 once `--count` events were printed; 1 when the server refuses the stream (a wrong
 * admin token, an unknown sandbox) or cannot be reached at all; 2 for a bad flag. Otherwise it runs
 * until interrupted.
 */
import { EVENT_TYPES } from "../events/event-log.js";
import { USAGE_ERROR } from "./run.js";
import { type ServerFlags, serverConnection } from "./server-flags.js";
import { type SseEvent, SseParser } from "./sse.js";

export interface ListenOptions extends ServerFlags {
  types?: string;
  forwardTo?: string;
  json?: boolean;
  since?: string;
  count?: string;
}

export interface ListenIo {
  out(line: string): void;
  err(line: string): void;
  /** Ends the command early (tests); the command resolves with 0. */
  signal?: AbortSignal;
  /** Real ms to wait before a reconnect (the first; doubled up to 16 times that). */
  retryMs?: number;
}

/** Without a byte (events or keep-alive comments, every 15 s) for this long, the connection is taken as dead. */
const SILENCE_MS = 45_000;
const FORWARD_TIMEOUT_MS = 10_000;
/** Tries to reach a server never reached yet before giving up (waits 0.5, 1, 2 and 4 s between them). */
export const CONNECT_TRIES = 5;

const defaultIo: ListenIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

export async function listenCommand(opts: ListenOptions, io: ListenIo = defaultIo): Promise<number> {
  const usage = (message: string) => {
    io.err(`paysandbox listen: ${message}`);
    return USAGE_ERROR;
  };
  const server = serverConnection(opts);
  if ("error" in server) return usage(server.error);
  const { base, auth } = server;
  const types = opts.types?.split(",").map((t) => t.trim());
  const unknown = types?.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined) return usage(`--types: ${JSON.stringify(unknown)} is not one of ${EVENT_TYPES.join(", ")}`);
  if (opts.forwardTo !== undefined && !/^https?:\/\/[^/]+/.test(opts.forwardTo)) {
    return usage(`--forward-to: expected an http(s) URL, got ${JSON.stringify(opts.forwardTo)}`);
  }
  if (opts.since !== undefined && !/^\d{1,15}$/.test(opts.since))
    return usage(`--since: expected an event id, got ${JSON.stringify(opts.since)}`);
  if (opts.count !== undefined && !/^[1-9]\d{0,8}$/.test(opts.count)) {
    return usage(`--count: expected a whole number from 1, got ${JSON.stringify(opts.count)}`);
  }
  const count = opts.count === undefined ? Number.POSITIVE_INFINITY : Number(opts.count);
  // webhook events are needed to forward, whatever --types prints
  const query = new URLSearchParams();
  if (types && opts.forwardTo && !types.includes("webhook")) query.set("types", [...types, "webhook"].join(","));
  else if (types) query.set("types", types.join(","));
  const printed = types ? new Set(types) : undefined;

  let lastId = opts.since;
  let seen = 0;
  let failures = 0;
  let connected = false;
  const retryMs = io.retryMs ?? 500;
  const forwarder = opts.forwardTo ? new Forwarder({ base, to: opts.forwardTo, auth, io, json: opts.json === true }) : undefined;

  for (;;) {
    if (io.signal?.aborted) return 0;
    const url = `${base}/_sandbox/events${query.size > 0 ? `?${query}` : ""}`;
    const headers: Record<string, string> = { Accept: "text/event-stream", ...auth };
    if (lastId !== undefined) headers["Last-Event-ID"] = lastId;
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    io.signal?.addEventListener("abort", onAbort, { once: true });
    let watchdog: NodeJS.Timeout | undefined;
    const alive = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => ac.abort(new Error(`no data for ${SILENCE_MS / 1000} s`)), SILENCE_MS);
    };
    let why = "";
    try {
      alive();
      const res = await fetch(url, { headers, signal: ac.signal });
      if (res.status === 410) {
        const body = (await res.json().catch(() => ({}))) as { oldestId?: number; errorMessage?: string };
        const oldest = Number(body.oldestId);
        io.err(
          `paysandbox listen: events after ${lastId} were pruned by the server's retention; resuming from the oldest kept (${oldest})`,
        );
        lastId = String(Math.max(0, oldest - 1));
        continue;
      }
      if (res.status !== 200 || !res.body) {
        const text = await res.text().catch(() => "");
        if (res.status >= 500 || res.status === 429) throw new Error(`${res.status} ${text.slice(0, 200)}`);
        io.err(`paysandbox listen: ${url}: ${res.status} ${text.slice(0, 500)}`);
        return 1;
      }
      if (failures > 0) io.err(`paysandbox listen: connected again to ${base}, resuming after event ${lastId ?? "(none)"}`);
      else io.err(`paysandbox listen: listening to ${base}${lastId === undefined ? " (new events)" : ` after event ${lastId}`}`);
      failures = 0;
      connected = true;
      const queue: SseEvent[] = [];
      const parser = new SseParser((e) => queue.push(e));
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        alive();
        parser.feed(decoder.decode(value, { stream: true }));
        for (const e of queue.splice(0)) {
          lastId = e.id;
          const data = parse(e.data);
          if (!printed || printed.has(e.event)) {
            io.out(opts.json ? JSON.stringify({ id: Number(e.id), event: e.event, data }) : prettyLine(e, data));
            seen++;
          }
          if (forwarder && e.event === "webhook") await forwarder.forward(data);
          if (seen >= count) {
            await reader.cancel().catch(() => undefined);
            return 0;
          }
        }
      }
      why = "the server ended the stream";
    } catch (err) {
      if (io.signal?.aborted) return 0;
      why = connected ? `connection lost (${describe(err)})` : `could not connect to ${base} (${describe(err)})`;
    } finally {
      clearTimeout(watchdog);
      io.signal?.removeEventListener("abort", onAbort);
    }
    failures++;
    if (!connected && failures >= CONNECT_TRIES) {
      io.err(`paysandbox listen: ${why} in ${CONNECT_TRIES} tries: is the server running there? (--target)`);
      return 1;
    }
    const wait = Math.min(retryMs * 2 ** Math.min(failures - 1, 4), retryMs * 16);
    const next = `${(wait / 1000).toFixed(1)} s`;
    io.err(
      connected
        ? `paysandbox listen: ${why}; reconnecting in ${next}`
        : `paysandbox listen: ${why}; trying again in ${next} (try ${failures} of ${CONNECT_TRIES})`,
    );
    await sleep(wait, io.signal);
  }
}

function parse(data: string): Record<string, unknown> {
  try {
    return JSON.parse(data) as Record<string, unknown>;
  } catch {
    return { data };
  }
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

const short = (iso: unknown) => (typeof iso === "string" ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "");

/** One line per event: id, virtual time, type, then what matters of it. */
export function prettyLine(e: SseEvent, d: Record<string, unknown>): string {
  const head = `#${e.id}`.padEnd(7);
  switch (e.event) {
    case "transaction": {
      const decline = d.declineCode === null || d.declineCode === undefined ? "" : ` declineCode ${d.declineCode}`;
      return `${head} ${short(d.at)}  transaction  ${String(d.status).padEnd(21)} ${d.transactionId} ${d.kind} ${d.merchant}${decline}`;
    }
    case "webhook": {
      const answer = d.httpStatus !== undefined ? `→ ${d.httpStatus}` : `→ ${d.error}`;
      const chaos = d.chaos ? ` (chaos: ${d.chaos})` : "";
      return `${head} ${short(d.at)}  webhook      attempt ${d.attempt} ${answer}  ${d.deliveryId} ${d.transactionId ?? ""} ${d.url}${chaos}`;
    }
    case "clock":
      return `${head} ${short(d.now)}  clock        moved from ${short(d.from)}`;
    case "scenario":
      return `${head} ${"".padEnd(20)}  scenario     loaded ${d.name}`;
    case "reset":
      return `${head} ${"".padEnd(20)}  reset`;
    default:
      return `${head} ${e.event} ${e.data}`;
  }
}

interface Delivery {
  id: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** `--forward-to`: each delivery once (its first attempt), as the sandbox sent it. */
/** What a Forwarder takes: the sandbox's base URL, where to forward, the admin headers, its output and whether it prints JSON. */
interface ForwarderDeps {
  base: string;
  to: string;
  auth: Record<string, string>;
  io: ListenIo;
  json: boolean;
}

class Forwarder {
  private readonly base: string;
  private readonly to: string;
  private readonly auth: Record<string, string>;
  private readonly io: ListenIo;
  private readonly json: boolean;

  constructor(deps: ForwarderDeps) {
    ({ base: this.base, to: this.to, auth: this.auth, io: this.io, json: this.json } = deps);
  }

  async forward(d: Record<string, unknown>): Promise<void> {
    if (d.attempt !== 1 || typeof d.deliveryId !== "string") return;
    const id = d.deliveryId;
    let line: Record<string, unknown>;
    try {
      const res = await fetch(`${this.base}/_sandbox/webhooks/${encodeURIComponent(id)}`, { headers: this.auth });
      if (res.status !== 200) throw new Error(`the journal answered ${res.status} for ${id}`);
      const delivery = (await res.json()) as Delivery;
      const url = this.target(delivery.url);
      // the journal keeps the body as sent; parsed there, its JSON text is the same once written back
      const body = typeof delivery.body === "string" ? delivery.body : JSON.stringify(delivery.body);
      const answer = await fetch(url, {
        method: "POST",
        headers: { ...delivery.headers, "X-Sandbox-Attempt": "1" },
        body,
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
      const text = await answer.text();
      line = { deliveryId: id, url, status: answer.status, body: text.slice(0, 500) };
    } catch (err) {
      line = { deliveryId: id, url: this.to, error: describe(err) };
    }
    if (this.json) this.io.out(JSON.stringify({ forwarded: line }));
    else {
      const result = line.error !== undefined ? `failed: ${line.error}` : `${line.status} ${oneLine(String(line.body))}`;
      this.io.out(`        forwarded ${id} to ${line.url} → ${result}`);
    }
  }

  /** The --forward-to URL with the query the sandbox added to the callbackUrl (paymentMethod, apmType). */
  private target(sent: string): string {
    const u = new URL(this.to);
    try {
      for (const key of ["paymentMethod", "apmType"]) {
        const v = new URL(sent).searchParams.get(key);
        if (v !== null && !u.searchParams.has(key)) u.searchParams.set(key, v);
      }
    } catch {
      // a journal URL that does not parse: forward to the URL as given
    }
    return u.toString();
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 200);
