#!/usr/bin/env bash
# The backend package's public API (Backend/): documentation and size.
#   1. `swift package dump-symbol-graph` (public symbols) for the Backend package, from its
#      ordinary build;
#   2. for each public module (PasskeyBackend, PasskeyBackendPostgres, PasskeyBackendFluent,
#      PasskeyBackendHummingbird, PasskeyBackendVapor):
#      `docc convert --warnings-as-errors` over its catalog (Backend/Sources/<Module>/<Module>.docc,
#      where the articles live) and its symbol graphs: a broken symbol or article link fails;
#   3. every public symbol declared in the module has a doc comment (.ci/docc-missing-docs.swift);
#   4. the module's public symbols stay within its budget (BUDGET below). Raise a budget on
#      purpose, with the change that needs it, and record the count in Docs/Architecture.md.
# Usage: .ci/backend-docs.sh [output-dir]   (default Backend/.build/docc)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root/Backend"

log() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Public symbols per module (types, members, cases; compiler-synthesized ones not counted).
# PasskeyBackend: 37 of its 63 are PasskeyBackendConfiguration's settings, 11 App Attest's.
# 61 -> 63: refreshReuseInterval (the refresh reuse interval) and idTokenAudience (ID tokens).
# 63 -> 70: Android key attestation (issue 46): AndroidKeyAttestationSettings (the type, mode,
# policy, rootPEMPath, statusListPath, init) and the configuration's androidKeyAttestation (7);
# AppIntegrityMode (type and 3 cases) replaces AppAttestSettings.Mode (type and 3 cases).
# PasskeyBackendHummingbird 7 -> 11: PasskeyAuthenticator, for the application's own routes; 11 -> 15:
# StrictJSONRequestDecoder and the context's requestDecoder (the library's reader for every body);
# 15 -> 16: PasskeyAuthenticator's handle (it reads the request's cookies once, for the route too).
# PasskeyBackendFluent 1: PasskeyStores.fluent(_:id:timeout:logger:) (issue 45).
# PasskeyBackendVapor 10: PasskeyRoutes, PasskeyAuthenticator, StrictJSONContentDecoder (each with
# its init and its one requirement) and Application.usePasskeys.
declare -A BUDGET=([PasskeyBackend]=70 [PasskeyBackendPostgres]=2 [PasskeyBackendFluent]=1 [PasskeyBackendHummingbird]=16
  [PasskeyBackendVapor]=10)

swift_bin="$(command -v swift)" || die "swift is not on PATH"
docc="${DOCC:-}"
if [ -z "$docc" ]; then
  swift_dir="$(dirname "$(readlink -f "$swift_bin" 2>/dev/null || printf '%s' "$swift_bin")")"
  if [ -x "$swift_dir/docc" ]; then docc="$swift_dir/docc"
  elif command -v docc >/dev/null 2>&1; then docc="$(command -v docc)"
  elif command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then docc="$(xcrun --find docc)"
  else die "no docc in the Swift toolchain (set DOCC=/path/to/docc)"
  fi
fi

output="${1:-.build/docc}"
# dump-symbol-graph loads every module of the package, the tests' included: build them first
# (nothing to do when `swift test` already did).
log "swift build --build-tests (Backend)"
mkdir -p "$output"
swift build --build-tests >"$output/build.log" 2>&1 || { tail -n 60 "$output/build.log"; die "the backend package does not build"; }
log "swift package dump-symbol-graph (Backend)"
dump="$(swift package dump-symbol-graph --minimum-access-level public 2>&1)" || { printf '%s\n' "$dump"; die "dump-symbol-graph failed"; }
graphs="$(printf '%s\n' "$dump" | sed -n 's/.*Files written to \(.*\)$/\1/p' | tail -n 1)"
[ -d "$graphs" ] || { printf '%s\n' "$dump"; die "no symbol graphs written"; }

failed=0
for module in PasskeyBackend PasskeyBackendPostgres PasskeyBackendFluent PasskeyBackendHummingbird PasskeyBackendVapor; do
  module_graphs="$output/graphs-$module"
  rm -rf "$module_graphs"; mkdir -p "$module_graphs"
  shopt -s nullglob
  for graph in "$graphs/$module.symbols.json" "$graphs/$module"@*.symbols.json; do cp "$graph" "$module_graphs/"; done
  shopt -u nullglob
  [ -f "$module_graphs/$module.symbols.json" ] || die "no symbol graph for $module"
  catalog="Sources/$module/$module.docc"
  [ -d "$catalog" ] || die "$module has no catalog ($catalog)"
  log "docc convert $catalog --warnings-as-errors"
  rm -rf "$output/$module.doccarchive"
  "$docc" convert "$catalog" --additional-symbol-graph-dir "$module_graphs" \
    --fallback-display-name "$module" --fallback-bundle-identifier "passkey-backend.$module" \
    --fallback-default-module-kind Framework --warnings-as-errors --output-path "$output/$module.doccarchive" \
    >"$output/$module.docc.log" 2>&1 || { cat "$output/$module.docc.log"; die "docc reported warnings or errors for $module"; }
  # Its own graph and its extensions of other modules' types (Module@Other.symbols.json).
  for graph in "$module_graphs"/*.symbols.json; do
    swift "$repo_root/.ci/docc-missing-docs.swift" "$graph" "Backend/Sources/$module" \
      || die "public symbols of $module without a doc comment (listed above)"
  done
  count="$(python3 - "$module_graphs" <<'PY'
import glob, json, os, sys
total = 0
for path in glob.glob(os.path.join(sys.argv[1], "*.symbols.json")):
    graph = json.load(open(path))
    total += sum(1 for s in graph.get("symbols", [])
                 if s.get("accessLevel") in ("public", "open") and "::SYNTHESIZED::" not in s["identifier"]["precise"]
                 and "/Backend/Sources/" in s.get("location", {}).get("uri", ""))
print(total)
PY
)"
  budget="${BUDGET[$module]}"
  if [ "$count" -le "$budget" ]; then verdict=ok; else verdict="OVER BUDGET"; failed=1; fi
  printf '%-26s %4s public symbols (budget %s) %s\n' "$module" "$count" "$budget" "$verdict"
done
[ "$failed" -eq 0 ] || die "a backend module is over its public-symbol budget"
log "backend documentation: $output"
