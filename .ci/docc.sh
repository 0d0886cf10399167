#!/usr/bin/env bash
# Builds the DocC documentation of WebAuthnRP (Sources/WebAuthnRP/WebAuthnRP.docc) with the
# toolchain's own `docc`: no swift-docc-plugin, no package dependency.
#   1. `swift build --target WebAuthnRP -emit-symbol-graph` builds WebAuthnRP and the modules
#      below it in a scratch path of its own (.build/docc, so these flags never invalidate the
#      build `swift build` and `swift test` use) and writes their public symbol graphs;
#   2. only WebAuthnRP's graphs (WebAuthnRP.symbols.json and any WebAuthnRP@<Module> extension
#      graphs) are handed to `docc convert`: the lower modules are not documented here;
#   3. `docc convert --warnings-as-errors`: a symbol link (``Type/member``) or an article link
#      (<doc:Name>) that does not resolve, in an article or in a doc comment, fails the build;
#   4. every public symbol declared in Sources/WebAuthnRP must have a doc comment (checked on
#      the symbol graph by .ci/docc-missing-docs.swift).
# Usage: .ci/docc.sh [output-dir]   (default .build/docc/WebAuthnRP.doccarchive)
# Look at the result with `docc preview` (same arguments as below) or serve the archive as
# static files.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The toolchain's docc: beside `swift` (Linux toolchains), else through xcrun (Xcode).
swift_bin="$(command -v swift)" || die "swift is not on PATH"
docc="${DOCC:-}"
if [ -z "$docc" ]; then
  swift_dir="$(dirname "$(readlink -f "$swift_bin" 2>/dev/null || printf '%s' "$swift_bin")")"
  if [ -x "$swift_dir/docc" ]; then
    docc="$swift_dir/docc"
  elif command -v docc >/dev/null 2>&1; then
    docc="$(command -v docc)"
  elif command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
    docc="$(xcrun --find docc)"
  else
    die "no docc in the Swift toolchain (set DOCC=/path/to/docc)"
  fi
fi

scratch=".build/docc"
graphs="$scratch/symbol-graphs"                 # what the last compile of WebAuthnRP wrote
new_graphs="$scratch/symbol-graphs.new"
module_graphs="$scratch/symbol-graphs-WebAuthnRP"
output="${1:-$scratch/WebAuthnRP.doccarchive}"

# The compiler writes a module's graphs only when it compiles the module. So the build writes
# into an empty folder: if WebAuthnRP was compiled, that folder holds its complete, current
# set (no graph left over from a removed extension); if it was up to date, the set kept from
# its last compile is still current.
rm -rf "$new_graphs"
mkdir -p "$new_graphs"
log "swift build --scratch-path $scratch --target WebAuthnRP -emit-symbol-graph"
swift build --scratch-path "$scratch" --target WebAuthnRP \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$repo_root/$new_graphs"
if [ -f "$new_graphs/WebAuthnRP.symbols.json" ]; then
  rm -rf "$graphs"
  mv "$new_graphs" "$graphs"
else
  rm -rf "$new_graphs"
  [ -f "$graphs/WebAuthnRP.symbols.json" ] \
    || die "WebAuthnRP was up to date but its symbol graphs are gone: remove $scratch and run again"
fi

rm -rf "$module_graphs"
mkdir -p "$module_graphs"
shopt -s nullglob
for graph in "$graphs"/WebAuthnRP.symbols.json "$graphs"/WebAuthnRP@*.symbols.json; do
  cp "$graph" "$module_graphs/"
done

log "$docc convert Sources/WebAuthnRP/WebAuthnRP.docc --warnings-as-errors"
rm -rf "$output"
"$docc" convert Sources/WebAuthnRP/WebAuthnRP.docc \
  --additional-symbol-graph-dir "$module_graphs" \
  --fallback-display-name WebAuthnRP \
  --fallback-bundle-identifier webauthn-rp.WebAuthnRP \
  --fallback-default-module-kind Framework \
  --warnings-as-errors \
  --output-path "$output" \
  || die "docc reported warnings or errors (a broken symbol or article link, a malformed doc comment)"

log "every public symbol of WebAuthnRP has a doc comment"
swift .ci/docc-missing-docs.swift "$module_graphs/WebAuthnRP.symbols.json" \
  || die "public symbols without a doc comment (listed above)"

log "documentation archive: $output"
