-- A new transaction is written by plain statements that stand or fall together (its idempotency key
-- first, then its row, its `transaction` event and its callback's delivery:
-- src/modules/transactions/transactions.repo.ts), which cost less than one INSERT through
-- migration 0009's `transaction_writes` view and its trigger (docs/performance.md "The cost
-- account"). The view is no longer written: it goes. `transaction_moves` and `attempt_results` stay.
DROP TRIGGER `transaction_writes_insert`;
--> statement-breakpoint
DROP VIEW `transaction_writes`;
