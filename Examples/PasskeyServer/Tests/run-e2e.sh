#!/usr/bin/env bash
# Runs the passkey server's end-to-end tests with real parts, all on 127.0.0.1:
#   1. a PostgreSQL cluster of our own in a temporary directory (unprivileged user when run as root),
#   2. the example server built once and started twice (nodes A and B, one database, one cookie key),
#   3. Tests/e2e.py: headless Chromium with the DevTools virtual authenticator, two-node races,
#      bad input over HTTP, and a kill -9 of node A in the middle of a ceremony,
#   4. Tests/hardening.py: faults and hostile clients over raw HTTP with a software passkey whose
#      counter stays 0 (replays across nodes and restarts, database outages and restarts, slow
#      clients, the connection cap, session revocation, the passkey cap, usernames); it starts
#      its own nodes and stops and restarts the database through $work/pg.sh,
#   5. Tests/tokens.py: the token API as an app and a third party use it (refresh rotation, reuse
#      revoking the family, revocation, logout, expired/tampered/foreign tokens, JWKS checked with
#      PyJWT, signing keys shared and rotated across nodes), on three nodes of its own.
#   6. Tests/appattest_sim.py: a software App Attest device under a test root attests and asserts
#      against two nodes of its own that require App Attest (replays across nodes, a refresh
#      without an assertion, a development key on a production server, a counter race).
#   7. Tests/android_sim.py: a software Android Keystore under a test attestation root registers
#      its key and asserts requests against two nodes of its own that require it (replays across
#      nodes, a refresh without an assertion, a debug-signed app's key, a counter race).
#   8. Tests/quickstart.py: each article's app (Hummingbird's and Vapor's) as an app and a browser
#      use it, without DATABASE_URL and on PostgreSQL, and the App Attest suite against them.
# PASSKEY_E2E_SERVERS picks the servers (default both): "hummingbird" is this example (every part
# above); "vapor" is Examples/PasskeyServerVapor, against which the same HTTP checks run
# unchanged, from one list (vapor_parts below): e2e.py, tokens.py, appattest_sim.py and
# android_sim.py, on PostgreSQL with their own nodes on one database; quickstart.py's app and
# browser checks run against the Vapor article's app on SQLite (one node) and on PostgreSQL.
# Everything it starts is stopped by pid on exit. Bounded in time (timeout on every long step).
# Needs: postgresql (initdb, pg_ctl), chromium, chromium-driver, python3 with selenium, cryptography
# and PyJWT (installed from PyPI when missing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(dirname "$here")"
log() { printf '==> [passkey-e2e] %s\n' "$*"; }
die() { printf 'error: [passkey-e2e] %s\n' "$*" >&2; exit 1; }

pg_bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
[ -x "$pg_bin/initdb" ] || die "no PostgreSQL server binaries (apt-get install postgresql)"
command -v chromium >/dev/null || die "no chromium (apt-get install chromium chromium-driver)"
command -v chromedriver >/dev/null || die "no chromedriver (apt-get install chromium-driver)"
python3 -c 'import selenium' 2>/dev/null || die "no selenium for python3 (pip install selenium)"
python3 -c 'import cryptography' 2>/dev/null || die "no cryptography for python3 (pip install cryptography): hardening.py's software passkey"
# PyJWT is the third party that verifies the access tokens from the JWKS (tokens.py).
python3 -c 'import jwt' 2>/dev/null || python3 -m pip install -q PyJWT >/dev/null 2>&1 || die "no PyJWT for python3 (pip install PyJWT)"

work="$(mktemp -d /tmp/passkey-e2e.XXXXXX)"
pids=()
pg_started=0
run_as=()
if [ "$(id -u)" -eq 0 ]; then
  # PostgreSQL refuses to run as root: the cluster belongs to an unprivileged user.
  id passkeye2e >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin passkeye2e
  chown passkeye2e "$work"
  run_as=(runuser -u passkeye2e --)
fi

cleanup() {
  status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$pg_started" = 1 ]; then "${run_as[@]}" "$pg_bin/pg_ctl" -D "$work/pgdata" -m immediate stop >/dev/null 2>&1 || true; fi
  if [ "$status" -ne 0 ]; then
    for f in "$work"/node-*.log "$work/postgres.log"; do [ -f "$f" ] && { echo "--- $f (tail)"; tail -n 40 "$f"; }; done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# Free loopback ports (asked of the kernel, not guessed).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
pg_port="$(free_port)"; port_a="$(free_port)"; port_b="$(free_port)"; port_c="$(free_port)"
while [ "$port_b" = "$port_a" ] || [ "$port_b" = "$pg_port" ]; do port_b="$(free_port)"; done
while [ "$port_c" = "$port_a" ] || [ "$port_c" = "$port_b" ] || [ "$port_c" = "$pg_port" ]; do port_c="$(free_port)"; done

log "PostgreSQL: initdb in $work/pgdata, port $pg_port"
"${run_as[@]}" "$pg_bin/initdb" -D "$work/pgdata" -U passkeys --auth=trust -E UTF8 >"$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log"; die "initdb failed"; }
# pg.sh stop|start|restart: the cluster as hardening.py stops and restarts it (fast shutdown,
# as a deploy or a failover does; the same options each time).
{
  echo '#!/usr/bin/env bash'
  echo 'set -e'
  printf 'exec %s %q -D %q -l %q -m fast -w -t 60 -o %q "$1"\n' "${run_as[*]}" "$pg_bin/pg_ctl" "$work/pgdata" \
    "$work/postgres.log" "-h 127.0.0.1 -p $pg_port -k $work -c fsync=off"
} >"$work/pg.sh"
chmod 755 "$work/pg.sh"
"$work/pg.sh" start >/dev/null
pg_started=1
psql_url="postgresql://passkeys@127.0.0.1:$pg_port/postgres"
database_url="postgres://passkeys@127.0.0.1:$pg_port/postgres"

# The credential table as the example made it before the extension columns: the nodes'
# migration must add discoverable and prf_enabled to it in place (ADD COLUMN IF NOT EXISTS).
psql "$psql_url" -X -q -v ON_ERROR_STOP=1 -c "
  CREATE TABLE passkey_credentials (
    id bytea PRIMARY KEY, user_handle bytea NOT NULL,
    sign_count bigint NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
    backup_state boolean NOT NULL, uv_initialized boolean NOT NULL, record text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), last_used_at timestamptz)" >/dev/null

# PASSKEY_E2E_PARTS picks the parts to run (default all): "browser", "hardening", "tokens", "appattest",
# "android", "quickstart".
parts=" ${PASSKEY_E2E_PARTS:-browser hardening tokens appattest android quickstart} "
servers=" ${PASSKEY_E2E_SERVERS:-hummingbird vapor} "
hummingbird() { [[ "$servers" == *" hummingbird "* ]]; }

log "building the example (swift build --package-path $package)"
build_started=$SECONDS
timeout 1800 swift build --package-path "$package" --product PasskeyServer >"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log"; die "build failed"; }
# The tests' node: the same application with the one option the shipped server cannot set.
timeout 1800 swift build --package-path "$package" --product passkey-e2e-node >>"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log"; die "build failed"; }
binary="$(swift build --package-path "$package" --show-bin-path)/PasskeyServer"
test_node_binary="$(swift build --package-path "$package" --show-bin-path)/passkey-e2e-node"
# The replay tool, to replay what node A records of its failed ceremonies.
repo="$(cd "$package/../.." && pwd)"
timeout 1800 swift build --package-path "$repo" --product webauthn-replay >>"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log"; die "build of webauthn-replay failed"; }
replay="$(swift build --package-path "$repo" --show-bin-path)/webauthn-replay"
log "built in $((SECONDS - build_started)) s"

session_key="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
start_node() { # name port [extra environment...]   (node_binary: which executable, the shipped one by default)
  env HOST=127.0.0.1 PORT="$2" RP_ID=localhost ORIGINS="http://localhost:$port_a,http://localhost:$port_b,http://localhost:$port_c" \
    DATABASE_URL="$database_url" SESSION_KEY="$session_key" NODE_NAME="$1" LOG_LEVEL=info "${@:3}" \
    "${node_binary:-$binary}" >"$work/node-$1.log" 2>&1 &
  pids+=("$!")
  last_pid=$!
}
wait_ready() { # port
  for _ in $(seq 1 150); do
    curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "node on port $1 did not become ready"
}
# The browser suite's three nodes on one database, started at the same instant (the schema
# migration must tolerate that): start_browser_nodes SERVER TEST_NODE DATABASE_URL FAILED_DIR.
# A and C run SERVER; B runs TEST_NODE (the same server with the tests' option) and waits 1.5 s
# before each login's counter update, so a race can be staged (e2e.py); C keeps no challenge
# (sealed challenges). All three record each failed ceremony into FAILED_DIR, for
# webauthn-replay (off by default; e2e.py replays two of them).
start_browser_nodes() {
  local record=(DATABASE_URL="$3" RECORD_FAILED_CEREMONIES_DIR="$4" RECORD_FAILED_CEREMONIES_MAX_FILES=50)
  node_binary="$1" start_node a "$port_a" "${record[@]}"; pid_a=$last_pid
  node_binary="$2" start_node b "$port_b" E2E_UPDATE_DELAY_MS=1500 "${record[@]}"; pid_b=$last_pid
  node_binary="$1" start_node c "$port_c" CHALLENGE_MODE=sealed \
    SEALING_KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')" "${record[@]}"; pid_c=$last_pid
  wait_ready "$port_a"; wait_ready "$port_b"; wait_ready "$port_c"
  log "nodes ready: A http://localhost:$port_a (pid $pid_a), B http://localhost:$port_b, C (sealed) http://localhost:$port_c"
}
stop_browser_nodes() {
  kill "$pid_a" "$pid_b" "$pid_c" 2>/dev/null || true
  wait "$pid_a" "$pid_b" "$pid_c" 2>/dev/null || true
}
# run_browser PSQL_URL FAILED_DIR [environment...]: e2e.py against the three nodes.
run_browser() {
  env NODE_A="http://localhost:$port_a" NODE_B="http://localhost:$port_b" NODE_C="http://localhost:$port_c" NODE_A_PID="$pid_a" \
    PSQL_URL="$1" CHROMIUM="$(command -v chromium)" CHROMEDRIVER="$(command -v chromedriver)" \
    FAILED_CEREMONIES_DIR="$2" WEBAUTHN_REPLAY="$replay" E2E_SESSION_KEY="$session_key" "${@:3}" \
    timeout 600 python3 "$here/e2e.py"
}
if hummingbird; then start_browser_nodes "$binary" "$test_node_binary" "$database_url" "$work/failed-ceremonies"; fi

if hummingbird && [[ "$parts" == *" browser "* ]]; then
  e2e_started=$SECONDS
  run_browser "$psql_url" "$work/failed-ceremonies" E2E_OLD_CREDENTIAL_TABLE=1
  log "end-to-end tests (browser) passed in $((SECONDS - e2e_started)) s"
fi
if hummingbird && [[ "$parts" == *" hardening "* ]]; then
  hardening_started=$SECONDS
  PASSKEY_BINARY="$binary" DATABASE_URL="$database_url" PSQL_URL="$psql_url" E2E_WORK="$work" E2E_PG="$work/pg.sh" \
    E2E_SESSION_KEY="$session_key" timeout 600 python3 "$here/hardening.py"
  log "hardening tests (faults, hostile clients) passed in $((SECONDS - hardening_started)) s"
fi
if hummingbird && [[ "$parts" == *" tokens "* ]]; then
  tokens_started=$SECONDS
  PASSKEY_BINARY="$binary" DATABASE_URL="$database_url" PSQL_URL="$psql_url" E2E_WORK="$work" E2E_PG="$work/pg.sh" \
    E2E_SESSION_KEY="$session_key" timeout 300 python3 "$here/tokens.py"
  log "token tests (refresh rotation and reuse, revocation, JWKS with PyJWT, two nodes) passed in $((SECONDS - tokens_started)) s"
fi
if hummingbird && [[ "$parts" == *" appattest "* ]]; then
  appattest_started=$SECONDS
  PASSKEY_BINARY="$binary" DATABASE_URL="$database_url" PSQL_URL="$psql_url" E2E_WORK="$work" \
    E2E_SESSION_KEY="$session_key" timeout 300 python3 "$here/appattest_sim.py"
  log "App Attest tests (attest, assertions on refresh, replays on two nodes, environments) passed in $((SECONDS - appattest_started)) s"
fi
if hummingbird && [[ "$parts" == *" android "* ]]; then
  android_started=$SECONDS
  PASSKEY_BINARY="$binary" DATABASE_URL="$database_url" PSQL_URL="$psql_url" E2E_WORK="$work" \
    E2E_SESSION_KEY="$session_key" timeout 300 python3 "$here/android_sim.py"
  log "Android key attestation tests (register, assertions, replays on two nodes, a debug-signed app) passed in $((SECONDS - android_started)) s"
fi
if [[ "$parts" == *" quickstart "* ]]; then
  # The article "Add passkeys to a Hummingbird server": its app, in memory and on PostgreSQL,
  # then the App Attest suite against the same binary.
  quickstart_started=$SECONDS
  timeout 1800 swift build --package-path "$repo/Backend" --target passkey-quickstart >>"$work/build.log" 2>&1 \
    || { tail -n 60 "$work/build.log"; die "build of passkey-quickstart failed"; }
  quickstart="$(swift build --package-path "$repo/Backend" --show-bin-path)/passkey-quickstart"
  # A database of its own: the article's app migrates it from nothing, and the App Attest suite
  # counts rows as on a new server.
  psql "$psql_url" -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE quickstart" >/dev/null
  quickstart_db="postgres://passkeys@127.0.0.1:$pg_port/quickstart"
  quickstart_psql="postgresql://passkeys@127.0.0.1:$pg_port/quickstart"
  PASSKEY_BINARY="$quickstart" DATABASE_URL="$quickstart_db" PSQL_URL="$quickstart_psql" E2E_WORK="$work" \
    E2E_SESSION_KEY="$session_key" timeout 300 python3 "$here/quickstart.py"
  PASSKEY_BINARY="$quickstart" DATABASE_URL="$quickstart_db" PSQL_URL="$quickstart_psql" E2E_WORK="$work" \
    E2E_SESSION_KEY="$session_key" timeout 300 python3 "$here/appattest_sim.py"
  log "the Hummingbird article's app (in memory, PostgreSQL, App Attest) passed in $((SECONDS - quickstart_started)) s"
  # The article "Add passkeys to a Vapor server": the same checks against its app.
  quickstart_started=$SECONDS
  timeout 1800 swift build --package-path "$repo/Backend" --target passkey-quickstart-vapor >>"$work/build.log" 2>&1 \
    || { tail -n 60 "$work/build.log"; die "build of passkey-quickstart-vapor failed"; }
  # SQLite (passkeys.sqlite in the working directory: the run's own), then PostgreSQL, then App Attest.
  psql "$psql_url" -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE quickstart_vapor" >/dev/null
  quickstart_vapor="$(swift build --package-path "$repo/Backend" --show-bin-path)/passkey-quickstart-vapor"
  (cd "$work" && PASSKEY_BINARY="$quickstart_vapor" DATABASE_URL="postgres://passkeys@127.0.0.1:$pg_port/quickstart_vapor" \
    E2E_WORK="$work" E2E_SESSION_KEY="$session_key" timeout 300 python3 "$here/quickstart.py")
  (cd "$work" && PASSKEY_BINARY="$quickstart_vapor" DATABASE_URL="postgres://passkeys@127.0.0.1:$pg_port/quickstart_vapor" \
    PSQL_URL="postgresql://passkeys@127.0.0.1:$pg_port/quickstart_vapor" E2E_WORK="$work" E2E_SESSION_KEY="$session_key" \
    timeout 300 python3 "$here/appattest_sim.py")
  log "the Vapor article's app (SQLite, PostgreSQL, App Attest) passed in $((SECONDS - quickstart_started)) s"
fi
# The shared HTTP checks, run unchanged against the Vapor example: one list for both servers
# (vapor_parts: e2e.py's browser and two-node checks, tokens.py, appattest_sim.py,
# android_sim.py), each on PostgreSQL with its own nodes on one database. quickstart.py's app and
# browser checks run against the Vapor article's app, on SQLite and on PostgreSQL (part quickstart).
vapor_parts=" ${PASSKEY_E2E_VAPOR_PARTS:-browser tokens appattest android} "
if [[ "$servers" == *" vapor "* ]]; then
  vapor_package="$(cd "$package/../PasskeyServerVapor" && pwd)"
  log "building the Vapor example (swift build --package-path $vapor_package)"
  vapor_started=$SECONDS
  for product in PasskeyServerVapor passkey-e2e-node-vapor; do
    timeout 2400 swift build --package-path "$vapor_package" --product "$product" >>"$work/build.log" 2>&1 \
      || { tail -n 60 "$work/build.log"; die "build of the Vapor example ($product) failed"; }
  done
  vapor_bin="$(swift build --package-path "$vapor_package" --show-bin-path)"
  vapor_binary="$vapor_bin/PasskeyServerVapor"
  log "Vapor example built in $((SECONDS - vapor_started)) s"
  if [[ "$parts" == *" browser "* && "$vapor_parts" == *" browser "* ]]; then
    part_started=$SECONDS
    # The browser suite's ports and origins are the Hummingbird nodes': those stop first.
    if hummingbird; then stop_browser_nodes; fi
    psql "$psql_url" -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE vapor_browser" >/dev/null
    start_browser_nodes "$vapor_binary" "$vapor_bin/passkey-e2e-node-vapor" \
      "postgres://passkeys@127.0.0.1:$pg_port/vapor_browser" "$work/failed-ceremonies-vapor"
    run_browser "postgresql://passkeys@127.0.0.1:$pg_port/vapor_browser" "$work/failed-ceremonies-vapor"
    stop_browser_nodes
    log "Vapor example, browser (PostgreSQL, three nodes) passed in $((SECONDS - part_started)) s"
  fi
  psql "$psql_url" -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE vapor" >/dev/null
  vapor_db="postgres://passkeys@127.0.0.1:$pg_port/vapor"
  vapor_psql="postgresql://passkeys@127.0.0.1:$pg_port/vapor"
  for part in tokens appattest android; do
    [[ "$parts" == *" $part "* && "$vapor_parts" == *" $part "* ]] || continue
    part_started=$SECONDS
    script="$here/tokens.py"; [ "$part" = appattest ] && script="$here/appattest_sim.py"; [ "$part" = android ] && script="$here/android_sim.py"
    PASSKEY_BINARY="$vapor_binary" DATABASE_URL="$vapor_db" PSQL_URL="$vapor_psql" E2E_WORK="$work" E2E_PG="$work/pg.sh" \
      E2E_SESSION_KEY="$session_key" timeout 600 python3 "$script"
    log "Vapor example, $part (PostgreSQL, several nodes) passed in $((SECONDS - part_started)) s"
  done
fi
log "all parts passed in $((SECONDS - build_started)) s (build included)"
