/**
 * `paysandbox coverage [--target URL] [--sandbox ID] [--admin-token T] [--format table|json|markdown|junit]
 * [--require FILE] [--fail-under PCT] [--out FILE]` (docs/coverage.md): a sandbox's payment-behaviour
 * coverage, from `GET {base}/_sandbox/coverage`, in the format asked; `--recipe ID` prints instead
 * the steps file that causes one behaviour (no server needed).
 *
 * Exit status: 0; 1 when a behaviour `--require` names was never seen, the share is under
 * `--fail-under`, or the server could not be reached or refused; 2 for a bad flag or checklist.
 */
import { writeFileSync } from "node:fs";
import { behaviourOf } from "../coverage/catalogue.js";
import { type CheckResult, check, readChecks } from "../coverage/checks.js";
import type { CoverageReport } from "../coverage/coverage.wire.js";
import { FORMATS, type Format, junitText, markdownText, tableText } from "../coverage/formats.js";
import { recipeOf } from "../coverage/recipes.js";
import { realNowMs, toIso } from "../platform/clock.js";
import { loadYaml } from "../platform/nesting.js";
import { USAGE_ERROR } from "./run.js";
import { type ServerFlags, serverConnection } from "./server-flags.js";

export interface CoverageOptions extends ServerFlags {
  format?: string;
  require?: string;
  failUnder?: string;
  out?: string;
  recipe?: string;
}

export interface CoverageIo {
  out(text: string): void;
  err(line: string): void;
}

const defaultIo: CoverageIo = {
  out: (text) => process.stdout.write(text),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** The report in `format`, the checks' outcome with it. */
export function formatted(format: Format, report: CoverageReport, c: CheckResult): string {
  switch (format) {
    case "table":
      return tableText(report, c);
    case "markdown":
      return markdownText(report, c);
    case "junit":
      return junitText(report, c, toIso(realNowMs()));
    case "json":
      return `${JSON.stringify(c.required || c.failUnder ? { ...report, check: c } : report, null, 2)}\n`;
  }
}

export async function coverageCommand(opts: CoverageOptions, io: CoverageIo = defaultIo): Promise<number> {
  const usage = (message: string) => {
    io.err(`paysandbox coverage: ${message}`);
    return USAGE_ERROR;
  };
  if (opts.recipe !== undefined) {
    const b = behaviourOf(opts.recipe);
    if (!b) return usage(`--recipe: ${opts.recipe} is not a behaviour of the catalogue (--format json lists them)`);
    const text = loadYaml().stringify(recipeOf(b), { lineWidth: 0 });
    if (opts.out) writeFileSync(opts.out, text);
    else io.out(text);
    return 0;
  }
  const format = (opts.format ?? "table") as Format;
  if (!FORMATS.includes(format))
    return usage(`--format: expected one of ${FORMATS.join(", ")}, got ${JSON.stringify(opts.format)}`);
  const checks = readChecks(opts);
  if ("error" in checks) return usage(checks.error);
  const server = serverConnection(opts);
  if ("error" in server) return usage(server.error);
  const url = `${server.base}/_sandbox/coverage`;
  let report: CoverageReport;
  try {
    const res = await fetch(url, { headers: { accept: "application/json", ...server.auth } });
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { errorMessage?: string }).errorMessage ?? text;
      } catch {}
      io.err(`paysandbox coverage: GET ${url} answered ${res.status}: ${message}`);
      return 1;
    }
    report = JSON.parse(text) as CoverageReport;
  } catch (err) {
    io.err(`paysandbox coverage: cannot reach ${server.target}: ${(err as Error).message}`);
    return 1;
  }
  const c = check(report, checks);
  const text = formatted(format, report, c);
  if (opts.out) writeFileSync(opts.out, text);
  else io.out(text);
  if (!c.passed && (opts.out || format !== "table")) {
    // the table says it already; other formats (or a file) get the reason on stderr too
    if (c.required && c.required.missing.length > 0) {
      io.err(
        `paysandbox coverage: ${c.required.missing.length} behaviour(s) required by ${c.required.file} never seen: ${c.required.missing.map((b) => b.id).join(", ")}`,
      );
    }
    if (c.failUnder?.under) io.err(`paysandbox coverage: ${report.percent}% seen, under --fail-under ${c.failUnder.percent}`);
  }
  return c.passed ? 0 : 1;
}
