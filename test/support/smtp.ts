/**
 * A real SMTP server on 127.0.0.1 in the test process (the `smtp-server` package), so email tests
 * exercise nodemailer, the socket and TLS for real: it records every message (parsed with
 * mailparser), can be stopped and started again on the same port to simulate downtime, can
 * answer a recipient with 550 or a 4xx, and can offer STARTTLS with a self-signed certificate
 * made by `openssl` in the test (the test then trusts it through OG_SMTP_CA_FILE).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

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

  const waitFor = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) => {
    const deadline = performance.now() + timeoutMs;
    while (!(await condition())) {
      if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
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

/**
 * A self-signed certificate for 127.0.0.1 / localhost, made with openssl in a temp dir.
 * `caFile` is the path to pass as OG_SMTP_CA_FILE; `cleanup()` removes the dir.
 */
export async function selfSignedCertificate(): Promise<{ key: string; cert: string; caFile: string; cleanup(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-smtp-tls-"));
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  const proc = Bun.spawn(
    [
      "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
      "-keyout", keyFile, "-out", certFile,
      "-subj", "/CN=ogsmith test SMTP",
      "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-addext", "basicConstraints=critical,CA:TRUE",
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const code = await proc.exited;
  if (code !== 0) throw new Error(`openssl failed (${code}): ${await new Response(proc.stderr).text()}`);
  return {
    key: readFileSync(keyFile, "utf8"),
    cert: readFileSync(certFile, "utf8"),
    caFile: certFile,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
