CREATE TABLE "unit_reservations" (
	"instance_key" integer NOT NULL,
	"account_id" text NOT NULL,
	"period" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "unit_reservations_instance_key_account_id_period_pk" PRIMARY KEY("instance_key","account_id","period")
);
--> statement-breakpoint
ALTER TABLE "unit_reservations" ADD CONSTRAINT "unit_reservations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;