/**
 * What CI asks of a coverage report (docs/coverage.md#in-ci): a checklist of behaviours that must
 * have been seen (`--require FILE`, a YAML list of ids, such as checklists/go-live.yaml), a share of
 * the catalogue it must not be under (`--fail-under PCT`), and several reports as one (the files of
 * `paysandbox run --coverage`, each in a sandbox of its own).
 */
import { readFileSync } from "node:fs";
import { loadYaml } from "../platform/nesting.js";
import { nearestKey } from "../platform/unknown-keys.js";
import { behaviourOf, catalogue } from "./catalogue.js";
import type { CoverageBehaviourEntry, CoverageReport } from "./coverage.wire.js";

/** A checklist read from its file: the ids it requires, in its order. */
export interface Checklist {
  file: string;
  ids: string[];
}

/**
 * A checklist file: a YAML (or JSON) list of behaviour ids, or a mapping with that list as
 * `behaviours` (and a `name`, a `description`). Throws an Error naming the file and what is wrong
 * (an id the catalogue does not have, with the nearest one).
 */
export function readChecklist(file: string): Checklist {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`${file}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = loadYaml().parse(text);
  } catch (err) {
    throw new Error(`${file}: not YAML: ${(err as Error).message.split("\n")[0]}`);
  }
  const list = Array.isArray(doc) ? doc : (doc as { behaviours?: unknown } | null)?.behaviours;
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error(`${file}: expected a list of behaviour ids (or a mapping with one as \`behaviours\`)`);
  }
  const ids: string[] = [];
  list.forEach((id, i) => {
    if (typeof id !== "string") throw new Error(`${file}: [${i}]: expected a behaviour id, got ${JSON.stringify(id)}`);
    if (!behaviourOf(id)) throw new Error(`${file}: [${i}]: ${id} is not a behaviour of the catalogue${nearest(id)}`);
    if (!ids.includes(id)) ids.push(id);
  });
  return { file, ids };
}

/** ` (did you mean card.payment.failed.decline-5?)`: the nearest id of the catalogue, when one is near. */
function nearest(id: string): string {
  const near = nearestKey(
    id,
    catalogue().map((b) => b.id),
  );
  return near ? ` (did you mean ${near}?)` : "";
}

/** What the checks were asked for: a checklist, a floor; or the flag that is wrong. */
export function readChecks(opts: {
  require?: string | undefined;
  failUnder?: string | undefined;
}): { required?: Checklist; failUnder?: number } | { error: string } {
  let failUnder: number | undefined;
  if (opts.failUnder !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(opts.failUnder) || Number(opts.failUnder) > 100) {
      return { error: `--fail-under: expected a percentage from 0 to 100, got ${JSON.stringify(opts.failUnder)}` };
    }
    failUnder = Number(opts.failUnder);
  }
  let required: Checklist | undefined;
  if (opts.require !== undefined) {
    try {
      required = readChecklist(opts.require);
    } catch (err) {
      return { error: `--require: ${(err as Error).message}` };
    }
  }
  return { ...(required ? { required } : {}), ...(failUnder === undefined ? {} : { failUnder }) };
}

/** The outcome of the checks: what a required list misses, and whether the share is under the floor. */
export interface CheckResult {
  required?: { file: string; ids: string[]; total: number; seen: number; missing: CoverageBehaviourEntry[] };
  failUnder?: { percent: number; under: boolean };
  passed: boolean;
}

export function check(report: CoverageReport, opts: { required?: Checklist; failUnder?: number }): CheckResult {
  const out: CheckResult = { passed: true };
  if (opts.required) {
    const byId = new Map(report.behaviours.map((b) => [b.id, b]));
    const wanted = opts.required.ids.map((id) => byId.get(id)).filter((b): b is CoverageBehaviourEntry => b !== undefined);
    const missing = wanted.filter((b) => b.count === 0);
    out.required = {
      file: opts.required.file,
      ids: opts.required.ids,
      total: wanted.length,
      seen: wanted.length - missing.length,
      missing,
    };
    if (missing.length > 0) out.passed = false;
  }
  if (opts.failUnder !== undefined) {
    const under = report.percent < opts.failUnder;
    out.failUnder = { percent: opts.failUnder, under };
    if (under) out.passed = false;
  }
  return out;
}

/**
 * Several sandboxes' reports as one (each file of `paysandbox run --coverage` ran in its own):
 * counts added up, the first evidence the earliest of them (its `file` says whose).
 */
export function mergeReports(reports: ReadonlyArray<{ file: string; report: CoverageReport }>): CoverageReport {
  const first = reports[0]?.report;
  if (!first) throw new Error("no coverage report to merge");
  const behaviours = first.behaviours.map((b) => {
    let count = 0;
    let earliest: CoverageBehaviourEntry["first"] = null;
    for (const { file, report } of reports) {
      const mine = report.behaviours.find((x) => x.id === b.id);
      if (!mine || mine.count === 0) continue;
      count += mine.count;
      if (mine.first && (earliest === null || mine.first.at < earliest.at)) earliest = { ...mine.first, file };
    }
    return { ...b, count, first: earliest };
  });
  const seen = behaviours.filter((b) => b.count > 0);
  const pct = (n: number, of: number) => (of === 0 ? 0 : Math.floor((n / of) * 1000) / 10);
  return {
    now:
      reports
        .map((r) => r.report.now)
        .sort()
        .at(-1) ?? first.now,
    total: behaviours.length,
    seen: seen.length,
    percent: pct(seen.length, behaviours.length),
    areas: first.areas.map((a) => {
      const of = behaviours.filter((b) => b.area === a.area);
      const n = of.filter((b) => b.count > 0).length;
      return { ...a, total: of.length, seen: n, percent: pct(n, of.length) };
    }),
    behaviours,
    unseen: behaviours.filter((b) => b.count === 0).map((b) => b.id),
  };
}
