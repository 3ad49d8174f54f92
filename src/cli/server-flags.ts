/**
 * The flags of the commands that talk to a running server (`paysandbox listen`, `record`):
 * `--target` (default http://localhost:8080), `--sandbox` (one of its sandboxes, docs/parallel-suites.md) and
 * `--admin-token` (docs/dashboard.md), checked and turned into the base URL and the auth header.
 */
export interface ServerFlags {
  target?: string;
  sandbox?: string;
  adminToken?: string;
}

export interface ServerConnection {
  /** The server, no trailing slash. */
  target: string;
  /** The server or its sandbox: where `/_sandbox/...` paths go. */
  base: string;
  /** The admin token's Authorization header, or none. */
  auth: Record<string, string>;
}

/** The connection, or what is wrong with a flag (the caller prints it as a usage error). */
export function serverConnection(opts: ServerFlags): ServerConnection | { error: string } {
  const target = (opts.target ?? "http://localhost:8080").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+/.test(target))
    return { error: `--target: expected an http(s) URL, got ${JSON.stringify(opts.target)}` };
  if (opts.sandbox !== undefined && !/^sbx_[0-9A-Za-z]+$/.test(opts.sandbox)) {
    return { error: `--sandbox: expected a sandbox id (sbx_...), got ${JSON.stringify(opts.sandbox)}` };
  }
  return {
    target,
    base: opts.sandbox ? `${target}/sandboxes/${opts.sandbox}` : target,
    auth: opts.adminToken ? { Authorization: `Bearer ${opts.adminToken}` } : {},
  };
}
