/**
 * A file's own sandbox on a running server, the target of `paysandbox run --target URL` (docs/run.md,
 * docs/parallel-suites.md): `POST /_sandbox/sandboxes` with the file's scenario part (the document without `steps`,
 * its `startTime` as the sandbox's), every step under that sandbox's base URL, `DELETE` after the
 * run unless `--keep`. The steps never leave this process: the target sees only the requests they
 * make. `--admin-token` goes with every `/_sandbox` call, create and delete included.
 * A file with `snapshot:` (docs/snapshots.md) creates its sandbox from that file instead, then loads
 * the file's merchants, rates, cards and rules on top when it has any.
 * Waiting for due work is `POST {base}/_sandbox/clock/advance {"by":"PT0S"}`, which answers once the
 * work due by now (webhook attempts included) has run. Nothing here sleeps.
 */
import { parseInstant } from "../platform/clock.js";
import type { Scenario } from "../scenarios/scenario.schema.js";
import { pathOf, type Reply, type Target } from "./target.js";

export class TargetError extends Error {}

export interface HttpTargetOptions {
  /** The sandbox's name on the server (the file's scenario name). */
  name: string;
  adminToken?: string | undefined;
  /** Leave the sandbox on the server after the run. */
  keep?: boolean | undefined;
  /** Start the sandbox from this snapshot file's bytes (docs/snapshots.md). */
  snapshot?: Uint8Array | undefined;
  /** How requests reach the server (default: the network); in-process.ts passes the server itself. */
  fetch?: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
}

/** The media type of a snapshot file (docs/snapshots.md). */
const SNAPSHOT_TYPE = "application/vnd.paysandbox.snapshot";

/** The part of a scenario file a sandbox is created with: everything but `steps` (and `startTime`, sent beside it). */
export function sandboxDocument(scenario: Scenario): Record<string, unknown> {
  const { steps: _steps, startTime: _startTime, snapshot: _snapshot, ...document } = scenario;
  return document;
}

const NAME_MAX = 200;

export async function httpTarget(target: string, scenario: Scenario, opts: HttpTargetOptions): Promise<Target> {
  const root = target.replace(/\/+$/, "");
  const fetchAt = opts.fetch ?? fetch;
  const exchange = async (
    method: string,
    url: string,
    init: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
  ) => {
    let res: Response;
    try {
      const body = init.body instanceof Uint8Array ? new Uint8Array(init.body) : init.body;
      res = await fetchAt(url, { method, headers: init.headers, body, redirect: "manual" });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new TargetError(`cannot reach ${root}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    return { status: res.status, headers: res.headers, text: await res.text() } satisfies Reply;
  };
  const admin: Record<string, string> = opts.adminToken ? { authorization: `Bearer ${opts.adminToken}` } : {};

  const created = await create();
  const id = created.id;
  const basePath = `/sandboxes/${id}`;
  // The server's root as reached from here, plus the contract's path: its baseUrl may name another
  // host (a SANDBOX_PUBLIC_URL meant for browsers) than the one this command reaches it at.
  const base = `${root}${basePath}`;
  // a URL the sandbox handed out carries its public URL's path too, before /sandboxes/{id}
  const publicPath = new URL(created.baseUrl, "http://x").pathname;
  const publicPrefix = publicPath.endsWith(basePath) ? publicPath.slice(0, -basePath.length) : "";

  async function create(): Promise<{ id: string; baseUrl: string }> {
    const start = scenario.startTime;
    const name = (scenario.name || opts.name).slice(0, NAME_MAX);
    // deleted after the run, it needs no file (docs/parallel-suites.md#storage); one kept gets the server's default
    const storage: Record<string, string> = opts.keep ? {} : { storage: "memory" };
    const body = { name, ...(start === undefined ? {} : { startTime: start }), scenario: sandboxDocument(scenario) };
    const url = opts.snapshot
      ? `${root}/_sandbox/sandboxes?${new URLSearchParams({ name, ...storage })}`
      : `${root}/_sandbox/sandboxes`;
    const post = (json: object) =>
      exchange("POST", url, { headers: { "content-type": "application/json", ...admin }, body: JSON.stringify(json) });
    let reply = opts.snapshot
      ? await exchange("POST", url, { headers: { "content-type": SNAPSHOT_TYPE, ...admin }, body: opts.snapshot })
      : await post({ ...body, ...storage });
    if (!opts.snapshot && reply.status === 400 && /^\{"errorMessage":"Unknown field: storage"/.test(reply.text)) {
      // a server from before storage was a choice: its own default, as it always was
      reply = await post(body);
    }
    if (reply.status === 404) {
      throw new TargetError(
        `${root} has no POST /_sandbox/sandboxes (it answered 404): a server from before sandboxes side by side (docs/parallel-suites.md); upgrade it, or run without --target`,
      );
    }
    const answer = parse(reply.text) as { id?: unknown; baseUrl?: unknown; errorMessage?: unknown };
    if (reply.status !== 201 || typeof answer.id !== "string" || typeof answer.baseUrl !== "string") {
      const why = typeof answer.errorMessage === "string" ? answer.errorMessage : reply.text.slice(0, 300);
      const hint = reply.status === 401 ? " (give its SANDBOX_ADMIN_TOKEN with --admin-token)" : "";
      throw new TargetError(`POST ${url} answered ${reply.status}: ${why}${hint}`);
    }
    return { id: answer.id, baseUrl: answer.baseUrl };
  }

  const local = (urlOrPath: string): string => {
    const path = pathOf(urlOrPath);
    for (const prefix of new Set([basePath, `${publicPrefix}${basePath}`])) {
      if (path === prefix) return "/";
      if (path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`)) {
        const rest = path.slice(prefix.length);
        return rest.startsWith("?") ? `/${rest}` : rest;
      }
    }
    return path;
  };

  const send = (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) => {
    const headers = { ...init.headers };
    if (path.startsWith("/_sandbox/") && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
      Object.assign(headers, admin);
    }
    return exchange(method, `${base}${path}`, { headers, ...(init.body === undefined ? {} : { body: init.body }) });
  };

  const control = async (method: string, path: string, body?: unknown) => {
    const reply = await send(method, path, {
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (reply.status !== 200)
      throw new TargetError(`${method} ${base}${path} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
    return parse(reply.text) as Record<string, unknown>;
  };

  const close = async () => {
    if (opts.keep) return `kept sandbox ${id} at ${created.baseUrl}`;
    const url = `${root}/_sandbox/sandboxes/${id}`;
    try {
      const reply = await exchange("DELETE", url, { headers: admin });
      // 404: it is gone already (its TTL ran out)
      if (reply.status === 204 || reply.status === 404) return undefined;
      return `could not delete sandbox ${id}: DELETE ${url} answered ${reply.status} (it is deleted by itself once unused for its TTL)`;
    } catch (err) {
      return `could not delete sandbox ${id}: ${(err as Error).message} (it is deleted by itself once unused for its TTL)`;
    }
  };

  // a snapshot's world, and the file's own merchants, rates, cards and rules on top of it
  const { name: _name, description: _description, ...parts } = sandboxDocument(scenario);
  if (opts.snapshot && Object.values(parts).some((v) => (Array.isArray(v) ? v.length > 0 : Object.keys(v ?? {}).length > 0))) {
    try {
      await control("POST", "/_sandbox/scenarios", sandboxDocument(scenario));
    } catch (err) {
      await close();
      throw err;
    }
  }

  return {
    label: root,
    sandbox: { id, baseUrl: created.baseUrl },
    local,
    send,
    async runDue() {
      await control("POST", "/_sandbox/clock/advance", { by: "PT0S" });
    },
    async now() {
      return parseInstant(String((await control("GET", "/_sandbox/clock")).now)) ?? 0;
    },
    close,
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) ?? {};
  } catch {
    return {};
  }
}
