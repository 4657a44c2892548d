// Dashboard assets, imported `with { type: "text" }` so `bun build --compile` embeds them.
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*/assets/dashboard.js" {
  const text: string;
  export default text;
}
declare module "*/assets/api.js" {
  const text: string;
  export default text;
}
declare module "*/assets/dom.js" {
  const text: string;
  export default text;
}
declare module "*/assets/line-diff.js" {
  const text: string;
  export default text;
}
declare module "*/assets/fonts.js" {
  const text: string;
  export default text;
}
declare module "*/assets/leaving.js" {
  const text: string;
  export default text;
}
declare module "*/assets/playground.js" {
  const text: string;
  export default text;
}
declare module "*/assets/signing-keys.js" {
  const text: string;
  export default text;
}
declare module "*/assets/state.js" {
  const text: string;
  export default text;
}
declare module "*/assets/usage.js" {
  const text: string;
  export default text;
}
declare module "*/assets/webhooks.js" {
  const text: string;
  export default text;
}
declare module "*/assets/templates.js" {
  const text: string;
  export default text;
}
declare module "*/assets/template-rows.js" {
  const text: string;
  export default text;
}
declare module "*/assets/template-editor.js" {
  const text: string;
  export default text;
}
// The starters' pictures, imported `with { type: "file" }`: a path Bun.file() reads (embedded when compiled).
declare module "*.png" {
  const path: string;
  export default path;
}
