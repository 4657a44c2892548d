#!/usr/bin/env bash
# smoke.sh BINARY ENGINE [RUNNER...]: the lone binary, copied into an empty directory with no Bun
# and no node_modules, serves a card drawn by ENGINE (satori or takumi) over HTTP, reports that
# engine in /metrics, and renders one from the command line with --engine ENGINE. RUNNER runs
# a binary for another CPU, e.g. `qemu-aarch64-static -L /usr/aarch64-linux-gnu` for linux-arm64.
# .ci/run calls it for linux-x64 natively and for linux-arm64 under qemu.
set -uo pipefail
binary="$1" engine="$2"; shift 2
runner=("$@")
# Under an emulator (a RUNNER) everything runs many times slower than on the CPU the binary is
# for, and a render would meet the 5 s deadline meant for native speed: give it a minute there.
deadline=()
[ ${#runner[@]} -gt 0 ] && deadline=(OG_RENDER_TIMEOUT_MS=60000)
dir="$(mktemp -d)"
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
cp "$binary" "$dir/ogsmith"
started=$SECONDS
# Port 0: the kernel picks a free port (a fixed or random one can be taken); the log says which.
(cd "$dir" && exec env -i PATH=/usr/bin:/bin HOME="$dir" "${deadline[@]}" OG_RENDER_ENGINE="$engine" OG_METRICS_PUBLIC=true "${runner[@]}" ./ogsmith serve --port 0 --host 127.0.0.1 >"$dir/out.log" 2>&1) &
pid=$!
for _ in $(seq 1 600); do grep -q '"msg":"listening"' "$dir/out.log" 2>/dev/null && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
url="$(sed -n 's/.*"msg":"listening","url":"\([^"]*\)".*/\1/p' "$dir/out.log" | head -1)"
key="$(grep -o 'og_[A-Za-z0-9]\{32\}' "$dir/out.log" | head -1)"
if [ -z "$url" ]; then echo "[$engine] the server did not start:"; tail -20 "$dir/out.log"; exit 1; fi
listening=$((SECONDS - started))
code="$(curl -s -m 120 -o "$dir/card.png" -w '%{http_code}' -H "X-API-Key: $key" -H 'Content-Type: application/json' \
  -d '{"title":"CI smoke test","subtitle":"built binary"}' "$url/api/generate")"
engine_metric="$(curl -s -m 30 "$url/metrics" | grep "^ogsmith_render_engine{engine=\"$engine\"} 1" || true)"
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
echo "[$engine] listening after ${listening} s; generate answered $code at $url; $(file -b "$dir/card.png" 2>/dev/null || true); metric: ${engine_metric:-(none)}"
if ! { [ "$code" = "200" ] && head -c 8 "$dir/card.png" | grep -q PNG && [ -n "$engine_metric" ]; }; then tail -20 "$dir/out.log"; exit 1; fi
# The CLI too, with the engine named by flag, from the same lone binary.
(cd "$dir" && env -i PATH=/usr/bin:/bin HOME="$dir" "${deadline[@]}" "${runner[@]}" ./ogsmith render --engine "$engine" --json '{"template":"blog","title":"CLI smoke 🚀 日本"}' -o cli.png) \
  && head -c 8 "$dir/cli.png" | grep -q PNG || { echo "[$engine] ogsmith render did not write a PNG"; exit 1; }
echo "[$engine] ogsmith render wrote $(file -b "$dir/cli.png"); $((SECONDS - started)) s in all"
