/**
 * The gateway's error answers in the catalogue (docs/coverage.md#the-catalogue), one per kind of the
 * one error type (src/platform/errors.ts): the table below has a row for every ErrorCode, so a new
 * code fails the build until it says what it is here. Counted where the answer is made, on the
 * gateway's paths only (src/coverage/coverage.service.ts `answered`).
 */
import { type Behaviour, type Cause, cause } from "../../platform/behaviours.js";
import { type ErrorCode, statusOf } from "../../platform/errors.js";

const ERRORS: Record<ErrorCode, { id: string; title: string; cause: Cause } | null> = {
  BAD_REQUEST: {
    id: "api.error.validation",
    title: "A call refused as invalid (400)",
    cause: cause({ act: "bad-call", fault: "body" }),
  },
  UNAUTHORIZED: {
    id: "api.error.authentication",
    title: "A call refused for its credentials (401)",
    cause: cause({ act: "bad-call", fault: "token" }),
  },
  // no gateway route answers it
  FORBIDDEN: null,
  NOT_FOUND: {
    id: "api.error.not-found",
    title: "A call for an unknown id (404)",
    cause: cause({ act: "bad-call", fault: "unknown id" }),
  },
  CONFLICT: {
    id: "api.error.conflict",
    title: "A call refused as a conflict (409)",
    cause: cause({ act: "pay" }, { act: "again", changed: true }),
  },
  // a transport limit (src/http/body.ts), met before any route: not an answer an integration handles
  PAYLOAD_TOO_LARGE: null,
  TOO_MANY_REQUESTS: {
    id: "api.error.rate-limited",
    title: "A call answered 429 (rate limit or a fault rule)",
    cause: cause({ act: "rule", rule: { operation: "payment", httpStatus: 429 } }, { act: "pay" }),
  },
  INTERNAL: {
    id: "api.error.server",
    title: "A call answered 5xx (a fault rule)",
    cause: cause({ act: "rule", rule: { operation: "payment", httpStatus: 500 } }, { act: "pay" }),
  },
};

const BY_STATUS = new Map<number, string>(
  (Object.entries(ERRORS) as Array<[ErrorCode, (typeof ERRORS)[ErrorCode]]>).flatMap(([code, e]) =>
    e ? [[statusOf(code), e.id] as const] : [],
  ),
);

/** The behaviour of a gateway answer with this status (every 5xx is a server error), or undefined. */
export function errorBehaviour(status: number): string | undefined {
  return BY_STATUS.get(Math.min(status, 500));
}

export function errorBehaviours(): Behaviour[] {
  return Object.values(ERRORS).flatMap((e) => (e ? [{ ...e, area: "errors" as const }] : []));
}
