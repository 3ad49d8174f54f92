// The Node.js lines paysandbox runs on and is tested on (docs/developing.md#nodejs-lines). Checked
// first by every way of starting it (bin/paysandbox.js, `npm start`, `node dist/main.js`), before
// anything else loads: on another line a user gets one line saying which to use, not a syntax
// error or a native abort from the SQLite addon. Plain JavaScript that any Node since 14 parses.

/** The LTS lines paysandbox supports; CI runs the whole test suite on each. */
export const SUPPORTED_NODE_LINES = [22, 24, 26];

/**
 * What to say about a Node version: `undefined` on a supported line; a warning on a line newer than
 * the newest supported (it may well work: nothing there has been tested); an error otherwise.
 */
export function nodeLineVerdict(version) {
  const major = Number(String(version).replace(/^v/, "").split(".")[0]);
  const lines = SUPPORTED_NODE_LINES;
  const newest = lines[lines.length - 1];
  const named = `Node.js ${lines.slice(0, -1).join(", ")} or ${newest}`;
  if (lines.indexOf(major) !== -1) return undefined;
  if (major > newest) {
    return {
      level: "warning",
      message: `paysandbox: Node.js ${version} is newer than the lines it is tested on (${named}); going on`,
    };
  }
  return { level: "error", message: `paysandbox: Node.js ${version} is not supported; use ${named} (the LTS lines)` };
}

let checked = false;

/** Exits with status 1, after one line on stderr, on an unsupported Node; warns once on a newer one. */
export function assertSupportedNode(version = process.versions.node) {
  if (checked) return; // bin/paysandbox.js, then dist/main.js: one line, not two
  checked = true;
  const verdict = nodeLineVerdict(version);
  if (verdict === undefined) return;
  process.stderr.write(`${verdict.message}\n`);
  if (verdict.level === "error") process.exit(1);
}
