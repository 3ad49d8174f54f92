CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`transaction_id` text,
	`merchant` text,
	`data` text NOT NULL
);
