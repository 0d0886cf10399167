#!/usr/bin/env bash
# Load: a PostgreSQL cluster of our own on 127.0.0.1, then, one after the other on it, the
# example server (release) with challenges in PostgreSQL, the same with sealed challenges, a
# py_webauthn peer (Tests/py_peer.py: Starlette, uvicorn, asyncpg; installed into a venv under
# /tmp when missing) and the example server on its in-memory stores, each driven by passkey-load
# (keep-alive HTTP/1.1, one thread per connection) through its flows, with the CPU per operation
# of the server, PostgreSQL and the generator read from /proc. Usage: run-load.sh [seconds]
# [concurrency]. LOAD_SEALED=0, LOAD_PEER=0, LOAD_MEMORY=0 leave a run out; LOAD_PGBENCH=1 adds
# the login's SQL under pgbench; LOAD_PERF=PREFIX|stat profiles each server
# (Examples/PasskeyServer/README.md, Docs/Performance.md).
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
# LOAD_SERVER_BINARY: load another build of the server (an A/B comparison); passkey-load stays.
server_binary="${LOAD_SERVER_BINARY:-$bin/PasskeyServer}"
session_key="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
pg_pid="$(head -1 "$work/pgdata/postmaster.pid")"
# One server on PostgreSQL, then (LOAD_MEMORY=1) one on the in-memory stores, each loaded the same way.
serve() { # serve PORT [DATABASE_URL]   (CHALLENGE_MODE and SEALING_KEY pass through)
  PORT="$1" DATABASE_URL="${2:-}" SESSION_KEY="$session_key" LOG_LEVEL=warning "$server_binary" >>"$work/server.log" 2>&1 &
  pids+=("$!"); server_pid="$!"
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return; sleep 0.2; done
  echo "server did not start" >&2; cat "$work/server.log" >&2; exit 1
}
# LOAD_PERF=PREFIX: a perf profile of each server during its run, PREFIX.NAME.data (where its
# CPU goes); LOAD_PERF=stat: each server's context switches.
load() { # load NAME PORT [POSTGRES_PID]   (LOAD_FLOWS, LOAD_USERS_FILE and LOAD_LIBRARY_RATE pass through)
  local perf_pid=""
  case "${LOAD_PERF:-}" in
    "") ;;
    stat) perf stat -e context-switches -p "$server_pid" -o "$work/perf-stat.txt" >/dev/null 2>&1 & perf_pid="$!" ;;
    *) perf record -F 999 -g -o "$LOAD_PERF.$1.data" -p "$server_pid" >/dev/null 2>&1 & perf_pid="$!" ;;
  esac
  [ -n "$perf_pid" ] && pids+=("$perf_pid")
  LOAD_SERVER_PIDS="$server_pid" LOAD_POSTGRES_PID="${3:-}" "$bin/passkey-load" "http://localhost:$2" "$seconds" "$concurrency" \
    | tee "$work/load.$1.txt" || echo "passkey-load reported failures ($1)"
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid"; wait "$perf_pid" || true
    if [ "$LOAD_PERF" = stat ]; then grep -E "context-switches" "$work/perf-stat.txt"; fi
  fi
}
seconds="${1:-10}"; concurrency="${2:-16}"
# The accounts the first run registers (keys and counters), logged in again by the runs after it
# on the same database.
users_file="$work/users.txt"
echo "== server with PostgreSQL, challenges in the database"
serve "$port" "postgres://passkeys@127.0.0.1:$pg_port/postgres"
LOAD_USERS_FILE="$users_file" LOAD_LIBRARY_RATE=1 LOAD_FLOWS="${LOAD_FLOWS:-web,options,native,refresh}" load postgres "$port" "$pg_pid"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
if [ "${LOAD_SEALED:-1}" = 1 ]; then
  echo "== server with PostgreSQL for accounts and credentials, sealed challenges (CHALLENGE_MODE=sealed)"
  sealed_port="$(free_port)"
  CHALLENGE_MODE=sealed SEALING_KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')" \
    serve "$sealed_port" "postgres://passkeys@127.0.0.1:$pg_port/postgres"
  LOAD_USERS_FILE="$users_file" LOAD_FLOWS="${LOAD_FLOWS:-web,options,native,refresh}" load sealed "$sealed_port" "$pg_pid"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
fi
if [ "${LOAD_PEER:-1}" = 1 ]; then
  # The same web login routes in Python on the same tables and accounts (Tests/py_peer.py).
  venv="${PEER_VENV:-/tmp/passkey-peer-venv}"
  if ! "$venv/bin/python" -c 'import webauthn, starlette, uvicorn, asyncpg, uvloop, httptools' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q webauthn starlette 'uvicorn[standard]' asyncpg
  fi
  echo "== py_webauthn peer (Starlette on uvicorn, asyncpg), challenges in the database"
  peer_port="$(free_port)"
  PORT="$peer_port" DATABASE_URL="postgres://passkeys@127.0.0.1:$pg_port/postgres" SESSION_KEY="$session_key" \
    "$venv/bin/python" "$here/py_peer.py" >>"$work/peer.log" 2>&1 &
  pids+=("$!"); server_pid="$!"
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$peer_port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
  curl -fsS "http://127.0.0.1:$peer_port/healthz" >/dev/null || { echo "the peer did not start" >&2; cat "$work/peer.log" >&2; exit 1; }
  LOAD_USERS_FILE="$users_file" LOAD_FLOWS="web,options" load peer "$peer_port" "$pg_pid"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
fi
if [ "${LOAD_PGBENCH:-0}" = 1 ]; then
  # The floor of the database part: the login's five statements (Tests/pgbench-login.sql) run by
  # pgbench (libpq, C, prepared statements) from as many clients, with no HTTP server, no
  # verification and no generator, on the rows the HTTP run registered (renamed so client N is
  # user benchN with credential id int4send(N)). Its CPU per login is what PostgreSQL and the
  # leanest client need before any server does anything.
  echo "== pgbench: the login's SQL alone (prepared statements, $concurrency clients)"
  psql=("${run_as[@]}" "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U passkeys -d postgres -qAt -v ON_ERROR_STOP=1)
  "${psql[@]}" -c "DELETE FROM passkey_sessions" -c "WITH n AS (SELECT user_handle, row_number() OVER (ORDER BY created_at, user_handle) - 1 AS i
                               FROM passkey_users)
                   UPDATE passkey_users u SET username = 'bench' || n.i, username_key = 'bench' || n.i FROM n WHERE u.user_handle = n.user_handle" \
               -c "UPDATE passkey_credentials c SET id = int4send(substring(u.username FROM 6)::int)
                   FROM passkey_users u WHERE u.user_handle = c.user_handle"
  users="$("${psql[@]}" -c "SELECT count(*) FROM passkey_users")"
  [ "$users" -ge "$concurrency" ] || { echo "pgbench needs $concurrency registered users, found $users" >&2; exit 1; }
  # Runs a command; prints its output and then "client_cpu SECONDS", its user + system time.
  with_cpu() { python3 -c '
import resource, subprocess, sys
out = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(out.stdout); sys.stderr.write(out.stderr)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("client_cpu", usage.ru_utime + usage.ru_stime)
sys.exit(out.returncode)' "$@"; }
  for stored in 1 0; do
    if [ "$stored" = 1 ]; then echo "-- challenges in the database (5 statements)"; else echo "-- sealed challenges (3 statements)"; fi
    pg_before="$("$bin/passkey-load" --cpu-seconds "$pg_pid")"
    bench_out="$(with_cpu "${run_as[@]}" "$pg_bin/pgbench" -h 127.0.0.1 -p "$pg_port" -U passkeys -n -M prepared \
      -c "$concurrency" -j 2 -T "$seconds" -D stored_challenges="$stored" -f "$here/pgbench-login.sql" postgres)"
    pg_after="$("$bin/passkey-load" --cpu-seconds "$pg_pid")"
    echo "$bench_out" | grep -E '^(tps|latency average|number of transactions actually processed)'
    done_count="$(echo "$bench_out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')"
    client_cpu="$(echo "$bench_out" | sed -n 's/^client_cpu //p')"
    python3 -c 'import sys; n, c, pg = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[4]) - float(sys.argv[3]); print(f"CPU per login: PostgreSQL {pg * 1e6 / n:.0f} µs, pgbench {c * 1e6 / n:.0f} µs")' \
      "$done_count" "$client_cpu" "$pg_before" "$pg_after"
  done
fi
if [ "${LOAD_MEMORY:-1}" = 1 ]; then
  echo "== server with in-memory stores"
  memory_port="$(free_port)"
  serve "$memory_port"
  # No "options alone" here: at this server's rate (over 16,000 a second) unanswered options fill
  # the in-memory store's 100,000 outstanding challenges within seconds, and it then answers 503
  # until they expire, as it should; every login that follows would fail with it.
  LOAD_FLOWS="${LOAD_FLOWS:-web,native,refresh}" load memory "$memory_port"
fi
# The comparison in one line: the web login's server CPU, this example against the peer.
cpu_of() { sed -n 's/^CPU per web: server \([0-9]*\) µs.*/\1/p' "$work/load.$1.txt" 2>/dev/null | head -1; }
echo "== server CPU per web login: this example $(cpu_of postgres) µs (challenges in PostgreSQL), $(cpu_of sealed) µs (sealed), $(cpu_of memory) µs (in memory); a py_webauthn server $(cpu_of peer) µs (challenges in PostgreSQL)"
