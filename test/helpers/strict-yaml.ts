/**
 * A second YAML reader for the recording's exports, not the `yaml` package that writes them:
 * libyaml (through PyYAML's CBaseLoader, in a python3 subprocess), the strict reader that refused a
 * card holder's control character. Every scalar comes back as its text (no YAML 1.1 typing), so a
 * string must come back exactly as written. Where python3 with PyYAML and libyaml is missing, the
 * check is skipped (hasLibyaml says so).
 */
import { spawnSync } from "node:child_process";
import YAML from "yaml";

const SCRIPT = `
import json, sys, yaml
out = []
for text in json.load(sys.stdin):
    try:
        out.append({"ok": yaml.load(text, Loader=yaml.CBaseLoader)})
    except yaml.YAMLError as e:
        out.append({"error": " ".join(str(e).split())})
json.dump(out, sys.stdout)
`;

export const hasLibyaml = spawnSync("python3", ["-c", "import yaml; yaml.CBaseLoader"], { stdio: "ignore" }).status === 0;

/** What libyaml reads in each text: the document (every scalar a string), or its error. */
export function readWithLibyaml(texts: readonly string[]): Array<{ ok: unknown } | { error: string }> {
  const res = spawnSync("python3", ["-c", SCRIPT], { input: JSON.stringify(texts), maxBuffer: 256 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`python3 failed: ${res.stderr.toString()}`);
  return JSON.parse(res.stdout.toString());
}

/** Where `read` (libyaml's, scalars as text) differs from `value` (the `yaml` package's), or undefined. */
export function differs(value: unknown, read: unknown, path = "$"): string | undefined {
  if (value === null)
    return read === "" || read === "null" || read === "~" ? undefined : `${path}: null read as ${JSON.stringify(read)}`;
  if (typeof value === "string")
    return read === value ? undefined : `${path}: ${JSON.stringify(value)} read as ${JSON.stringify(read)}`;
  if (typeof value === "number") return Number(read) === value ? undefined : `${path}: ${value} read as ${JSON.stringify(read)}`;
  if (typeof value === "boolean") return read === String(value) ? undefined : `${path}: ${value} read as ${JSON.stringify(read)}`;
  if (Array.isArray(value)) {
    if (!Array.isArray(read) || read.length !== value.length) return `${path}: array read as ${JSON.stringify(read)}`;
    for (const [i, v] of value.entries()) {
      const d = differs(v, read[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (typeof value === "object") {
    if (read === null || typeof read !== "object" || Array.isArray(read))
      return `${path}: object read as ${JSON.stringify(read)}`;
    const r = read as Record<string, unknown>;
    const keys = Object.keys(value as object);
    if (keys.length !== Object.keys(r).length) return `${path}: keys ${keys} read as ${Object.keys(r)}`;
    for (const k of keys) {
      const d = differs((value as Record<string, unknown>)[k], r[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return `${path}: unexpected ${typeof value}`;
}

/**
 * The `yaml` package's reading of `texts`, after checking that libyaml reads each one the same
 * (when it is there): throws naming the first text it refuses or reads otherwise.
 */
export function parseStrict(...texts: string[]): unknown[] {
  const values = texts.map((t) => YAML.parse(t) as unknown);
  if (!hasLibyaml) return values;
  const read = readWithLibyaml(texts);
  for (const [i, r] of read.entries()) {
    if ("error" in r) throw new Error(`libyaml refuses export ${i}: ${r.error}`);
    const d = differs(values[i], r.ok);
    if (d) throw new Error(`libyaml reads export ${i} otherwise: ${d}`);
  }
  return values;
}

/** One export, read as parseStrict reads it. */
export const readStrict = (text: string): ReturnType<typeof YAML.parse> => parseStrict(text)[0];
