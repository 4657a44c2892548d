#!/usr/bin/env bash
# Schema drift check: for every drizzle config (drizzle*.config.ts), run `drizzle-kit generate`
# in a throw-away copy of the working tree and fail if it writes anything — that means a schema
# file changed without the migration that carries the change being committed.
# Offline: generate compares the schema files with the committed snapshots; no database needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

shopt -s nullglob
configs=(drizzle*.config.ts)
if [ "${#configs[@]}" -eq 0 ]; then echo "check-drift: no drizzle*.config.ts found" >&2; exit 1; fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The working tree as it is (tracked and untracked files, not what .gitignore excludes), with the
# installed node_modules linked in rather than copied.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"
  done | tar --null -T - -cf - | tar -xf - -C "$work"
else # a source tarball without .git
  tar --exclude=./node_modules --exclude=./.git --exclude=./dist --exclude=./data -cf - . | tar -xf - -C "$work"
fi
ln -s "$root/node_modules" "$work/node_modules"
(cd "$work" && git init -q && git add -A && git -c user.name=drift -c user.email=drift@localhost commit -qm base)

status=0
for config in "${configs[@]}"; do
  log="$work/.drift-$config.log"
  # No stdin and a time limit: a schema change drizzle-kit cannot decide alone (a rename) makes it
  # prompt, which must fail here rather than hang CI.
  if ! (cd "$work" && timeout 300 bun x drizzle-kit generate --config "$config") </dev/null >"$log" 2>&1; then
    echo "check-drift: drizzle-kit generate failed for $config:" >&2
    cat "$log" >&2
    status=1
    continue
  fi
  changed="$(cd "$work" && git status --porcelain --untracked-files=all -- . ':!node_modules' ':!.drift-*')"
  if [ -n "$changed" ]; then
    echo "check-drift: $config: the schema differs from the committed migrations; drizzle-kit would write:" >&2
    echo "$changed" >&2
    echo "Run \`bun x drizzle-kit generate --config $config\` and commit the result." >&2
    status=1
    (cd "$work" && git add -A && git -c user.name=drift -c user.email=drift@localhost commit -qm "$config" >/dev/null)
  else
    echo "check-drift: $config: no drift"
  fi
done
exit "$status"
