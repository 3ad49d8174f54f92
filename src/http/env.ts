import type { Context } from "hono";
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

/**
 * How a route reaches its sandbox's services: from the request. One route tree serves every sandbox
 * of a server (docs/architecture.md "One route tree"), so no handler closes over one sandbox's
 * services; a register function declares the few it uses, `Scoped<{ payments: PaymentService }>`,
 * and asks for them per request, `of(c).payments`. The app that mounts the routes (src/app.ts) says
 * where they come from.
 */
export type Scoped<T> = (c: RouteContext) => T;

/** The context of any route, whatever its path and input types. */
// biome-ignore lint/suspicious/noExplicitAny: any path, any input
export type RouteContext = Context<AppEnv, any, any>;

/**
 * One value per sandbox made from its services on first use and kept while they live (a WeakMap
 * keyed by them): what a sandbox's routes hold of their own (the dashboard's session and queries,
 * the rate limit's windows), made when first asked for and dropped with the sandbox.
 */
export function perSandbox<S extends object, T>(of: Scoped<S>, make: (services: S) => T): Scoped<T> {
  const made = new WeakMap<S, T>();
  return (c) => {
    const services = of(c);
    let value = made.get(services);
    if (value === undefined) {
      value = make(services);
      made.set(services, value);
    }
    return value;
  };
}
