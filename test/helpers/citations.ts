/**
 * Citations of documents the repository does not hold (the team's contract, the live interface's
 * spec, the tracker, the house-style list): a reader of this repo cannot follow them, so code,
 * tests and docs say the fact in place or link a docs page (docs/*.md). Used by
 * test/unit/docs.test.ts (README.md and docs/) and test/unit/citations.test.ts (the code).
 * Written with escapes so that this file does not itself cite anything.
 */
export const OUTSIDE = /\u00a7|\bCONTRACT\b|\b[Ii]nterface\s+(?:section\s+)?\d|\b[Ii]ssues?\s+#?\d+|\b[Hh]ouse style\s+\d/g;

/** `path:line: "match" in: text` for each citation in `text`. */
export function citationsIn(path: string, text: string): string[] {
  const cited: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(OUTSIDE)) cited.push(`${path}:${i + 1}: "${m[0]}" in: ${line.trim().slice(0, 100)}`);
  });
  return cited;
}
