CREATE TABLE `email_alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`subject` text NOT NULL,
	`facts` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`next_attempt_at` integer,
	`dedupe_key` text,
	`job_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`sent_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_alerts_account_idx` ON `email_alerts` (`account_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `email_alerts_dedupe_idx` ON `email_alerts` (`dedupe_key`);--> statement-breakpoint
CREATE TABLE `dashboard_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`key_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_sessions_id_unique` ON `dashboard_sessions` (`id`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_account_idx` ON `dashboard_sessions` (`account_id`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expires_idx` ON `dashboard_sessions` (`expires_at`);