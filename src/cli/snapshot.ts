/**
 * `paysandbox snapshot save|load` (docs/snapshots.md): a sandbox's whole state as one file, and a new
 * sandbox started from such a file.
 *
 * - `save [--target URL] [--sandbox ID] [--out FILE] [--admin-token T]`: `GET {base}/_sandbox/snapshot`,
 *   written to FILE, else to stdout (refused when stdout is a terminal: the file is binary).
 * - `load FILE [--target URL] [--name N] [--ttl D] [--admin-token T]`: `POST /_sandbox/sandboxes` with
 *   the file as the body; prints the new sandbox's baseUrl (one line on stdout, so a script can
 *   capture it) and its id on stderr.
 *
 * Exit status: 0 when done; 1 when the server could not be reached or refused (its errorMessage is
 * printed: an unknown sandbox, a damaged or newer file, a wrong admin token); 2 for a bad flag or a
 * file that cannot be read or written.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { USAGE_ERROR } from "./run.js";
import { type ServerFlags, serverConnection } from "./server-flags.js";

/** The media type of a snapshot file, as the server answers and takes it. */
export const SNAPSHOT_TYPE = "application/vnd.paysandbox.snapshot";

export interface SnapshotSaveOptions extends ServerFlags {
  out?: string;
}

export interface SnapshotLoadOptions extends Omit<ServerFlags, "sandbox"> {
  name?: string;
  ttl?: string;
}

export interface SnapshotIo {
  /** The snapshot's bytes (save without --out) or the baseUrl line (load). */
  out(data: string | Uint8Array): void;
  err(line: string): void;
  /** Whether stdout is a terminal (a binary file is not written there). */
  outIsTerminal?: boolean;
}

const defaultIo: SnapshotIo = {
  out: (data) => process.stdout.write(data),
  err: (line) => process.stderr.write(`${line}\n`),
  outIsTerminal: process.stdout.isTTY === true,
};

/** The errorMessage of a JSON error answer, else its text (trimmed). */
function reason(text: string): string {
  try {
    const message = (JSON.parse(text) as { errorMessage?: unknown }).errorMessage;
    if (typeof message === "string") return message;
  } catch {}
  return text.slice(0, 300);
}

const unreachable = (err: unknown) => {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
};

export async function snapshotSaveCommand(opts: SnapshotSaveOptions, io: SnapshotIo = defaultIo): Promise<number> {
  const say = (line: string) => io.err(`paysandbox snapshot save: ${line}`);
  const server = serverConnection(opts);
  if ("error" in server) {
    say(server.error);
    return USAGE_ERROR;
  }
  if (opts.out === undefined && io.outIsTerminal) {
    say("the snapshot is a binary file: give --out FILE (or redirect stdout to a file)");
    return USAGE_ERROR;
  }
  const url = `${server.base}/_sandbox/snapshot`;
  let bytes: Uint8Array;
  try {
    const res = await fetch(url, { headers: { accept: SNAPSHOT_TYPE, ...server.auth } });
    if (!res.ok) {
      say(`GET ${url} answered ${res.status}: ${reason(await res.text())}`);
      return 1;
    }
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (err) {
    say(`cannot reach ${server.target}: ${unreachable(err)}`);
    return 1;
  }
  if (opts.out === undefined) {
    io.out(bytes);
    return 0;
  }
  try {
    writeFileSync(opts.out, bytes);
  } catch (err) {
    say(`--out: cannot write ${opts.out}: ${(err as Error).message}`);
    return USAGE_ERROR;
  }
  const from = opts.sandbox ?? "the root sandbox";
  say(`wrote ${opts.out} (${bytes.length} bytes, ${from}); start a sandbox from it with: paysandbox snapshot load ${opts.out}`);
  return 0;
}

export async function snapshotLoadCommand(file: string, opts: SnapshotLoadOptions, io: SnapshotIo = defaultIo): Promise<number> {
  const say = (line: string) => io.err(`paysandbox snapshot load: ${line}`);
  const server = serverConnection(opts);
  if ("error" in server) {
    say(server.error);
    return USAGE_ERROR;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    say(`${file}: ${code === "ENOENT" ? "no such file" : `cannot read: ${(err as Error).message}`}`);
    return USAGE_ERROR;
  }
  const query = new URLSearchParams();
  if (opts.name !== undefined) query.set("name", opts.name);
  if (opts.ttl !== undefined) query.set("ttl", opts.ttl);
  const url = `${server.target}/_sandbox/sandboxes${query.size > 0 ? `?${query}` : ""}`;
  let text: string;
  let status: number;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": SNAPSHOT_TYPE, ...server.auth },
      body: new Uint8Array(bytes),
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    say(`cannot reach ${server.target}: ${unreachable(err)}`);
    return 1;
  }
  let answer: { id?: unknown; baseUrl?: unknown } = {};
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {}
  if (status !== 201 || typeof answer.baseUrl !== "string") {
    const hint = status === 401 ? " (give its SANDBOX_ADMIN_TOKEN with --admin-token)" : "";
    say(`POST ${url} answered ${status}: ${reason(text)}${hint}`);
    return 1;
  }
  io.out(`${answer.baseUrl}\n`);
  say(`sandbox ${String(answer.id)} started from ${file}`);
  return 0;
}
