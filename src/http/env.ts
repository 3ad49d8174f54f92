import type { Merchant } from "../modules/merchants/merchants.service.js";

/** Hono's Env for every route: what middleware puts on the context. */
export type AppEnv = {
  Variables: {
    merchant: Merchant;
    requestId: string;
  };
};
