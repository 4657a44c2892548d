/**
 * A real SMTP server on 127.0.0.1 in the test process (the `smtp-server` package), so email tests
 * exercise nodemailer, the socket and TLS for real: it records every message (parsed with
 * mailparser), can be stopped and started again on the same port to simulate downtime, can
 * answer a recipient with 550 or a 4xx, and can offer STARTTLS with a self-signed certificate
 * from test/support/certificates.ts (the test then trusts it through OG_SMTP_CA_FILE).
 */
import { simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { waitFor as waitUntil } from "./wait.ts";

export interface ReceivedMail {
  /** Envelope recipients (RCPT TO). */
  to: string[];
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** The From: header as sent. */
  fromHeader: string;
  subject: string;
  text: string;
  html: string;
  /** True when the session was encrypted (STARTTLS) when the message arrived. */
  secure: boolean;
  /** The user the client logged in as, if any. */
  user: string | undefined;
}

export interface Rejection {
  /** SMTP reply code: 550 (permanent) or 4xx (try again later). */
  code: number;
  message?: string;
}

export interface TestSmtpServer {
  readonly port: number;
  /** `smtp://[user:pass@]127.0.0.1:<port>` (`smtps://` with implicit TLS), for SMTP_URL. */
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Messages to one recipient. */
  to(address: string): ReceivedMail[];
  /** RCPT TO attempts seen (accepted or not), in order. */
  readonly rcptAttempts: string[];
  /** Answers RCPT TO for `address` (or every recipient, when omitted) with this rejection. */
  reject(rejection: Rejection, address?: string): void;
  /** Accepts everyone again. */
  accept(address?: string): void;
  /** Closes the listener: connections are refused until `start()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs?: number): Promise<void>;
  waitForCount(count: number, address?: string, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

export interface SmtpServerOptions {
  /** Offer STARTTLS with this certificate (PEM). Without it STARTTLS is not offered. */
  tls?: { key: string; cert: string };
  /** With `tls`: TLS from the first byte (`smtps://`, port 465 style) instead of STARTTLS. */
  implicitTls?: boolean;
  /** Require AUTH with these credentials (only allowed over TLS). */
  auth?: { user: string; pass: string };
}

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const rcptAttempts: string[] = [];
  const rejections = new Map<string, Rejection>();
  let fallback: Rejection | undefined;
  let server: SMTPServer | undefined;
  let port = 0;

  const settings = (): SMTPServerOptions => ({
    logger: false,
    banner: "ogsmith test SMTP",
    secure: Boolean(options.tls && options.implicitTls),
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    disabledCommands: [...(options.tls && !options.implicitTls ? [] : ["STARTTLS"]), ...(options.auth ? [] : ["AUTH"])],
    authOptional: !options.auth,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      const addr = address.address.toLowerCase();
      rcptAttempts.push(addr);
      const rejection = rejections.get(addr) ?? fallback;
      if (rejection) {
        const text = rejection.message ?? (rejection.code >= 500 ? "Mailbox unavailable" : "Try again later");
        return callback(Object.assign(new Error(text), { responseCode: rejection.code }));
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            fromHeader: mail.from?.text ?? "",
            subject: mail.subject ?? "",
            text: mail.text ?? "",
            html: typeof mail.html === "string" ? mail.html : "",
            secure: session.secure,
            user: typeof session.user === "string" ? session.user : undefined,
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = new SMTPServer(settings());
      next.on("error", () => {}); // per-connection errors (a client hanging up) are not the test's concern
      const onError = (error: Error) => reject(error);
      next.server.once("error", onError);
      next.listen(port, "127.0.0.1", () => {
        next.server.off("error", onError);
        port = (next.server.address() as { port: number }).port;
        server = next;
        resolve();
      });
    });

  const close = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      if (!current) return resolve();
      current.close(() => resolve());
    });

  await listen();
  const credentials = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@` : "";

  const waitFor = (condition: () => boolean | Promise<boolean>, what: string, timeoutMs?: number) =>
    waitUntil(condition, `smtp: ${what}`, { timeoutMs, intervalMs: 10 });
  const to = (address: string) => messages.filter((m) => m.to.includes(address.toLowerCase()));

  return {
    get port() {
      return port;
    },
    get url() {
      return `${options.implicitTls ? "smtps" : "smtp"}://${credentials}127.0.0.1:${port}`;
    },
    messages,
    rcptAttempts,
    to,
    reject(rejection, address) {
      if (address === undefined) fallback = rejection;
      else rejections.set(address.toLowerCase(), rejection);
    },
    accept(address) {
      if (address === undefined) {
        fallback = undefined;
        rejections.clear();
      } else rejections.delete(address.toLowerCase());
    },
    down: close,
    up: listen,
    waitFor,
    async waitForCount(count, address, timeoutMs) {
      const list = () => (address === undefined ? messages : to(address));
      await waitFor(() => list().length >= count, `${count} message(s)${address ? ` to ${address}` : ""} (have ${list().length})`, timeoutMs);
      return list();
    },
    stop: close,
  };
}
