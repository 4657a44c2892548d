CREATE TABLE `account_template_versions` (
	`account_id` text NOT NULL,
	`template_id` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`digest` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `template_id`, `version`),
	FOREIGN KEY (`account_id`,`template_id`) REFERENCES `account_templates`(`account_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `account_templates` (
	`account_id` text NOT NULL,
	`id` text NOT NULL,
	`latest_version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
