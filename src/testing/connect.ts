/**
 * `connectSandbox(serverUrl, options?)` of `paysandbox/testing` (docs/parallel-suites.md): a new sandbox on a
 * running server (`POST /_sandbox/sandboxes`), behind the same handle as `startSandbox()`, with a
 * webhook receiver in the test's process. Plain HTTP: it builds nothing of the app, so a suite can
 * point many test files, in parallel, at one server (a container, a shared CI service).
 *
 * LIMITATIONS:
 * - the receiver listens on 127.0.0.1 of the test's machine: the server must reach it there (the
 *   same host, or a container on the host's network), or its deliveries fail;
 * - `clock.now()` is reckoned without a request (the time the server last answered plus the real
 *   time since, at the server's scale), so it can be a few ms off the server's.
 */
import { readFileSync } from "node:fs";
import { tokenExpiry } from "../platform/bearer.js";
import { parseInstant, toIso, VirtualClock } from "../platform/clock.js";
import { closeServer, listen, webhookReceiver } from "./receiver.js";
import type { ConnectSandboxOptions, CoverageReport, SandboxMerchant, TestSandbox } from "./types.js";

class ConnectError extends Error {}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const isoOf = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);

/** The media type of a snapshot file (docs/snapshots.md). */
const SNAPSHOT_TYPE = "application/vnd.paysandbox.snapshot";

/** A snapshot's bytes: the file at a path, or the bytes given (docs/snapshots.md). */
export function snapshotBytes(snapshot: unknown, who: string): Uint8Array {
  if (snapshot instanceof Uint8Array) return snapshot;
  if (typeof snapshot !== "string") {
    throw new TypeError(`${who}: snapshot: expected a file path or the file's bytes (a Buffer or Uint8Array)`);
  }
  try {
    return readFileSync(snapshot);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TypeError(
      `${who}: snapshot: cannot read ${snapshot}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`,
    );
  }
}

/** A 400 of a server that does not know the `storage` field (one from before it). */
const refusesStorage = (a: Answer) =>
  a.body.errorMessage === "Unknown field: storage" ||
  (Array.isArray(a.body.errors) && a.body.errors.some((e: { field?: unknown }) => e?.field === "storage"));

/** What starts a sandbox besides a snapshot or a copy; only one of these kinds may be given. */
function conflicting(options: ConnectSandboxOptions, but: "from" | "snapshot"): string | undefined {
  const others = (["scenario", "startTime", "from", "snapshot"] as const).filter((k) => k !== but && options[k] !== undefined);
  return others[0];
}

/**
 * What `POST /_sandbox/sandboxes` is sent: JSON (a fresh sandbox, or a copy with `from`) or a
 * snapshot file with `?name=&ttl=&storage=`. Bad options throw before anything is created.
 */
function createRequest(options: ConnectSandboxOptions): { query: string; json?: Record<string, unknown>; bytes?: Uint8Array } {
  const storage = options.storage ?? "memory";
  if (storage !== "memory" && storage !== "file") throw new TypeError(`connectSandbox: storage: expected "memory" or "file"`);
  for (const kind of ["from", "snapshot"] as const) {
    if (options[kind] === undefined) continue;
    const other = conflicting(options, kind);
    if (other) throw new TypeError(`connectSandbox: ${other}: not with ${kind} (a copy holds its source's state and clock)`);
  }
  if (options.snapshot !== undefined) {
    const bytes = snapshotBytes(options.snapshot, "connectSandbox");
    const query = new URLSearchParams();
    if (options.name !== undefined) query.set("name", options.name);
    if (options.ttl !== undefined) query.set("ttl", options.ttl);
    query.set("storage", storage);
    return { query: `?${query}`, bytes };
  }
  const body: Record<string, unknown> = {};
  if (options.from !== undefined) {
    if (typeof options.from !== "string") throw new TypeError(`connectSandbox: from: expected a sandbox id ("sbx_…") or "root"`);
    body.from = options.from;
  }
  if (options.name !== undefined) body.name = options.name;
  if (options.ttl !== undefined) body.ttl = options.ttl;
  body.storage = storage;
  if (options.startTime !== undefined) {
    if (options.startTime instanceof Date && Number.isNaN(options.startTime.getTime())) {
      throw new TypeError("connectSandbox: startTime is an invalid Date");
    }
    body.startTime = isoOf(options.startTime);
  }
  if (typeof options.scenario === "string") {
    try {
      body.scenario = readFileSync(options.scenario, "utf8");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new TypeError(
        `connectSandbox: scenario: cannot read ${options.scenario}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`,
      );
    }
  } else if (options.scenario !== undefined) {
    body.scenario = options.scenario;
  }
  return { query: "", json: body };
}

/**
 * Creates a sandbox on the server at `serverUrl` (its root, e.g. http://localhost:8080) and returns
 * its handle once its receiver listens. `close()` deletes it; a sandbox left behind is deleted by
 * the server once unused for its `ttl`.
 */
export async function connectSandbox(serverUrl: string, options: ConnectSandboxOptions = {}): Promise<TestSandbox> {
  if (typeof serverUrl !== "string" || !/^https?:\/\/[^/]+/.test(serverUrl)) {
    throw new TypeError(`connectSandbox: serverUrl: expected an http(s) URL, got ${JSON.stringify(serverUrl)}`);
  }
  const root = serverUrl.replace(/\/+$/, "");
  const request = createRequest(options);
  const token = options.adminToken ?? process.env.SANDBOX_ADMIN_TOKEN;
  const admin: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

  const call = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    let res: Response;
    try {
      // a snapshot goes as the file's bytes, everything else as JSON
      const binary = payload instanceof Uint8Array;
      res = await fetch(url, {
        method,
        headers: {
          ...(payload === undefined ? {} : { "content-type": binary ? SNAPSHOT_TYPE : "application/json" }),
          ...headers,
        },
        ...(payload === undefined ? {} : { body: binary ? new Uint8Array(payload) : JSON.stringify(payload) }),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ConnectError(`paysandbox: cannot reach ${root}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { errorMessage: text.slice(0, 300) };
    }
    return { status: res.status, body: (parsed ?? {}) as Record<string, unknown> };
  };
  const failure = (what: string, a: Answer) =>
    new ConnectError(`${what} answered ${a.status}${typeof a.body.errorMessage === "string" ? `: ${a.body.errorMessage}` : ""}`);

  const hooks = webhookReceiver();
  const hooksUrl = await listen(hooks.server);
  let created: Answer;
  try {
    created = await call("POST", `${root}/_sandbox/sandboxes${request.query}`, request.bytes ?? request.json, admin);
    if (created.status === 400 && options.storage === undefined && request.json && refusesStorage(created)) {
      // a server from before storage was a choice: its own default, as it always was
      const { storage: _, ...json } = request.json;
      created = await call("POST", `${root}/_sandbox/sandboxes`, json, admin);
    }
  } catch (err) {
    await closeServer(hooks.server);
    throw err;
  }
  if (created.status !== 201) {
    await closeServer(hooks.server);
    // a 404 that names a field is the server refusing (an unknown `from`); any other: no such route there
    const refused = typeof created.body.errorMessage === "string" && created.body.errorMessage.startsWith("Invalid field");
    if (created.status === 404 && !refused) {
      throw new ConnectError(
        `connectSandbox: ${root} has no POST /_sandbox/sandboxes (it answered 404): not a paysandbox server, or one from before sandboxes side by side`,
      );
    }
    throw failure(`connectSandbox: POST ${root}/_sandbox/sandboxes${request.query}`, created);
  }
  const id = String(created.body.id);
  const url = String(created.body.baseUrl);
  const merchant = created.body.merchant as SandboxMerchant;

  // the sandbox's clock mirrored here: re-anchored at each time the server answers, running at its scale between
  let mirror = new VirtualClock(parseInstant(String(created.body.now)) ?? 0, 1);
  const learn = (now: unknown) => {
    const ms = parseInstant(String(now));
    if (ms !== undefined) mirror.resetTo(ms);
  };
  const nowMs = () => mirror.nowMs();
  const control = async (method: string, path: string, payload?: unknown) => {
    const a = await call(method, `${url}${path}`, payload, admin);
    if (a.status !== 200) throw failure(`paysandbox: ${method} ${url}${path}`, a);
    return a.body;
  };
  try {
    const clock = await control("GET", "/_sandbox/clock");
    mirror = new VirtualClock(mirror.nowMs(), typeof clock.scale === "number" ? clock.scale : 1);
    learn(clock.now);
  } catch (err) {
    await Promise.allSettled([call("DELETE", `${root}/_sandbox/sandboxes/${id}`, undefined, admin), closeServer(hooks.server)]);
    throw err;
  }

  const tokens = new Map<string, { token: string; expiresMs: number }>();
  const auth = async (merchantKey = merchant.merchantKey, merchantSecret?: string) => {
    const secret = merchantSecret ?? (merchantKey === merchant.merchantKey ? merchant.merchantSecret : undefined);
    const cached = tokens.get(merchantKey);
    // a minute's margin so a token never expires between this call and the request using it
    if (cached && nowMs() < cached.expiresMs - 60_000 && merchantSecret === undefined) return cached.token;
    const a = await call("POST", `${url}/api/v1/auth`, { merchantKey, merchantSecret: secret });
    const value = a.body.token;
    if (a.status !== 200 || typeof value !== "string") throw failure("paysandbox auth failed: POST /api/v1/auth", a);
    tokens.set(merchantKey, { token: value, expiresMs: tokenExpiry(value) });
    return value;
  };

  let closed = false;
  return {
    id,
    url,
    merchant: {
      merchantKey: merchant.merchantKey,
      merchantSecret: merchant.merchantSecret,
      mid: merchant.mid,
      merchantId: merchant.merchantId,
      accountId: merchant.accountId,
    },
    auth,
    clock: {
      now: () => toIso(nowMs()),
      async advance(by) {
        const payload = typeof by === "string" ? { by } : { to: isoOf(by.to) };
        const answer = await control("POST", "/_sandbox/clock/advance", payload);
        learn(answer.now);
        return answer as { now: string; ran: Record<string, number> };
      },
    },
    webhooks: { url: hooksUrl, received: hooks.received, waitFor: hooks.waitFor },
    async reset(opts = {}) {
      const answer = await control("POST", "/_sandbox/reset", {
        ...(opts.startTime === undefined ? {} : { startTime: isoOf(opts.startTime) }),
        ...(opts.snapshot === undefined ? {} : { snapshot: opts.snapshot }),
      });
      learn(answer.now);
      tokens.clear();
      hooks.received.length = 0;
    },
    snapshot: () => fetchSnapshot(url, admin),
    coverage: async () => (await control("GET", "/_sandbox/coverage")) as unknown as CoverageReport,
    async close() {
      if (closed) return;
      closed = true;
      const [deleted] = await Promise.all([
        call("DELETE", `${root}/_sandbox/sandboxes/${id}`, undefined, admin).catch((err: unknown) => err as Error),
        closeServer(hooks.server),
      ]);
      if (deleted instanceof Error) throw deleted;
      // 404: already gone (its ttl ran out)
      if (deleted.status !== 204 && deleted.status !== 404) {
        throw failure(`paysandbox: DELETE ${root}/_sandbox/sandboxes/${id}`, deleted);
      }
    },
  };
}

/** GET {base}/_sandbox/snapshot: the sandbox's state as the file's bytes (docs/snapshots.md). */
export async function fetchSnapshot(base: string, headers: Record<string, string> = {}): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(`${base}/_sandbox/snapshot`, { headers: { accept: SNAPSHOT_TYPE, ...headers } });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ConnectError(`paysandbox: cannot reach ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  if (!res.ok) {
    const text = await res.text();
    let why = text.slice(0, 300);
    try {
      why = (JSON.parse(text) as { errorMessage?: string }).errorMessage ?? why;
    } catch {}
    throw new ConnectError(`paysandbox: GET ${base}/_sandbox/snapshot answered ${res.status}: ${why}`);
  }
  return Buffer.from(await res.arrayBuffer());
}
