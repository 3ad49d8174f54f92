/**
 * How deep a JSON or YAML document nests, judged before anything recurses over it (docs/api.md:
 * bad input is a 4xx, never a 5xx). Parsers, validators, hashing and JSON.stringify take a stack
 * frame or more per level, and a 1 MiB body can nest half a million levels: such a body answered
 * 500 (`Maximum call stack size exceeded`), and a deep YAML sequence could exhaust the heap. A
 * document may nest at most MAX_DEPTH arrays and objects (mappings and sequences); the scans here
 * are loops over the text or the value, never recursion.
 *
 * LIMITATIONS:
 * - the YAML scan models block structure by columns from the yaml package's lexer; on malformed
 *   YAML it may count a level too many or too few (the parse that follows refuses such a text);
 * - an alias counts as deep as what it names, checked on the parsed value (yamlValueTooDeep).
 */
import { createRequire } from "node:module";

/** The deepest a request body or a scenario document may nest (arrays and objects; YAML sequences and mappings). */
export const MAX_DEPTH = 64;

/** At most this many alias expansions in a YAML document (the yaml package's guard against "billion laughs" documents). */
export const MAX_YAML_ALIASES = 100;

/** True when JSON text nests more than `limit` arrays and objects. Exact for valid JSON; one pass, no parse. */
export function jsonTooDeep(text: string, limit = MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

type YamlModule = typeof import("yaml");
let yamlModule: YamlModule | undefined;
/** Loaded on first use: most starts read no YAML, and cold start need not load it. */
export const loadYaml = (): YamlModule => {
  yamlModule ??= createRequire(import.meta.url)("yaml") as YamlModule;
  return yamlModule;
};

/**
 * True when YAML text nests more than `limit` sequences and mappings, from the lexer's tokens
 * (linear, no parse, aliases not expanded). Flow collections count their brackets; block ones are
 * tracked by column as the composer nests them: an indicator (`-`, `?`) or an implicit key further
 * right than the open collection opens a new one, further left closes it, and a sequence may sit
 * at its parent mapping's column (an indentless sequence).
 */
export function yamlTooDeep(text: string, limit = MAX_DEPTH): boolean {
  const { Lexer, CST } = loadYaml();
  const open: Array<{ col: number; seq: boolean }> = [];
  let flow = 0;
  let col = 0;
  let nodeCol: number | undefined; // where the node being read on this line started (a key, if `:` follows)
  let scalarNext = false;
  const block = (c: number, seq: boolean): boolean => {
    while (open.length > 0 && (open.at(-1) as { col: number }).col > c) open.pop();
    let top = open.at(-1);
    if (top && top.col === c && top.seq !== seq) {
      if (top.seq) {
        open.pop(); // a key at the column of an indentless sequence ends it
        top = open.at(-1);
      } else top = undefined; // an indentless sequence: the mapping's value
    }
    if (!top || top.col !== c || top.seq !== seq) open.push({ col: c, seq });
    return open.length + flow > limit;
  };
  for (const token of new Lexer().lex(text)) {
    const start = col;
    const nl = token.lastIndexOf("\n");
    col = nl >= 0 ? token.length - nl - 1 : col + token.length;
    if (scalarNext) {
      // a scalar's source (plain, or a block scalar's body), whatever its first character
      scalarNext = false;
      if (flow === 0) nodeCol ??= start;
      continue;
    }
    switch (CST.tokenType(token)) {
      case "scalar":
        scalarNext = true;
        col = start; // the marker takes no room
        break;
      case "doc-mode":
      case "byte-order-mark":
        col = start;
        break;
      case "flow-error-end":
        col = start;
        flow = 0; // the lexer is back in block context
        break;
      case "doc-start":
        open.length = 0;
        flow = 0;
        nodeCol = undefined;
        break;
      case "newline":
        nodeCol = undefined;
        break;
      case "flow-map-start":
      case "flow-seq-start":
        if (flow === 0) nodeCol ??= start;
        if (++flow + open.length > limit) return true;
        break;
      case "flow-map-end":
      case "flow-seq-end":
        if (flow > 0) flow--;
        break;
      case "seq-item-ind":
        if (flow === 0) {
          if (block(start, true)) return true;
          nodeCol = undefined;
        }
        break;
      case "explicit-key-ind":
        if (flow === 0) {
          if (block(start, false)) return true;
          nodeCol = undefined;
        }
        break;
      case "map-value-ind":
        if (flow === 0) {
          if (block(nodeCol ?? start, false)) return true;
          nodeCol = undefined;
        }
        break;
      case "alias":
      case "anchor":
      case "tag":
      case "single-quoted-scalar":
      case "double-quoted-scalar":
      case "block-scalar-header":
        if (flow === 0) nodeCol ??= start;
        break;
      default:
        break; // space, comment, comma, directive, doc-end
    }
  }
  return false;
}

/**
 * True when a parsed value nests more than `limit` arrays and objects, counting shared values
 * (YAML aliases) as deep as they are without walking them twice; a cycle (an alias inside what it
 * names) is too deep. Iterative: the walk's own stack never passes `limit + 1` frames.
 */
export function valueTooDeep(value: unknown, limit = MAX_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  const height = new Map<object, number>();
  type Frame = { node: object; kids: unknown[]; next: number; height: number };
  const frames: Frame[] = [];
  const push = (node: object) => frames.push({ node, kids: Object.values(node), next: 0, height: 1 });
  push(value);
  while (frames.length > 0) {
    if (frames.length > limit) return true;
    const top = frames[frames.length - 1] as Frame;
    if (top.next < top.kids.length) {
      const kid = top.kids[top.next++];
      if (kid === null || typeof kid !== "object") continue;
      const known = height.get(kid);
      if (known === undefined) push(kid);
      else if (frames.length + known > limit) return true;
      else top.height = Math.max(top.height, known + 1);
    } else {
      frames.pop();
      height.set(top.node, top.height);
      const parent = frames[frames.length - 1];
      if (parent) parent.height = Math.max(parent.height, top.height + 1);
    }
  }
  return false;
}
