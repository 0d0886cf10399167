#!/usr/bin/env bash
# Load: a PostgreSQL cluster of our own on 127.0.0.1, the example server (release) on it, and
# passkey-load registering users then running full logins over HTTP, with the library's
# in-process login rate in the same run. Usage: run-load.sh [seconds] [concurrency]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; package="$(dirname "$here")"
pg_bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
work="$(mktemp -d /tmp/passkey-load.XXXXXX)"; pids=(); pg_started=0; run_as=()
if [ "$(id -u)" -eq 0 ]; then
  id passkeye2e >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin passkeye2e
  chown passkeye2e "$work"; run_as=(runuser -u passkeye2e --)
fi
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  [ "$pg_started" = 1 ] && "${run_as[@]}" "$pg_bin/pg_ctl" -D "$work/pgdata" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
pg_port="$(free_port)"; port="$(free_port)"
"${run_as[@]}" "$pg_bin/initdb" -D "$work/pgdata" -U passkeys --auth=trust -E UTF8 >/dev/null
"${run_as[@]}" "$pg_bin/pg_ctl" -D "$work/pgdata" -l "$work/postgres.log" -w -t 60 \
  -o "-h 127.0.0.1 -p $pg_port -k $work -c max_connections=100 ${PG_EXTRA:-}" start >/dev/null
pg_started=1
swift build -c release --package-path "$package" >/dev/null
bin="$(swift build -c release --package-path "$package" --show-bin-path)"
PORT="$port" DATABASE_URL="postgres://passkeys@127.0.0.1:$pg_port/postgres" SESSION_KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')" \
  LOG_LEVEL=warning "$bin/PasskeyServer" >"$work/server.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
"$bin/passkey-load" "http://localhost:$port" "${1:-10}" "${2:-16}"
