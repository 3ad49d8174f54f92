/**
 * `paysandbox run FILE... [--target URL [--keep]] [--admin-token T] [--parallel N] [--junit OUT.xml]
 * [--reporter pretty|json]` (docs/run.md): validates every file first (exit 2 naming the file and
 * the path), runs them side by side in this process, prints each file's lines together and in the
 * files' order (the first unfinished file live, the others when their turn comes) and
 * `N passed, M failed`, exits 0 or 1.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
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
}

/** Returns the exit status: 0 all passed, 1 any failed, 2 a file missing or invalid. */
export async function runCommand(files: string[], opts: RunCommandOptions): Promise<number> {
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
  if (pretty) {
    for (const f of results) {
      if (f.error) out.write(`${f.file}: could not run: ${f.error}\n`);
    }
    out.write(`${summaryLines(t).join("\n")}\n`);
  } else {
    out.write(`${jsonReport(results)}\n`);
  }
  if (opts.junit) {
    mkdirSync(dirname(opts.junit), { recursive: true });
    writeFileSync(opts.junit, junitReport(results, startedAt));
  }
  return exitCodeOf(t);
}
