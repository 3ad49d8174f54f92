/**
 * Strings any YAML reader takes back exactly (docs/recording.md). YAML 1.2 allows only printable
 * characters in a document: not the C0 controls but tab and line breaks, not DEL, not the C1
 * controls, not U+FFFE/U+FFFF, nor a BOM inside a document; such a character is written as an
 * escape in a double-quoted scalar. NEL, LS and PS are printable but YAML 1.1 readers (PyYAML,
 * libyaml) take them as line breaks, so they are escaped too (`\N`, `\L`, `\P`), and so is a CR.
 * A lone UTF-16 surrogate is no character at all: it becomes U+FFFD.
 */
import type { Document } from "yaml";
import { loadYaml } from "../platform/nesting.js";

/** Written as escapes wherever they occur. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const UNPRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/g;
/** A scalar holding one of these is double-quoted, the only style with escapes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const NEEDS_ESCAPES = /[\x00-\x08\x0B-\x1F\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/;

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed = (text: string): string => text.replace(LONE_SURROGATE, "\uFFFD");

const NAMED: Record<string, string> = { "\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P" };
const escapeOf = (ch: string): string => {
  const code = ch.charCodeAt(0);
  return NAMED[ch] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`);
};

/** A comment's text with what a document cannot hold shown as `\xNN` / `\uNNNN` (comments have no escapes). */
export const commentText = (text: string): string => wellFormed(text).replace(/\r/g, "\\r").replace(UNPRINTABLE, escapeOf);

/**
 * The document's text with every string safe: scalars holding a character above are double-quoted
 * (keys too), lone surrogates replaced, and what the writer left raw escaped. Comments must have
 * gone through commentText.
 */
export function yamlText(doc: Document): string {
  loadYaml().visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== "string") return;
      const value = wellFormed(node.value);
      node.value = value;
      if (NEEDS_ESCAPES.test(value)) node.type = "QUOTE_DOUBLE";
    },
  });
  // only double-quoted scalars can hold them now: there, the escape reads back as the character
  return doc.toString({ lineWidth: 0 }).replace(UNPRINTABLE, escapeOf);
}
