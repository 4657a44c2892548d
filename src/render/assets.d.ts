// Files imported `with { type: "file" }` resolve to a path Bun.file() can read; under
// `bun build --compile` that path points inside the executable, so the asset is embedded.
declare module "*.woff" {
  const path: string;
  export default path;
}
declare module "*.svg" {
  const path: string;
  export default path;
}
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.gz" {
  const path: string;
  export default path;
}
declare module "*.bin" {
  const path: string;
  export default path;
}
