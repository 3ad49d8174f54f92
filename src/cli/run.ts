/**
 * `paysandbox run FILE... [--target URL [--keep]] [--admin-token T] [--parallel N] [--junit OUT.xml]
 * [--reporter pretty|json]` (docs/run.md): validates every file first (exit 2 naming the file and
 * the path), runs them side by side in this process, prints each file's lines together and in the
 * files' order (the first unfinished file live, the others when their turn comes) and
 * `N passed, M failed`, exits 0 or 1.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { check, mergeReports, readChecks } from "../coverage/checks.js";
import { tableText } from "../coverage/formats.js";
import { realNowMs, toIso } from "../platform/clock.js";
import { type LoadedFile, loadScenarioFile } from "../runner/load.js";
import { exitCodeOf, fileLine, InFileOrder, jsonReport, junitReport, stepLines, summaryLines, totals } from "../runner/report.js";
import { defaultParallel, runFiles } from "../runner/run.js";

/** Exit status of a command-line mistake (unknown flag, missing or invalid file): the same as a bad setting. */
export const USAGE_ERROR = 2;
/** `--parallel` at most. */
export const MAX_PARALLEL = 64;

export interface RunCommandOptions {
  target?: string;
  adminToken?: string;
  keep?: boolean;
  /** Files at once, as typed (`--parallel 4`); default the number of files up to 8. */
  parallel?: string | number;
  junit?: string;
  reporter: "pretty" | "json";
  /** Read each file's sandbox's coverage and print them merged (docs/coverage.md#paysandbox-run---coverage). */
  coverage?: boolean;
  /** A checklist the merged coverage must meet (implies `coverage`). */
  require?: string;
}

/** Returns the exit status: 0 all passed, 1 any failed (or a required behaviour never seen), 2 a file missing or invalid. */
export async function runCommand(files: string[], opts: RunCommandOptions): Promise<number> {
  const checks = readChecks({ require: opts.require });
  if ("error" in checks) {
    console.error(`paysandbox run: ${checks.error}`);
    return USAGE_ERROR;
  }
  const coverage = opts.coverage === true || opts.require !== undefined;
  const loaded: LoadedFile[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const r = loadScenarioFile(file);
    if (r.ok) loaded.push(r.loaded);
    else problems.push(`paysandbox run: ${r.file}: ${r.message}`);
  }
  if (problems.length > 0) {
    for (const p of problems) console.error(p);
    return USAGE_ERROR;
  }
  if (opts.target !== undefined && !/^https?:\/\/[^/]+/.test(opts.target)) {
    console.error(`paysandbox run: --target: expected an http(s) URL, got ${JSON.stringify(opts.target)}`);
    return USAGE_ERROR;
  }
  if (opts.keep && opts.target === undefined) {
    console.error("paysandbox run: --keep: keeps the sandbox made on the --target server; give --target URL");
    return USAGE_ERROR;
  }
  let parallel = defaultParallel(loaded.length);
  if (opts.parallel !== undefined) {
    const text = String(opts.parallel);
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_PARALLEL) {
      console.error(`paysandbox run: --parallel: expected a whole number from 1 to ${MAX_PARALLEL}, got ${JSON.stringify(text)}`);
      return USAGE_ERROR;
    }
    parallel = Number(text);
  }

  const pretty = opts.reporter === "pretty";
  const out = process.stdout;
  const live = pretty && out.isTTY === true;
  const label = opts.target ?? "fresh in-process sandbox";
  let progress = false;
  const clearProgress = () => {
    if (progress) out.write("\r\x1b[K");
    progress = false;
  };
  const print = new InFileOrder(loaded.length, (text) => {
    clearProgress();
    out.write(text);
  });
  const startedAt = toIso(realNowMs());
  const results = await runFiles(loaded, {
    ...(opts.target !== undefined ? { target: opts.target } : {}),
    ...(opts.adminToken ? { adminToken: opts.adminToken } : {}),
    ...(opts.keep ? { keep: true } : {}),
    ...(coverage ? { coverage: true } : {}),
    parallel,
    onFileStart: (f, i) => {
      // a file with `snapshot:` says where its sandbox started (docs/snapshots.md)
      const from = f.snapshot ? `${opts.target ? `${label}, ` : "in-process sandbox "}from ${f.scenario.snapshot}` : label;
      if (pretty) print.write(i, `${fileLine({ file: f.file, scenario: f.scenario.name }, from)}\n`);
    },
    onStepStart: (f, index, name, i) => {
      // the progress line is the file being printed live's
      if (!live || !print.isLive(i)) return;
      const total = f.scenario.steps?.length ?? 0;
      out.write(`\r\x1b[K  … [${index + 1}/${total}] ${name}`.slice(0, (out.columns || 80) + 4));
      progress = true;
    },
    onStepEnd: (_f, r, i) => {
      if (pretty) print.write(i, `${stepLines(r).join("\n")}\n`);
    },
    onFileEnd: (_f, r, i) => {
      if (pretty && r.note) print.write(i, `${r.note}\n`);
      print.end(i);
    },
  });
  clearProgress();
  const t = totals(results);
  // every file's sandbox's coverage as one report (docs/coverage.md)
  const reports = results.flatMap((f) => (f.coverage ? [{ file: f.file, report: f.coverage }] : []));
  const merged = coverage && reports.length > 0 ? mergeReports(reports) : undefined;
  const covered = merged ? check(merged, checks) : undefined;
  if (pretty) {
    for (const f of results) {
      if (f.error) out.write(`${f.file}: could not run: ${f.error}\n`);
    }
    if (merged && covered) out.write(`\n${tableText(merged, covered)}\n`);
    else if (coverage) out.write("\nno coverage: no file's sandbox answered GET /_sandbox/coverage\n\n");
    out.write(`${summaryLines(t).join("\n")}\n`);
  } else if (coverage) {
    const doc = JSON.parse(jsonReport(results)) as Record<string, unknown>;
    out.write(`${JSON.stringify({ ...doc, coverage: merged ? { ...merged, check: covered } : null }, null, 2)}\n`);
  } else {
    out.write(`${jsonReport(results)}\n`);
  }
  if (opts.junit) {
    mkdirSync(dirname(opts.junit), { recursive: true });
    writeFileSync(opts.junit, junitReport(results, startedAt));
  }
  const unmet = coverage && !covered?.passed;
  return exitCodeOf(t) || (unmet ? 1 : 0);
}
