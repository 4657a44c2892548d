/**
 * The template editor's code pane (editor/code-editor.js and the CodeMirror packages it imports)
 * as one minified browser module. Called as a Bun macro from assets.ts, so the bundling happens
 * when the server is transpiled or compiled: `bun build --compile` embeds the result as a string,
 * and the binary serves it with no node_modules and no CDN.
 *
 * A macro may not call Bun.build (the bundler would wait on itself), so it runs `bun build` as a
 * child process: the same Bun that is transpiling (process.execPath).
 */
export function editorBundle(): string {
  const entry = new URL("./editor/code-editor.js", import.meta.url).pathname;
  const result = Bun.spawnSync([process.execPath, "build", entry, "--minify", "--target=browser", "--format=esm"], { stdout: "pipe", stderr: "pipe" });
  if (!result.success) throw new Error(`bundling the template editor failed: ${result.stderr.toString()}`);
  return result.stdout.toString();
}
