import type { Merchant } from "../db/schema/index.js";

/** Hono's Env for every route: what middleware puts on the context. */
export type AppEnv = {
  Variables: {
    merchant: Merchant;
    requestId: string;
  };
};
