// A line diff for the template editor's version view: what changed between a saved version and
// the editor's text. The common start and end are matched first; the lines between are matched
// by their longest common subsequence, or, when that table would be too large (over four
// million cells, thousands of changed lines on both sides), shown as removed and then added.

const MAX_CELLS = 4_000_000;

/**
 * The lines of `before` and `after`, each as `{kind: "same" | "del" | "add", text, before?, after?}`
 * where `before` and `after` are 1-based line numbers on each side, in reading order (a run of
 * removed lines before the lines that replace it).
 */
export function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out = [];
  for (let i = 0; i < start; i++) out.push({ kind: "same", text: a[i], before: i + 1, after: i + 1 });
  out.push(...middle(a, b, start, endA, endB));
  for (let i = endA, j = endB; i < a.length; i++, j++) out.push({ kind: "same", text: a[i], before: i + 1, after: j + 1 });
  return out;
}

function middle(a, b, start, endA, endB) {
  const n = endA - start;
  const m = endB - start;
  const removed = (i) => ({ kind: "del", text: a[i], before: i + 1 });
  const added = (j) => ({ kind: "add", text: b[j], after: j + 1 });
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    const out = [];
    for (let i = start; i < endA; i++) out.push(removed(i));
    for (let j = start; j < endB; j++) out.push(added(j));
    return out;
  }
  // lengths[i][j]: the longest common subsequence of a[start + i…] and b[start + j…].
  const width = m + 1;
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[start + i] === b[start + j] ? lengths[(i + 1) * width + j + 1] + 1 : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      out.push({ kind: "same", text: a[start + i], before: start + i + 1, after: start + j + 1 });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) {
      out.push(removed(start + i++));
    } else {
      out.push(added(start + j++));
    }
  }
  while (i < n) out.push(removed(start + i++));
  while (j < m) out.push(added(start + j++));
  return out;
}

/**
 * The diff with long unchanged runs folded: `context` lines are kept on each side of a change,
 * the rest of a run becomes one `{kind: "skip", count}`.
 */
export function foldUnchanged(lines, context = 3) {
  const out = [];
  let run = [];
  const flush = (atStart, atEnd) => {
    const keepBefore = atStart ? 0 : context;
    const keepAfter = atEnd ? 0 : context;
    if (run.length <= keepBefore + keepAfter + 1) out.push(...run);
    else {
      out.push(...run.slice(0, keepBefore));
      out.push({ kind: "skip", count: run.length - keepBefore - keepAfter });
      out.push(...run.slice(run.length - keepAfter));
    }
    run = [];
  };
  let seenChange = false;
  for (const line of lines) {
    if (line.kind === "same") {
      run.push(line);
      continue;
    }
    flush(!seenChange, false);
    seenChange = true;
    out.push(line);
  }
  flush(!seenChange, true);
  return out;
}
