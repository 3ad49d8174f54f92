/**
 * Where a JSON text breaks, for the 400 of a malformed body (docs/api.md, errors): line and column
 * (1-based) and offset (0-based, in UTF-16 code units) of the first error, and what was expected
 * there. V8's own messages give a position only for some errors and quote the text around it
 * (a card number among it), so the position comes from jsonc-parser's scanner run strictly (no
 * comments, no trailing commas), and the reason from its error code, never from the text.
 */
// its ES module build: the package's main (UMD) requires its parts at run time, which the bundle in dist/ cannot follow
import { type ParseError, parse, printParseErrorCode } from "jsonc-parser/lib/esm/main.js";

const REASONS: Record<ReturnType<typeof printParseErrorCode>, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected "," or a closing bracket',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "unexpected text after the end of the JSON value",
  InvalidCommentToken: "comments are not allowed",
  UnexpectedEndOfComment: "comments are not allowed",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "incomplete number",
  InvalidUnicode: 'invalid "\\u" escape',
  InvalidEscapeCharacter: "invalid escape sequence",
  InvalidCharacter: "control character in a string (escape it)",
  "<unknown ParseErrorCode>": "invalid JSON",
};

export interface JsonSyntaxError {
  line: number;
  column: number;
  offset: number;
  reason: string;
}

/** The first syntax error of `text`, or undefined when jsonc-parser finds none. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return undefined;
  const offset = Math.min(first.offset, text.length);
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return { line, column, offset, reason: REASONS[printParseErrorCode(first.error)] };
}

/** `Malformed JSON in request body at line 1, column 8 (offset 7): expected a value`. */
export function malformedJsonMessage(text: string | undefined): string {
  const at = text === undefined ? undefined : jsonSyntaxError(text);
  if (!at) return "Malformed JSON in request body";
  const reason = text?.trim() === "" ? "the body is empty" : at.reason;
  return `Malformed JSON in request body at line ${at.line}, column ${at.column} (offset ${at.offset}): ${reason}`;
}
