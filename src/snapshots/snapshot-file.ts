/**
 * The snapshot file (docs/snapshots.md): a sandbox's whole state as one file. A short binary header,
 * a little JSON, then the SQLite database image as `serialize()` gives it:
 *
 * | bytes | what |
 * |---|---|
 * | 0–7 | magic `PAYSBXSN` |
 * | 8–9 | format version (u16, big-endian): this layout is 1 |
 * | 10–11 | migrations the database has (u16) |
 * | 12–15 | length of the JSON (u32) |
 * | 16–23 | length of the image (u64) |
 * | 24–31 | the source clock's now, virtual ms (f64) |
 * | 32–63 | SHA-256 of bytes 0–31, the JSON and the image |
 * | 64… | the JSON (`SnapshotMeta`), then the image |
 *
 * A file is read in that order: not ours (magic), newer (version), cut short (lengths), damaged
 * (checksum), each a 400 that says so; the database inside is checked by the caller (src/snapshots/check.ts).
 */
import { createHash } from "node:crypto";
import { MAX_CLOCK_ISO, MAX_CLOCK_MS } from "../platform/clock.js";
import { badRequest } from "../platform/errors.js";

export const SNAPSHOT_TYPE = "application/vnd.paysandbox.snapshot";
export const FORMAT_VERSION = 1;
const MAGIC = Buffer.from("PAYSBXSN", "latin1");
export const HEADER_BYTES = 64;

/** What a snapshot says about its sandbox besides its database: what a plain reset of a copy goes back to. */
export interface SnapshotMeta {
  /** The source clock's now (ISO 8601, for people; `nowMs` in the header decides). */
  now: string;
  /** Where the source's reset puts its clock (virtual ms). */
  startMs: number;
  /** The scenario document the source was created with (its reset reloads it), or null. */
  scenario: unknown;
  /** The source: `root` or a sandbox id (for people). */
  source: string;
}

export interface Snapshot {
  version: number;
  migrations: number;
  nowMs: number;
  meta: SnapshotMeta;
  image: Buffer;
}

/** The file of a state: header, JSON, image. */
export function writeSnapshot(s: Omit<Snapshot, "version">): Buffer {
  const meta = Buffer.from(JSON.stringify(s.meta), "utf8");
  const head = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(head, 0);
  head.writeUInt16BE(FORMAT_VERSION, 8);
  head.writeUInt16BE(s.migrations, 10);
  head.writeUInt32BE(meta.length, 12);
  head.writeBigUInt64BE(BigInt(s.image.length), 16);
  head.writeDoubleBE(s.nowMs, 24);
  digest(head, meta, s.image).copy(head, 32);
  return Buffer.concat([head, meta, s.image]);
}

function digest(head: Buffer, meta: Buffer, image: Buffer): Buffer {
  return createHash("sha256").update(head.subarray(0, 32)).update(meta).update(image).digest();
}

/** A file's checksum as written in its header (hex): what readSnapshot verified it against. */
export const checksumOf = (bytes: Buffer): string => bytes.toString("hex", 32, 64);

const refused = (why: string) => badRequest(`Invalid snapshot: ${why}`);

/** An instant a clock can be at: from the earliest a JavaScript Date holds to the clock's limit. */
const inClockRange = (ms: number) => ms >= -8_640_000_000_000_000 && ms <= MAX_CLOCK_MS;

/**
 * Reads a snapshot file, or a 400 `Invalid snapshot: <why>`. The image is a view into `bytes`
 * (nothing copied).
 */
export function readSnapshot(bytes: Buffer): Snapshot {
  if (bytes.length === 0) throw refused("the body is empty (send the file GET /_sandbox/snapshot answered)");
  if (bytes.length < MAGIC.length || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw refused("not a paysandbox snapshot (it does not start with PAYSBXSN)");
  }
  if (bytes.length < HEADER_BYTES) throw refused(`truncated (${bytes.length} bytes, its header alone is ${HEADER_BYTES})`);
  const version = bytes.readUInt16BE(8);
  if (version > FORMAT_VERSION) {
    throw refused(`format version ${version} is newer than this server reads (${FORMAT_VERSION}): upgrade paysandbox`);
  }
  if (version < 1) throw refused(`unknown format version ${version}`);
  const migrations = bytes.readUInt16BE(10);
  const metaLength = bytes.readUInt32BE(12);
  const imageLength = bytes.readBigUInt64BE(16);
  const expected = BigInt(HEADER_BYTES + metaLength) + imageLength;
  if (BigInt(bytes.length) < expected) throw refused(`truncated (${bytes.length} bytes of ${expected})`);
  if (BigInt(bytes.length) > expected) throw refused(`${BigInt(bytes.length) - expected} bytes after its end`);
  const nowMs = bytes.readDoubleBE(24);
  const meta = bytes.subarray(HEADER_BYTES, HEADER_BYTES + metaLength);
  const image = bytes.subarray(HEADER_BYTES + metaLength);
  if (!digest(bytes, meta, image).equals(bytes.subarray(32, 64))) throw refused("damaged (its checksum does not match)");
  let parsed: SnapshotMeta;
  try {
    parsed = JSON.parse(meta.toString("utf8")) as SnapshotMeta;
  } catch {
    throw refused("damaged (its description is not JSON)");
  }
  if (!Number.isFinite(nowMs) || typeof parsed !== "object" || parsed === null || typeof parsed.startMs !== "number") {
    throw refused("damaged (its clock or description is missing)");
  }
  if (!inClockRange(nowMs) || !inClockRange(parsed.startMs)) {
    throw refused(`damaged (its clock's now or start is not an instant up to ${MAX_CLOCK_ISO})`);
  }
  return { version, migrations, nowMs, meta: parsed, image };
}
