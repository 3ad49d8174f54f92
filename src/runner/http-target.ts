/**
 * A running sandbox as the target of `paysandbox run --target URL` (CONTRACT §6): the file is
 * loaded through `POST /_sandbox/scenarios` first; `--admin-token` goes with every `/_sandbox` call.
 * Waiting for due work is `POST /_sandbox/clock/advance {"by":"PT0S"}`, which answers once the
 * work due by now (webhook attempts included) has run. Nothing here sleeps.
 */
import { parseInstant } from "../platform/clock.js";
import type { Scenario } from "../scenarios/scenario.schema.js";
import type { Reply, Target } from "./target.js";

export class TargetError extends Error {}

export async function httpTarget(base: string, scenario: Scenario, adminToken: string | undefined): Promise<Target> {
  const root = base.replace(/\/+$/, "");
  const send = async (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) => {
    const headers = { ...init.headers };
    if (adminToken && path.startsWith("/_sandbox/") && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
      headers.authorization = `Bearer ${adminToken}`;
    }
    let res: Response;
    try {
      res = await fetch(`${root}${path}`, { method, headers, body: init.body, redirect: "manual" });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new TargetError(`cannot reach ${root}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    return { status: res.status, headers: res.headers, text: await res.text() } satisfies Reply;
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const reply = await send(method, path, {
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (reply.status !== 200)
      throw new TargetError(`${method} ${root}${path} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
    return JSON.parse(reply.text) as Record<string, unknown>;
  };

  await control("POST", "/_sandbox/scenarios", scenario);
  // A file's startTime can only move a running sandbox's clock forward (it is shared; nothing resets it).
  const start = scenario.startTime === undefined ? undefined : parseInstant(scenario.startTime);
  if (start !== undefined) {
    const now = parseInstant(String((await control("GET", "/_sandbox/clock")).now)) ?? 0;
    if (start > now) await control("POST", "/_sandbox/clock/advance", { to: scenario.startTime });
  }
  return {
    label: root,
    send,
    async runDue() {
      await control("POST", "/_sandbox/clock/advance", { by: "PT0S" });
    },
    async now() {
      return parseInstant(String((await control("GET", "/_sandbox/clock")).now)) ?? 0;
    },
    async close() {},
  };
}
