/**
 * The target a compiled binary was built for. Running from source it is null; scripts/build.ts
 * replaces this module, for the bundle only, with one naming the `--target` it builds
 * (scripts/native.ts), so `ogsmith --version` says which release file it is.
 */
export const BUILD_TARGET: string | null = null;
