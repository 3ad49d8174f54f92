/**
 * The code cites only what the repository holds: no comment, test name or message in src/, test/,
 * bench/, scripts/ or bin/ points at a section of a document outside it (the rule and its forms:
 * test/helpers/citations.ts; README.md and docs/ are held to it in test/unit/docs.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { citationsIn } from "../helpers/citations.js";

const ROOT = resolve(import.meta.dirname, "../..");
const FOLDERS = ["src", "test", "bench", "scripts", "bin"];
const TEXT = /\.(?:[cm]?[jt]sx?|json|ya?ml|md|sh)$/;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "__screenshots__") out.push(...files(path));
    } else if (TEXT.test(entry.name)) out.push(path);
  }
  return out;
}

describe("code: self-contained citations", () => {
  it("no file in src/, test/, bench/, scripts/ or bin/ cites a document the repository does not hold", () => {
    const cited: string[] = [];
    let read = 0;
    for (const folder of FOLDERS)
      for (const path of files(join(ROOT, folder))) {
        read++;
        cited.push(...citationsIn(relative(ROOT, path), readFileSync(path, "utf8")));
      }
    expect(read).toBeGreaterThan(100);
    expect(cited).toEqual([]);
  });

  it("the rule catches a citation in a comment", () => {
    const section = "\u00a7";
    expect(citationsIn("x.ts", `// the callback (${"interface"} ${section}6.2)\nconst a = 1;`)).toHaveLength(1);
    expect(citationsIn("x.ts", `/** measured (${"issue"} 19: 3%) */`)).toHaveLength(1);
    expect(citationsIn("x.ts", "// the callback (docs/webhooks.md)")).toEqual([]);
  });
});
