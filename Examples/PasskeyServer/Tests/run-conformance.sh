#!/usr/bin/env bash
# Our own FIDO2 server conformance run (Tests/conformance.py) against the example's conformance
# profile, all on 127.0.0.1: a test root, attestation certificates and metadata statements made
# here (conformance.py setup), the server started once in memory with
#   CONFORMANCE=1 PORT=… RP_ID=localhost ORIGINS=http://localhost:… TRUST_ANCHORS_DIR=… METADATA_DIR=…
# on a free loopback port, every case played over HTTP, and the server stopped by pid on exit;
# the run is recorded as a webauthn-ceremonies/1 file and replayed with webauthn-replay.
# Needs python3 with cryptography (installed from PyPI when missing). Bounded in time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(dirname "$here")"
log() { printf '==> [conformance] %s\n' "$*"; }
die() { printf 'error: [conformance] %s\n' "$*" >&2; exit 1; }

python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install -q cryptography >/dev/null 2>&1 \
  || die "no cryptography for python3 (pip install cryptography)"

work="$(mktemp -d /tmp/passkey-conformance.XXXXXX)"
server_pid=""
cleanup() {
  status=$?
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ "$status" -ne 0 ] && [ -f "$work/server.log" ]; then echo "--- server log (tail)"; tail -n 40 "$work/server.log"; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

log "swift build --product PasskeyServer"
timeout 1800 swift build --package-path "$package" --product PasskeyServer >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log"; die "the server does not build"; }
binary="$(swift build --package-path "$package" --show-bin-path)/PasskeyServer"

python3 "$here/conformance.py" setup "$work/tool"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
CONFORMANCE=1 PORT="$port" RP_ID=localhost ORIGINS="http://localhost:$port" \
  TRUST_ANCHORS_DIR="$work/tool/anchors" METADATA_DIR="$work/tool/metadata" \
  "$binary" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || die "the server exited at start"
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || die "the server did not answer on port $port"
log "server pid $server_pid on 127.0.0.1:$port; playing the cases"
started=$SECONDS
timeout 600 python3 "$here/conformance.py" run "http://127.0.0.1:$port" "$work/tool" "$work/run.json" \
  || die "a conformance case did not get its verdict"
log "cases played in $((SECONDS - started)) s"

# The run as a webauthn-ceremonies/1 file (every result posted within its ceremony, with the
# server's verdict and the profile's policy members), replayed by the library's webauthn-replay:
# the same verdicts without the server. CONFORMANCE_RECORD=<file> keeps a copy.
repo="$(cd "$package/../.." && pwd)"
timeout 1800 swift build --package-path "$repo" --product webauthn-replay >"$work/replay-build.log" 2>&1 \
  || { tail -n 40 "$work/replay-build.log"; die "webauthn-replay does not build"; }
"$(swift build --package-path "$repo" --show-bin-path)/webauthn-replay" "$work/run.json" >"$work/replay.log" 2>&1 \
  || { grep -v '^PASS' "$work/replay.log" | tail -n 40; die "the recorded run does not replay with the server's verdicts"; }
log "recording replayed: $(tail -n 1 "$work/replay.log")"
if [ -n "${CONFORMANCE_RECORD:-}" ]; then cp "$work/run.json" "$CONFORMANCE_RECORD"; log "recording kept in $CONFORMANCE_RECORD"; fi
