/**
 * The one error type of the sandbox (one error type, one envelope: docs/api.md#errors). Services throw it; the HTTP layer turns
 * it into the interface's error body `{ errorMessage }` with the status its code maps to.
 */
export type ErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL";

export function statusOf(code: ErrorCode): 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 {
  switch (code) {
    case "BAD_REQUEST":
      return 400;
    case "UNAUTHORIZED":
      return 401;
    case "FORBIDDEN":
      return 403;
    case "NOT_FOUND":
      return 404;
    case "CONFLICT":
      return 409;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    case "TOO_MANY_REQUESTS":
      return 429;
    case "INTERNAL":
      return 500;
  }
}

/** One problem of a request (docs/api.md#errors): the dotted field path and why, for a person. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class SandboxError extends Error {
  /** The behaviour of the coverage catalogue this refusal is (docs/coverage.md), counted where it is answered. */
  behaviour: string | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The problems behind a 400, each with its reason; the first is the one `message` names. */
    readonly problems: readonly FieldProblem[] = [],
  ) {
    super(message);
    this.name = "SandboxError";
  }

  get status() {
    return statusOf(this.code);
  }
}

/** `err`, marked as the catalogue behaviour `id` (docs/coverage.md): a refusal a module owns, such as a refund over the remainder. */
export function asBehaviour<E extends SandboxError>(err: E, id: string): E {
  err.behaviour = id;
  return err;
}

export const missingField = (path: string) =>
  new SandboxError("BAD_REQUEST", `Missing required field: ${path}`, [{ field: path, message: "required" }]);
/** `Invalid field: <path>` (the interface's message, unchanged) with the reason a person needs in `errors[]`. */
export const invalidField = (path: string, reason = "invalid value") =>
  new SandboxError("BAD_REQUEST", `Invalid field: ${path}`, [{ field: path, message: reason }]);
export const badRequest = (message: string) => new SandboxError("BAD_REQUEST", message);
export const unauthorized = (message: string) => new SandboxError("UNAUTHORIZED", message);
export const notFound = (message: string) => new SandboxError("NOT_FOUND", message);
export const conflict = (message: string) => new SandboxError("CONFLICT", message);
export const tooMany = (message: string) => new SandboxError("TOO_MANY_REQUESTS", message);
