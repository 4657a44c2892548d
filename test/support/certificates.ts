/**
 * The one test certificate helper: a throwaway self-signed certificate made with `openssl`
 * (CI installs it), valid for the names given — DNS names, or IP addresses such as 127.0.0.1.
 * It is its own CA (basicConstraints CA:TRUE), so a client can trust it directly: `tls.ca` for
 * guardedFetch, or `caFile` as OG_SMTP_CA_FILE. The key is EC P-256: quick to generate.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SelfSignedCert {
  cert: string;
  key: string;
  /** A PEM file holding `cert`, to trust as a CA; removed by `cleanup()`, which the test calls. */
  caFile: string;
  cleanup(): void;
}

export function selfSignedCert(...names: string[]): SelfSignedCert {
  if (names.length === 0) throw new Error("selfSignedCert needs at least one name");
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-cert-"));
  // (bun test does not emit the process's exit event, so no exit hook could do this for a test.)
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  const san = names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(",");
  const result = Bun.spawnSync([
    "openssl",
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-sha256",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    `/CN=${names[0]}`,
    "-addext",
    `subjectAltName=${san}`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
  ]);
  if (result.exitCode !== 0) {
    cleanup();
    throw new Error(`openssl failed (${result.exitCode}): ${result.stderr.toString()}`);
  }
  return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), caFile: certFile, cleanup };
}
