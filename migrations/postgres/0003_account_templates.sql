CREATE TABLE "account_template_versions" (
	"account_id" text NOT NULL,
	"template_id" text NOT NULL,
	"version" integer NOT NULL,
	"definition" text NOT NULL,
	"digest" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "account_template_versions_account_id_template_id_version_pk" PRIMARY KEY("account_id","template_id","version")
);
--> statement-breakpoint
CREATE TABLE "account_templates" (
	"account_id" text NOT NULL,
	"id" text NOT NULL,
	"latest_version" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "account_templates_account_id_id_pk" PRIMARY KEY("account_id","id")
);
--> statement-breakpoint
ALTER TABLE "account_template_versions" ADD CONSTRAINT "account_template_versions_account_id_template_id_account_templates_account_id_id_fk" FOREIGN KEY ("account_id","template_id") REFERENCES "public"."account_templates"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_templates" ADD CONSTRAINT "account_templates_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;