// Files imported as text (`with { type: "text" }`) or as embedded file paths (`with { type: "file" }`).
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*/standalone.js" {
  const path: string;
  export default path;
}
declare module "*.md" {
  const text: string;
  export default text;
}
