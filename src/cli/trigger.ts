/**
 * `paysandbox trigger KIND [--target URL] [--sandbox ID|root] [--to URL] [--json] [--keep]
 * [--admin-token T]` (docs/webhooks.md#building-a-receiver): makes the real transaction of KIND
 * (trigger-kinds.ts) on a running server, so that its real, signed webhooks go to `--to`, and
 * prints what each delivery got (its status and every attempt's answer).
 *
 * Where: a fresh sandbox of the target by default (its own clock: a kind that needs time, a refund
 * settling or a subscription's next charge, moves that clock, never the user's), deleted after
 * unless `--keep`; `--sandbox sbx_…` an existing one, `--sandbox root` the root (their clocks move).
 * Without `--to`, the command is the merchant's callback itself: it listens on 127.0.0.1, checks each
 * webhook's X-Checksum with the merchant's secret and prints its body (the server must reach it).
 *
 * Exit status: 0 when every delivery was acknowledged (2xx); 1 when one was not, or the server could
 * not be reached or refused a call; 2 for a bad flag or an unknown kind.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { hmacBase64 } from "../platform/crypto.js";
import { BUILTIN_MERCHANT } from "../platform/fixtures.js";
import { type CallbackKind, SIGNED_FIELDS, signedMessage } from "../webhooks/signer.js";
import { USAGE_ERROR } from "./run.js";
import { type ServerFlags, serverConnection } from "./server-flags.js";
import { TRIGGER_KINDS, type TriggerApi, triggerKind } from "./trigger-kinds.js";

export interface TriggerOptions extends Omit<ServerFlags, "sandbox"> {
  sandbox?: string;
  to?: string;
  json?: boolean;
  keep?: boolean;
}

export interface TriggerIo {
  out(line: string): void;
  err(line: string): void;
}

const defaultIo: TriggerIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** A call the server refused or that could not be made: the command's exit 1, with what it said. */
class CallFailed extends Error {}

/** The kinds, one per line, for `--help`. */
export const kindsHelp = (): string =>
  `\nKinds (from the test cards, the APM methods and the callback kinds):\n${TRIGGER_KINDS.map((k) => `  ${k.name.padEnd(40)}${k.description}`).join("\n")}\n`;

interface Delivery {
  id: string;
  kind: string;
  url: string;
  status: string;
  eventStatus: string;
  attempts: Array<{ at: string; httpStatus: number | null; error: string | null }>;
}

/** A call's JSON answer (`{}` for an empty or non-JSON one); a 4xx or 5xx, or no answer, is a CallFailed. */
async function call(url: string, init: RequestInit) {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: "manual" });
  } catch (err) {
    throw new CallFailed(`cannot reach ${new URL(url).origin}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (res.status >= 400) {
    let message = text;
    try {
      message = (JSON.parse(text) as { errorMessage?: string }).errorMessage ?? text;
    } catch {}
    throw new CallFailed(`${init.method ?? "GET"} ${new URL(url).pathname} answered ${res.status}: ${message.slice(0, 300)}`);
  }
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

/** The command's own receiver (no --to): answers 200, checks each signature, keeps what came. */
async function startOwnReceiver(secret: string, io: TriggerIo, json: boolean) {
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", () => {
      res.end("ok");
      if (json) return;
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {}
      const checksum = String(req.headers["x-checksum"] ?? "");
      const verified = CALLBACK_KINDS.some((k) => hmacBase64(secret, signedMessage(k, body)) === checksum);
      io.out(`  received ${req.method} ${req.url} (X-Checksum ${verified ? "verified" : "DOES NOT MATCH"}): ${raw}`);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Every callback kind of the signer table: a receiver that does not know which one came tries each. */
const CALLBACK_KINDS = Object.keys(SIGNED_FIELDS) as CallbackKind[];

export async function triggerCommand(
  kindName: string | undefined,
  opts: TriggerOptions,
  io: TriggerIo = defaultIo,
): Promise<number> {
  const usage = (message: string) => {
    io.err(`paysandbox trigger: ${message}`);
    return USAGE_ERROR;
  };
  const kind = kindName === undefined ? undefined : triggerKind(kindName);
  if (!kind)
    return usage(
      `${kindName === undefined ? "a kind is needed" : `unknown kind ${JSON.stringify(kindName)}`}; one of: ${TRIGGER_KINDS.map((k) => k.name).join(", ")}`,
    );
  if (opts.to !== undefined && !/^https?:\/\/[^/]+/.test(opts.to))
    return usage(`--to: expected an http(s) URL, got ${JSON.stringify(opts.to)}`);
  const root = opts.sandbox === "root";
  const server = serverConnection({ ...opts, sandbox: root ? undefined : opts.sandbox });
  if ("error" in server) return usage(server.error);
  const { target, auth } = server;
  const control = (base: string) => (method: string, path: string, body?: unknown) =>
    call(`${base}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  let base = server.base;
  let created: string | undefined;
  let merchant = { ...BUILTIN_MERCHANT };
  let own: Awaited<ReturnType<typeof startOwnReceiver>> | undefined;
  try {
    if (opts.sandbox === undefined) {
      const sandbox = await control(target)("POST", "/_sandbox/sandboxes", {
        name: `paysandbox trigger ${kind.name}`,
        ttl: "PT10M",
      });
      created = String(sandbox.id);
      base = String(sandbox.baseUrl).replace(/\/+$/, "");
      merchant = { ...merchant, ...sandbox.merchant };
    }
    if (opts.to === undefined) own = await startOwnReceiver(merchant.merchantSecret, io, opts.json === true);
    const callbackUrl = opts.to ?? own?.url ?? "";
    const auth0 = await call(`${base}/api/v1/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ merchantKey: merchant.merchantKey, merchantSecret: merchant.merchantSecret }),
    });
    const bearer = String(auth0.token);
    const api: TriggerApi = {
      merchant,
      callbackUrl,
      gateway: (method, path, body, headers = {}) =>
        call(`${base}${path}`, {
          method,
          headers: { authorization: bearer, "content-type": "application/json", ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      control: control(base),
      page: async (path, fields) => {
        await call(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields).toString(),
        });
      },
    };
    if (!opts.json) io.out(`paysandbox trigger ${kind.name}: ${kind.description}`);
    const made = await kind.run(api);
    // the deliveries due now were attempted when this answers (docs/control-plane.md#advance)
    await api.control("POST", "/_sandbox/clock/advance", { by: "PT0S" });
    const query = made.transactionId ? `transactionId=${made.transactionId}` : `subscriptionId=${made.subscriptionId}`;
    const journal: Delivery[] = await control(base)("GET", `/_sandbox/webhooks?${query}&limit=1000`);
    const deliveries = journal.filter((d) => d.kind === kind.callback).reverse();
    const acknowledged = deliveries.length > 0 && deliveries.every((d) => d.status === "delivered");
    if (opts.json) {
      io.out(
        JSON.stringify({
          kind: kind.name,
          callback: kind.callback,
          sandbox: created ?? (root ? "root" : opts.sandbox),
          ...made,
          deliveries: deliveries.map(({ id, url, status, eventStatus, attempts }) => ({
            id,
            url,
            status,
            eventStatus,
            attempts,
          })),
        }),
      );
    } else {
      io.out(`  in ${created ? `a fresh sandbox ${created}${opts.keep ? ` (kept: ${base})` : " (deleted now)"}` : base}`);
      if (deliveries.length === 0) io.out("  no webhook went out (no callbackUrl reached?)");
      for (const d of deliveries) {
        const answers = d.attempts.map((a) => `attempt ${d.attempts.indexOf(a) + 1}: ${a.httpStatus ?? a.error}`).join(", ");
        io.out(`  ${d.kind} ${d.eventStatus} → ${d.url}: ${d.status}${answers ? ` (${answers})` : ""}`);
      }
    }
    return acknowledged ? 0 : 1;
  } catch (err) {
    if (!(err instanceof CallFailed)) throw err;
    io.err(`paysandbox trigger: ${err.message}`);
    return 1;
  } finally {
    await own?.close();
    if (created && !opts.keep) await control(target)("DELETE", `/_sandbox/sandboxes/${created}`).catch(() => undefined);
  }
}
