/**
 * How the dashboard answers (docs/dashboard.md): a page with its security headers and a
 * Server-Timing of the server's time on it, and the form fields of a POST.
 */
import type { Context } from "hono";
import { CONTENT_SECURITY_POLICY } from "./layout.js";

export type Rendered = { toString(): string | Promise<string> };

/** When a request's work started: wall clock and this process's CPU time. */
export interface Started {
  wall: number;
  cpu: NodeJS.CpuUsage;
}

export const start = (): Started => ({ wall: performance.now(), cpu: process.cpuUsage() });

/**
 * The page with the dashboard's headers. Server-Timing gives the server's time on it (queries and
 * render): `app` in wall-clock ms, `cpu` in CPU ms of the process (unmoved by other work on the machine).
 */
export async function sendPage(c: Context, status: 200 | 400 | 401 | 403 | 404, node: Rendered, started: Started) {
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

/** The form fields of a POST as strings (files and repeated names: the first string). */
export async function readForm(c: Context): Promise<Record<string, string | undefined>> {
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
