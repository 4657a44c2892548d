// Dashboard assets, imported `with { type: "text" }` so `bun build --compile` embeds them.
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*/assets/dashboard.js" {
  const text: string;
  export default text;
}
