/**
 * One job per file (docs/developing.md#one-job-per-file): a file in src/ longer than MAX_LINES
 * lines opens with a comment whose first line starts with "One job:" and names the one thing it
 * does; any other file that long is to be split.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const MAX_LINES = 400;
/**
 * Files being split on another branch: each is held to the rule once that lands (the last test
 * below says when to take one off this list). Empty today.
 */
const BEING_SPLIT = new Set<string>();

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Whether the file opens with a comment whose first line starts with "One job:". */
function namesOneJob(text: string): boolean {
  return /^(?:\/\*\*?\s*\n?\s*\*?\s*|\/\/\s*)One job:/.test(text);
}

function overLimit(): Array<{ file: string; lines: number; named: boolean }> {
  return sources(join(ROOT, "src")).flatMap((path) => {
    const text = readFileSync(path, "utf8");
    const lines = lineCount(text);
    return lines > MAX_LINES ? [{ file: relative(ROOT, path), lines, named: namesOneJob(text) }] : [];
  });
}

describe("one job per file", () => {
  it(`no file in src/ passes ${MAX_LINES} lines without a first comment naming its one job`, () => {
    const unnamed = overLimit()
      .filter((f) => !f.named && !BEING_SPLIT.has(f.file))
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(unnamed).toEqual([]);
  });

  it("the marker is the first line of the file's first comment", () => {
    expect(namesOneJob("/**\n * One job: the registry of sandboxes.\n */\nexport {};\n")).toBe(true);
    expect(namesOneJob("/** One job: the registry. */\n")).toBe(true);
    expect(namesOneJob("// One job: the registry.\n")).toBe(true);
    expect(namesOneJob("/**\n * The registry.\n * One job: no, not the first line.\n */\n")).toBe(false);
    expect(namesOneJob('import x from "y";\n/** One job: too late. */\n')).toBe(false);
  });

  it("a file listed as being split is still over the limit without the marker (else take it off the list)", () => {
    const still = new Set(
      overLimit()
        .filter((f) => !f.named)
        .map((f) => f.file),
    );
    expect([...BEING_SPLIT].filter((f) => !still.has(f))).toEqual([]);
  });
});
