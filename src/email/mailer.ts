/**
 * Sending one email, behind a small interface with two implementations: SMTP through nodemailer
 * (`SMTP_URL`), and a "not configured" twin that records the message and logs that it was not
 * sent, so an instance without SMTP still works and its alert log still fills.
 *
 * `send` never throws: every failure comes back classified, permanent (a 5xx reply such as 550:
 * the same message would be refused again) or transient (connection refused, timeout, 4xx).
 */
import { readFileSync } from "node:fs";
import type { rootCertificates } from "node:tls";
import type nodemailer from "nodemailer";
import type { Logger } from "../logger.ts";
import type { EmailMessage } from "./messages.ts";

export type SendResult =
  | { status: "sent"; response: string }
  | { status: "not_sent"; reason: string }
  | { status: "failed"; error: string; permanent: boolean };

export interface Mailer {
  /** False for the twin: messages are recorded, not sent. */
  readonly configured: boolean;
  send(message: EmailMessage, signal?: AbortSignal): Promise<SendResult>;
  close(): void;
}

export interface SmtpOptions {
  /** `smtp://user:pass@host:587` (STARTTLS when the server offers it) or `smtps://…:465` (implicit TLS). */
  url: string;
  /** `From:` header (OG_EMAIL_FROM). */
  from: string;
  /** PEM file with extra CA certificates to trust, on top of the public roots (OG_SMTP_CA_FILE). */
  caFile?: string;
  /** Real-time budgets: they protect the worker, so they do not follow the test clock. */
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
}

const MAX_ERROR_LENGTH = 500;

export class SmtpMailer implements Mailer {
  readonly configured = true;
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;

  constructor(private readonly options: SmtpOptions) {
    const extraCa = options.caFile ? readFileSync(options.caFile, "utf8") : undefined;
    const connectionTimeout = options.connectionTimeoutMs ?? 10_000;
    // Required here, not imported at the top: without SMTP_URL neither is needed, and loading
    // them is a large share of `serve`'s start-up time.
    const { createTransport } = require("nodemailer") as typeof nodemailer;
    const roots = extraCa ? (require("node:tls") as { rootCertificates: typeof rootCertificates }).rootCertificates : [];
    this.transport = createTransport({
      url: options.url,
      connectionTimeout,
      greetingTimeout: connectionTimeout,
      socketTimeout: options.socketTimeoutMs ?? 30_000,
      // Messages are built here from stored facts; never let one pull in a file or a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
      // `ca` replaces Node's roots; add to them instead, like NODE_EXTRA_CA_CERTS.
      tls: extraCa ? { ca: [...roots, extraCa] } : undefined,
    });
  }

  async send(message: EmailMessage, signal?: AbortSignal): Promise<SendResult> {
    try {
      const info = await this.transport.sendMail({
        from: this.options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        signal,
      });
      return { status: "sent", response: String(info.response ?? "") };
    } catch (error) {
      return classify(error);
    }
  }

  close(): void {
    this.transport.close();
  }
}

interface SmtpError {
  message?: string;
  code?: string;
  responseCode?: number;
  response?: string;
  permanent?: boolean;
}

/**
 * A 5xx reply to this message (RCPT TO 550 "no such mailbox", a refused DATA) is permanent:
 * sending it again would get the same answer (nodemailer's `permanent`: 5xx except 503).
 * A 5xx about the session — authentication (535), STARTTLS refused — is about this server's
 * configuration, not the message: it is retried, so alerts queued while the operator fixes
 * SMTP_URL are not lost. Everything else (refused connection, timeout, 4xx) is retried.
 */
const MESSAGE_REJECTIONS = new Set(["EENVELOPE", "EMESSAGE"]);

export function classify(error: unknown): SendResult & { status: "failed" } {
  const e = (typeof error === "object" && error !== null ? error : { message: String(error) }) as SmtpError;
  const permanent = e.permanent === true && (e.code === undefined || MESSAGE_REJECTIONS.has(e.code));
  const detail = e.response ?? e.message ?? "unknown error";
  const text = e.code ? `${e.code}: ${detail}` : detail;
  return { status: "failed", error: text.length > MAX_ERROR_LENGTH ? text.slice(0, MAX_ERROR_LENGTH) + "…" : text, permanent };
}

/** Without SMTP_URL: the alert is recorded (here and in the email log) and logged as not sent. */
export class NotConfiguredMailer implements Mailer {
  readonly configured = false;
  /** The last messages it was given, newest last (for tests and debugging). */
  readonly recorded: EmailMessage[] = [];

  constructor(private readonly logger: Logger) {}

  async send(message: EmailMessage): Promise<SendResult> {
    this.recorded.push(message);
    if (this.recorded.length > 100) this.recorded.shift();
    const reason = "SMTP_URL is not set";
    this.logger.warn("email alert not sent", { reason, subject: message.subject });
    return { status: "not_sent", reason };
  }

  close(): void {}
}
