/**
 * Whether this process is the `bun build --compile` binary rather than `bun src/main.ts`.
 * Read from Bun.main (the entry point), which lies in the binary's embedded filesystem
 * (`/$bunfs/…`, `B:/~BUN/…` on Windows). A module's own import.meta.url is no guide: with
 * `--bytecode` it keeps the path the module had on the build machine.
 */
export const isCompiledBinary = Bun.main.startsWith("/$bunfs/") || Bun.main.includes("~BUN");
