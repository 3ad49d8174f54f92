/**
 * A coverage report as `paysandbox coverage` and `paysandbox run --coverage` print it
 * (docs/coverage.md#the-command): a table for people, Markdown (a CI job's summary, a pull request),
 * JUnit XML (each required behaviour a test case, so a CI dashboard shows the gaps) and JSON. With
 * a checklist, what it misses comes with each behaviour's hint.
 */
import { hostname } from "node:os";
import type { CheckResult } from "./checks.js";
import type { CoverageBehaviourEntry, CoverageEvidence, CoverageReport } from "./coverage.wire.js";

export const FORMATS = ["table", "json", "markdown", "junit"] as const;
export type Format = (typeof FORMATS)[number];

/** What the first evidence names: the transaction, subscription, delivery or call, and when. */
export function evidenceText(e: CoverageEvidence): string {
  const what = e.transactionId ?? e.subscriptionId ?? e.deliveryId ?? e.request ?? "";
  return `${what}${what ? " " : ""}at ${e.at}${e.file ? ` (${e.file})` : ""}`;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));

/** The closing lines of a check: what a checklist misses (with hints) and the floor, when asked. */
function checkLines(c: CheckResult): string[] {
  const out: string[] = [];
  if (c.required) {
    const r = c.required;
    out.push("", `Required by ${r.file}: ${r.seen} of ${r.total} seen`);
    if (r.missing.length > 0) {
      out.push("Missing:");
      for (const b of r.missing) out.push(`  ${b.id}  ${b.title}`, `      hint: ${b.hint}`);
    }
  }
  if (c.failUnder) {
    out.push(
      c.failUnder.under
        ? `Coverage is under ${c.failUnder.percent}% (--fail-under)`
        : `Coverage is at least ${c.failUnder.percent}%`,
    );
  }
  return out;
}

/** For people: the share, each area's, every behaviour seen (how often, first evidence), then the checks. */
export function tableText(report: CoverageReport, c: CheckResult = { passed: true }): string {
  const lines = [`Payment-behaviour coverage: ${report.seen} of ${report.total} behaviours seen (${report.percent}%)`, ""];
  const width = Math.max(...report.areas.map((a) => a.title.length));
  for (const a of report.areas) lines.push(`  ${pad(a.title, width)}  ${pad(`${a.seen} of ${a.total}`, 9)} ${a.percent}%`);
  const seen = report.behaviours.filter((b) => b.count > 0);
  if (seen.length > 0) {
    const idWidth = Math.max(...seen.map((b) => b.id.length));
    lines.push("", "Seen:");
    for (const b of seen) lines.push(`  ${pad(b.id, idWidth)}  ${pad(`${b.count}×`, 6)} ${b.first ? evidenceText(b.first) : ""}`);
  }
  lines.push(
    "",
    `Never seen: ${report.unseen.length} (their hints: --format markdown, --format json, or the dashboard's Coverage page)`,
  );
  lines.push(...checkLines(c));
  return `${lines.join("\n")}\n`;
}

const md = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** Markdown: the share by area, then each area's behaviours, seen ones with their count, the others with their hint. */
export function markdownText(report: CoverageReport, c: CheckResult = { passed: true }): string {
  const out = [`# Payment-behaviour coverage: ${report.seen} of ${report.total} (${report.percent}%)`, ""];
  if (c.required) {
    const r = c.required;
    out.push(`**Required by \`${r.file}\`: ${r.seen} of ${r.total} seen.**`, "");
    if (r.missing.length > 0) {
      out.push("| Missing | Hint |", "| --- | --- |");
      for (const b of r.missing) out.push(`| \`${b.id}\` ${md(b.title)} | ${md(b.hint)} |`);
      out.push("");
    }
  }
  if (c.failUnder?.under) out.push(`**Coverage is under ${c.failUnder.percent}%.**`, "");
  out.push("| Area | Seen | Total | % |", "| --- | ---: | ---: | ---: |");
  for (const a of report.areas) out.push(`| ${md(a.title)} | ${a.seen} | ${a.total} | ${a.percent} |`);
  for (const a of report.areas) {
    out.push("", `## ${a.title}`, "", "| | Behaviour | Count | First seen, or how to cause it |", "| --- | --- | ---: | --- |");
    for (const b of report.behaviours.filter((x) => x.area === a.area)) {
      const seen = b.count > 0;
      out.push(
        `| ${seen ? "✓" : "✗"} | \`${b.id}\` ${md(b.title)} | ${b.count} | ${md(seen && b.first ? evidenceText(b.first) : b.hint)} |`,
      );
    }
  }
  return `${out.join("\n")}\n`;
}

/** XML 1.0 text: control characters it forbids dropped, markup characters escaped. */
const xml = (s: string) =>
  [...s]
    .filter((ch) => {
      const code = ch.charCodeAt(0);
      return code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
    })
    .join("")
    .replace(/[<>&"']/g, (ch) => `&${{ "<": "lt", ">": "gt", "&": "amp", '"': "quot", "'": "apos" }[ch]};`);

/**
 * JUnit XML (the Ant/Jenkins format the runner's `--junit` writes): one `<testsuite>` per area, one
 * `<testcase>` per behaviour (only the required ones with a checklist): seen passes, a required one
 * never seen fails with its hint, any other never seen is skipped with its hint; `--fail-under` is
 * a test case of its own.
 */
export function junitText(report: CoverageReport, c: CheckResult, startedAtIso: string): string {
  const wanted = c.required ? new Set(c.required.ids) : undefined;
  const host = xml(hostname() || "localhost");
  const stamp = startedAtIso.replace(/\.\d+Z$|Z$/, "");
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  report.areas.forEach((a, id) => {
    const cases = report.behaviours.filter((b) => b.area === a.area && (!wanted || wanted.has(b.id)));
    if (cases.length === 0) return;
    const failed = cases.filter((b) => b.count === 0 && wanted !== undefined).length;
    const skipped = cases.filter((b) => b.count === 0 && wanted === undefined).length;
    tests += cases.length;
    failures += failed;
    suites.push(
      `  <testsuite name="${xml(a.title)}" package="coverage.${xml(a.area)}" id="${id}" hostname="${host}" timestamp="${stamp}" tests="${cases.length}" failures="${failed}" errors="0" skipped="${skipped}" time="0">`,
      "    <properties/>",
      ...cases.flatMap((b) => testcase(b, wanted !== undefined)),
      "    <system-out/>",
      "    <system-err/>",
      "  </testsuite>",
    );
  });
  if (c.failUnder) {
    const under = c.failUnder.under;
    tests++;
    if (under) failures++;
    const head = `    <testcase name="at least ${c.failUnder.percent}% of the catalogue seen" classname="coverage" time="0"`;
    suites.push(
      `  <testsuite name="Share of the catalogue" package="coverage" id="${report.areas.length}" hostname="${host}" timestamp="${stamp}" tests="1" failures="${under ? 1 : 0}" errors="0" skipped="0" time="0">`,
      "    <properties/>",
      ...(under
        ? [
            `${head}>`,
            `      <failure message="${report.percent}% seen" type="CoverageUnder">${xml(`${report.seen} of ${report.total} behaviours seen (${report.percent}%)`)}</failure>`,
            "    </testcase>",
          ]
        : [`${head}/>`]),
      "    <system-out/>",
      "    <system-err/>",
      "  </testsuite>",
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="paysandbox coverage" tests="${tests}" failures="${failures}" errors="0" time="0">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}

function testcase(b: CoverageBehaviourEntry, required: boolean): string[] {
  const head = `    <testcase name="${xml(`${b.id}: ${b.title}`)}" classname="coverage.${xml(b.area)}" time="0"`;
  if (b.count > 0) return [`${head}/>`];
  if (required) {
    return [
      `${head}>`,
      `      <failure message="${xml(`never seen: ${b.title}`)}" type="BehaviourNotSeen">${xml(`hint: ${b.hint}`)}</failure>`,
      "    </testcase>",
    ];
  }
  return [`${head}>`, `      <skipped message="${xml(`never seen; hint: ${b.hint}`)}"/>`, "    </testcase>"];
}
