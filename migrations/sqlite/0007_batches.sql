CREATE TABLE `batch_items` (
	`batch_id` text NOT NULL,
	`idx` integer NOT NULL,
	`status` text NOT NULL,
	`body` text NOT NULL,
	`url` text,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`claimed_until` integer,
	PRIMARY KEY(`batch_id`, `idx`),
	FOREIGN KEY (`batch_id`) REFERENCES `batches`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `batch_items_status_idx` ON `batch_items` (`status`);--> statement-breakpoint
CREATE TABLE `batches` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`signing_key_id` text NOT NULL,
	`request_id` text NOT NULL,
	`period` text NOT NULL,
	`status` text NOT NULL,
	`total` integer NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `batches_account_idx` ON `batches` (`account_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `usage_periods` ADD `batch_reserved` integer DEFAULT 0 NOT NULL;