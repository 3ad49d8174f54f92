import type { Merchant } from "../db/schema/index.js";

/** Hono's Env for every route: what middleware puts on the context. */
export type AppEnv = {
  Variables: {
    merchant: Merchant;
    requestId: string;
    /** The errorMessage of a 4xx/5xx answer, for the request's log line. */
    errorMessage: string;
    /** The coverage behaviour a refusal is, when its module named one (docs/coverage.md). */
    behaviour: string;
  };
};
