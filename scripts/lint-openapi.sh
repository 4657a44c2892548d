#!/usr/bin/env bash
# Lints the OpenAPI document exactly as the server serves it: Spectral (OpenAPI rules + OWASP,
# see .spectral.yaml) and Redocly. Fails on any error; warnings are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
doc="$(mktemp -d)/openapi.json"
bun run scripts/openapi.ts "$doc"
bun x spectral lint "$doc" --ruleset .spectral.yaml --fail-severity error --display-only-failures
# No telemetry or update checks: CI runs offline as far as this step is concerned.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true bun x redocly lint "$doc" --format stylish
