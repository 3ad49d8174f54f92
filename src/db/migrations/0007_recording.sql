CREATE TABLE `recorded_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`merchant_key` text,
	`body` text,
	`status` integer NOT NULL,
	`response` text,
	`webhooks_up_to` integer NOT NULL
);
