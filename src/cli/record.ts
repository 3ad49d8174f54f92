/**
 * `paysandbox record [--target URL] [--sandbox ID] [--out FILE] [--from ISO] [--to ISO] [--json]
 * [--admin-token T]` (docs/recording.md): writes what was done in a sandbox as a steps file that
 * `paysandbox run` replays, from `GET {base}/_sandbox/recording`. To stdout without `--out`.
 *
 * Exit status: 0 when the file was written; 1 when the server could not be reached or refused (an
 * unknown sandbox, a wrong admin token: its errorMessage is printed); 2 for a bad flag.
 */
import { writeFileSync } from "node:fs";
import { parseInstant } from "../platform/clock.js";
import { USAGE_ERROR } from "./run.js";
import { type ServerFlags, serverConnection } from "./server-flags.js";

export interface RecordOptions extends ServerFlags {
  out?: string;
  from?: string;
  to?: string;
  json?: boolean;
}

export interface RecordIo {
  out(text: string): void;
  err(line: string): void;
}

const defaultIo: RecordIo = {
  out: (text) => process.stdout.write(text),
  err: (line) => process.stderr.write(`${line}\n`),
};

export async function recordCommand(opts: RecordOptions, io: RecordIo = defaultIo): Promise<number> {
  const usage = (message: string) => {
    io.err(`paysandbox record: ${message}`);
    return USAGE_ERROR;
  };
  const server = serverConnection(opts);
  if ("error" in server) return usage(server.error);
  const { target, base } = server;
  const query = new URLSearchParams();
  for (const key of ["from", "to"] as const) {
    const value = opts[key];
    if (value === undefined) continue;
    if (parseInstant(value) === undefined) return usage(`--${key}: expected an ISO 8601 date-time, got ${JSON.stringify(value)}`);
    query.set(key, value);
  }
  const url = `${base}/_sandbox/recording${query.size > 0 ? `?${query}` : ""}`;
  const headers = { accept: opts.json ? "application/json" : "application/yaml", ...server.auth };
  let text: string;
  try {
    const res = await fetch(url, { headers });
    text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { errorMessage?: string }).errorMessage ?? text;
      } catch {}
      io.err(`paysandbox record: GET ${url} answered ${res.status}: ${message}`);
      return 1;
    }
  } catch (err) {
    io.err(`paysandbox record: cannot reach ${target}: ${(err as Error).message}`);
    return 1;
  }
  const file = opts.json ? `${JSON.stringify(JSON.parse(text), null, 2)}\n` : text;
  if (opts.out) {
    writeFileSync(opts.out, file);
    io.err(`paysandbox record: wrote ${opts.out}; replay it with: paysandbox run ${opts.out}`);
  } else {
    io.out(file);
  }
  return 0;
}
