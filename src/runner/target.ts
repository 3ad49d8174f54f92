/**
 * Where `paysandbox run` sends a file's steps (docs/run.md): a fresh sandbox inside the command
 * (in-process.ts) or a new sandbox of its own on a running server (http-target.ts, docs/parallel-suites.md).
 * The runner sees only this interface, so every step behaves the same against both.
 */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

export interface Target {
  /** For messages: "in-process" or the target's URL. */
  readonly label: string;
  /** The sandbox made for this file on a running server (`--target`). */
  readonly sandbox?: { id: string; baseUrl: string };
  /**
   * The target-relative path (with its query) of a path a step gives, a URL the sandbox handed out
   * (`challengeUrl`) or a page's form action: what `send` takes. A sandbox's own base path is removed.
   */
  local(urlOrPath: string): string;
  /** One HTTP exchange; `path` is target-relative (`/api/v1/...`), with its query. Redirects are not followed. */
  send(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<Reply>;
  /** Runs the work due now (deliveries, completions, charges) and waits for it: how a webhook step waits. */
  runDue(): Promise<void>;
  /** The target's virtual time, ms: when cached bearer tokens expire. */
  now(): Promise<number>;
  /**
   * Ends it (an in-process sandbox closes; one on a server is deleted unless kept). Answers a line
   * for the reader when something outlives the run (a kept sandbox, one that could not be deleted).
   */
  close(): Promise<string | undefined>;
}

/** The path and query of an absolute URL handed out by a sandbox (`challengeUrl`), or the path itself. */
export function pathOf(urlOrPath: string): string {
  if (urlOrPath.startsWith("/")) return urlOrPath;
  const u = new URL(urlOrPath);
  return `${u.pathname}${u.search}`;
}
