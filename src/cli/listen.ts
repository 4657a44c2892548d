/** Turns a failure to bind the HTTP port into one line an operator can act on. */
export class ListenError extends Error {
  override name = "ListenError";
  constructor(
    message: string,
    /** 2 for a bad HOST (a configuration mistake), 1 for a busy port (the environment). */
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export function listenError(error: unknown, host: string, port: number): ListenError | unknown {
  const code = (error as { code?: string } | null)?.code;
  if (code === "EADDRINUSE") {
    return new ListenError(`cannot listen on ${host}:${port}: the port is already in use. Stop the other process or choose another port (PORT or --port).`, 1);
  }
  if (code === "EINVAL" || code === "ENOTFOUND" || code === "EADDRNOTAVAIL" || code === "EAI_NONAME") {
    return new ListenError(
      `HOST "${host}" is not an address this machine can listen on (${code}). Use one of its IP addresses, 0.0.0.0 (all) or 127.0.0.1 (local only).`,
      2,
    );
  }
  if (code === "EACCES") return new ListenError(`cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges).`, 1);
  return error;
}
