-- The side effects of a write, written by the storage layer in the write's own statement
-- (docs/architecture.md "The path of a card payment"): a statement is atomic, triggers included, so
-- a request that writes through one of these views needs no savepoint of its own, and no code above
-- the storage layer writes an event. Each view has no rows; an INSERT into it runs its INSTEAD OF
-- trigger. A column added to a table these name needs the view and its trigger made again here.
--
-- A value inserted into a view keeps the type it was bound with (a JavaScript number is a REAL), so
-- an event's numbers are read from the row just written (its columns' INTEGER affinity) or cast:
-- json_object would write 200.0.
--
-- transaction_writes: a new transaction (every column of `transactions`), its `transaction` event
-- (docs/events.md), its callback's delivery when `wh_id` is set (written waiting for the sender:
-- no due time, not in flight; src/webhooks/dispatcher.ts places it at the commit), and the
-- create's idempotency key when `idem_operation` is set (src/modules/idempotency/).
CREATE VIEW `transaction_writes` AS SELECT
	`id`, `merchant_key`, `kind`, `request_id`, `status`, `decline_code`, `card_bin`, `card_last4`, `card_length`,
	`card_exp_month`, `card_exp_year`, `card_holder`, `card_brand`, `card_profile`, `token_id`, `parent_id`,
	`payment_method`, `decline_sub_reason`, `details`, `subscription_id`, `order_currency`, `order_amount`,
	`processed_currency`, `processed_amount`, `conversion_rate`, `three_ds`, `lang`, `callback_url`,
	`success_redirect_url`, `failure_redirect_url`, `billing_details`, `order_data`, `device`, `metadata`,
	`due_at`, `due_status`, `due_decline_code`, `created_at`, `updated_at`,
	NULL AS `wh_id`, NULL AS `wh_kind`, NULL AS `wh_order_key`, NULL AS `wh_url`, NULL AS `wh_headers`, NULL AS `wh_body`,
	NULL AS `idem_operation`, NULL AS `idem_body_hash`, NULL AS `idem_response`
FROM `transactions` WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `transaction_writes_insert` INSTEAD OF INSERT ON `transaction_writes` BEGIN
	INSERT INTO `transactions` (`id`, `merchant_key`, `kind`, `request_id`, `status`, `decline_code`, `card_bin`,
		`card_last4`, `card_length`, `card_exp_month`, `card_exp_year`, `card_holder`, `card_brand`, `card_profile`,
		`token_id`, `parent_id`, `payment_method`, `decline_sub_reason`, `details`, `subscription_id`, `order_currency`,
		`order_amount`, `processed_currency`, `processed_amount`, `conversion_rate`, `three_ds`, `lang`, `callback_url`,
		`success_redirect_url`, `failure_redirect_url`, `billing_details`, `order_data`, `device`, `metadata`, `due_at`,
		`due_status`, `due_decline_code`, `created_at`, `updated_at`)
	VALUES (NEW.`id`, NEW.`merchant_key`, NEW.`kind`, NEW.`request_id`, NEW.`status`, NEW.`decline_code`, NEW.`card_bin`,
		NEW.`card_last4`, NEW.`card_length`, NEW.`card_exp_month`, NEW.`card_exp_year`, NEW.`card_holder`, NEW.`card_brand`,
		NEW.`card_profile`, NEW.`token_id`, NEW.`parent_id`, NEW.`payment_method`, NEW.`decline_sub_reason`, NEW.`details`,
		NEW.`subscription_id`, NEW.`order_currency`, NEW.`order_amount`, NEW.`processed_currency`, NEW.`processed_amount`,
		NEW.`conversion_rate`, NEW.`three_ds`, NEW.`lang`, NEW.`callback_url`, NEW.`success_redirect_url`,
		NEW.`failure_redirect_url`, NEW.`billing_details`, NEW.`order_data`, NEW.`device`, NEW.`metadata`, NEW.`due_at`,
		NEW.`due_status`, NEW.`due_decline_code`, NEW.`created_at`, NEW.`updated_at`);
	INSERT INTO `events` (`type`, `transaction_id`, `merchant`, `data`)
	SELECT 'transaction', t.`id`, m.`mid`, json_object('transactionId', t.`id`, 'kind', t.`kind`, 'merchant', m.`mid`,
		'status', t.`status`, 'declineCode', t.`decline_code`,
		'at', strftime('%Y-%m-%dT%H:%M:%fZ', t.`updated_at` / 1000.0, 'unixepoch'))
	FROM `transactions` AS t LEFT JOIN `merchants` AS m ON m.`merchant_key` = t.`merchant_key`
	WHERE t.`id` = NEW.`id`;
	INSERT INTO `webhook_deliveries` (`id`, `merchant_key`, `kind`, `order_key`, `transaction_id`, `event_status`, `url`,
		`headers`, `body`, `status`, `attempt_count`, `created_at`, `updated_at`)
	SELECT NEW.`wh_id`, NEW.`merchant_key`, NEW.`wh_kind`, NEW.`wh_order_key`, NEW.`id`, NEW.`status`, NEW.`wh_url`,
		NEW.`wh_headers`, NEW.`wh_body`, 'pending', 0, NEW.`updated_at`, NEW.`updated_at`
	WHERE NEW.`wh_id` IS NOT NULL;
	INSERT INTO `idempotency_keys` (`merchant_key`, `operation`, `request_id`, `body_hash`, `http_status`, `response`, `created_at`)
	SELECT NEW.`merchant_key`, NEW.`idem_operation`, NEW.`request_id`, NEW.`idem_body_hash`, 200, NEW.`idem_response`, NEW.`created_at`
	WHERE NEW.`idem_operation` IS NOT NULL;
END;
--> statement-breakpoint
-- transaction_moves: a transaction's new status (and the deadline that now applies), its
-- `transaction` event, and its callback's delivery when `wh_id` is set, with no due time either way:
-- src/webhooks/dispatcher.ts places it at the commit, or, behind a pending delivery of its orderKey,
-- that one's settling makes it due.
CREATE VIEW `transaction_moves` AS SELECT
	`id`, `status`, `decline_code`, `due_at`, `due_status`, `due_decline_code`, `updated_at`,
	NULL AS `wh_id`, NULL AS `wh_kind`, NULL AS `wh_order_key`, NULL AS `wh_url`, NULL AS `wh_headers`, NULL AS `wh_body`
FROM `transactions` WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `transaction_moves_insert` INSTEAD OF INSERT ON `transaction_moves` BEGIN
	UPDATE `transactions` SET `status` = NEW.`status`, `decline_code` = NEW.`decline_code`, `due_at` = NEW.`due_at`,
		`due_status` = NEW.`due_status`, `due_decline_code` = NEW.`due_decline_code`, `updated_at` = NEW.`updated_at`
	WHERE `id` = NEW.`id`;
	INSERT INTO `events` (`type`, `transaction_id`, `merchant`, `data`)
	SELECT 'transaction', t.`id`, m.`mid`, json_object('transactionId', t.`id`, 'kind', t.`kind`, 'merchant', m.`mid`,
		'status', t.`status`, 'declineCode', t.`decline_code`,
		'at', strftime('%Y-%m-%dT%H:%M:%fZ', t.`updated_at` / 1000.0, 'unixepoch'))
	FROM `transactions` AS t LEFT JOIN `merchants` AS m ON m.`merchant_key` = t.`merchant_key`
	WHERE t.`id` = NEW.`id`;
	INSERT INTO `webhook_deliveries` (`id`, `merchant_key`, `kind`, `order_key`, `transaction_id`, `event_status`, `url`,
		`headers`, `body`, `status`, `attempt_count`, `created_at`, `updated_at`)
	SELECT NEW.`wh_id`, t.`merchant_key`, NEW.`wh_kind`, NEW.`wh_order_key`, t.`id`, NEW.`status`, NEW.`wh_url`,
		NEW.`wh_headers`, NEW.`wh_body`, 'pending', 0, NEW.`updated_at`, NEW.`updated_at`
	FROM `transactions` AS t WHERE t.`id` = NEW.`id` AND NEW.`wh_id` IS NOT NULL;
END;
--> statement-breakpoint
-- attempt_results: an attempt's answer (src/webhooks/results.ts): the attempt's row, its `webhook`
-- event (docs/events.md; `url` with its userinfo masked, as the journal shows it) and its delivery
-- settled (`status`: delivered, failed, or pending again with `next_attempt_at`: the retry
-- schedule, docs/webhooks.md#retries). Only while the delivery is in flight: an answer for a
-- delivery reset or recorded as interrupted meanwhile writes nothing.
CREATE VIEW `attempt_results` AS SELECT
	d.`seq`, a.`n`, a.`at`, a.`http_status`, a.`error`, a.`duration_ms`, d.`status`, d.`next_attempt_at`,
	d.`updated_at` AS `ended_at`, d.`url`
FROM `webhook_deliveries` AS d, `webhook_attempts` AS a WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `attempt_results_insert` INSTEAD OF INSERT ON `attempt_results` BEGIN
	INSERT INTO `webhook_attempts` (`delivery_id`, `n`, `at`, `http_status`, `error`, `duration_ms`)
	SELECT d.`id`, NEW.`n`, NEW.`at`, NEW.`http_status`, NEW.`error`, NEW.`duration_ms`
	FROM `webhook_deliveries` AS d WHERE d.`seq` = NEW.`seq` AND d.`in_flight_since` IS NOT NULL;
	INSERT INTO `events` (`type`, `transaction_id`, `merchant`, `data`)
	SELECT 'webhook', d.`transaction_id`, m.`mid`, CASE
		WHEN NEW.`http_status` IS NOT NULL AND d.`chaos` IS NULL THEN json_object('deliveryId', d.`id`,
			'transactionId', d.`transaction_id`, 'url', NEW.`url`, 'attempt', CAST(NEW.`n` AS INTEGER), 'httpStatus', CAST(NEW.`http_status` AS INTEGER),
			'at', strftime('%Y-%m-%dT%H:%M:%fZ', NEW.`at` / 1000.0, 'unixepoch'))
		WHEN NEW.`http_status` IS NOT NULL THEN json_object('deliveryId', d.`id`, 'transactionId', d.`transaction_id`,
			'url', NEW.`url`, 'attempt', CAST(NEW.`n` AS INTEGER), 'httpStatus', CAST(NEW.`http_status` AS INTEGER), 'chaos', d.`chaos`,
			'at', strftime('%Y-%m-%dT%H:%M:%fZ', NEW.`at` / 1000.0, 'unixepoch'))
		WHEN d.`chaos` IS NULL THEN json_object('deliveryId', d.`id`, 'transactionId', d.`transaction_id`,
			'url', NEW.`url`, 'attempt', CAST(NEW.`n` AS INTEGER), 'error', coalesce(NEW.`error`, 'no answer'),
			'at', strftime('%Y-%m-%dT%H:%M:%fZ', NEW.`at` / 1000.0, 'unixepoch'))
		ELSE json_object('deliveryId', d.`id`, 'transactionId', d.`transaction_id`, 'url', NEW.`url`, 'attempt', CAST(NEW.`n` AS INTEGER),
			'error', coalesce(NEW.`error`, 'no answer'), 'chaos', d.`chaos`,
			'at', strftime('%Y-%m-%dT%H:%M:%fZ', NEW.`at` / 1000.0, 'unixepoch'))
	END
	FROM `webhook_deliveries` AS d LEFT JOIN `merchants` AS m ON m.`merchant_key` = d.`merchant_key`
	WHERE d.`seq` = NEW.`seq` AND d.`in_flight_since` IS NOT NULL;
	UPDATE `webhook_deliveries` SET `status` = NEW.`status`, `in_flight_since` = NULL, `next_attempt_at` = NEW.`next_attempt_at`,
		`updated_at` = NEW.`ended_at`
	WHERE `seq` = NEW.`seq` AND `in_flight_since` IS NOT NULL;
END;
