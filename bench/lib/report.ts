/** The figures' arithmetic and how they are printed: percentiles, the JSON result lines, tables. */
import { loadavg } from "node:os";
import type { LoadResult } from "./load.js";

/**
 * The p-th percentile (0 < p ≤ 100) of `xs` by nearest rank: the smallest sample with at least p%
 * of the samples at or below it (`percentile(xs, 100)` is the largest); 0 for no samples. The one
 * percentile of the benches; `digits`: rounded to that many decimals.
 */
export function percentile(xs: readonly number[], p: number, digits?: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
  return digits === undefined ? v : Math.round(v * 10 ** digits) / 10 ** digits;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export type Row = Record<string, string | number | boolean | null | undefined>;

/**
 * One machine-readable result line; bench/run.ts collects every line that starts with `{"bench":`.
 * Its summary table has a column for each of these conventional fields: rps, p50, p99 (ms), cpuUsPerReq, errors,
 * non2xx, floorRps, vsFloor (or ratio: rps / floorRps), medianMs, target, pass; others go to `other`. Each line
 * ends with the load average at that moment (`load1`), unless the bench gave its own.
 */
export function emit(bench: string, fields: Row): void {
  console.log(JSON.stringify({ bench, ...fields, load1: fields.load1 ?? load1() }));
}

/**
 * The machine's 1-minute load average, which every result line carries (`load1`): on a shared
 * machine other work moves the figures, and the load says how much.
 */
export const load1 = (): number => Number(loadavg()[0]?.toFixed(2));

/** A load run's figures as its result line gives them (the conventional fields of emit()). */
export function figures(r: LoadResult): Row {
  return { rps: r.rps, p50: r.p50, p99: r.p99, cpuUsPerReq: r.cpuUsPerReq, errors: r.errors, non2xx: r.non2xx, loader: r.loader };
}

/** Prints rows as an aligned text table, columns in first-seen key order. */
export function printTable(rows: Row[]): void {
  if (rows.length === 0) return;
  const cols: string[] = [];
  for (const row of rows) for (const k of Object.keys(row)) if (!cols.includes(k)) cols.push(k);
  const cell = (v: Row[string]) => (v === undefined || v === null ? "" : typeof v === "number" ? fmt(v) : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, j) => {
        const w = widths[j] ?? 0;
        return /^-?[\d.,]+%?x?$/.test(v) ? v.padStart(w) : v.padEnd(w);
      })
      .join("  ")
      .trimEnd();
  console.log(line(cols));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(cols.map((c) => cell(row[c]))));
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 2 : 1);
}
