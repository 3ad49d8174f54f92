export * from "./cards.js";
export * from "./events.js";
export * from "./idempotency.js";
export * from "./merchants.js";
export * from "./sandbox.js";
export * from "./sandboxes.js";
export * from "./transactions.js";
export * from "./webhooks.js";
