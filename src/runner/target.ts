/**
 * Where `paysandbox run` sends a file's steps (CONTRACT §6): a fresh sandbox inside the command
 * (in-process.ts) or a running one (http-target.ts). The runner sees only this interface, so every
 * step behaves the same against both.
 */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

export interface Target {
  /** For messages: "in-process" or the target's URL. */
  readonly label: string;
  /** One HTTP exchange; `path` is absolute (`/api/v1/...`), with its query. Redirects are not followed. */
  send(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<Reply>;
  /** Runs the work due now (deliveries, completions, charges) and waits for it: how a webhook step waits. */
  runDue(): Promise<void>;
  /** The target's virtual time, ms: when cached bearer tokens expire. */
  now(): Promise<number>;
  close(): Promise<void>;
}

/** The path and query of an absolute URL handed out by a sandbox (`challengeUrl`), or the path itself. */
export function pathOf(urlOrPath: string): string {
  if (urlOrPath.startsWith("/")) return urlOrPath;
  const u = new URL(urlOrPath);
  return `${u.pathname}${u.search}`;
}
