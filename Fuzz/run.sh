#!/usr/bin/env bash
# Builds every libFuzzer harness once (release, -sanitize=fuzzer,address) and runs them.
#
#   Fuzz/run.sh NAME SECONDS [libFuzzer flags]   one harness, e.g. Fuzz/run.sh cbor 300
#   Fuzz/run.sh all SECONDS [libFuzzer flags]    every harness, FUZZ_JOBS (default 2) at a time
#   Fuzz/run.sh build                            build only
#   Fuzz/run.sh list                             the harness names
#   Fuzz/run.sh supported                        exit 0 when this toolchain can build libFuzzer harnesses
#
# Each run reads Fuzz/Seeds/NAME and Fuzz/Corpus/NAME (the working corpus, git-ignored, where
# new inputs are kept) and writes crashes, timeouts and out-of-memory inputs to
# Fuzz/FailingCases/NAME/. Every run ends with one summary line per harness:
#   | name | seconds | execs | cov | ft | findings | peak RSS MB |
# and the script exits 1 when any harness had a finding. Docs/Fuzzing.md explains the limits.
set -euo pipefail
cd "$(dirname "$0")"

HARNESSES=(
  cbor authenticator-data attestation-object cose-key client-data x509 response-json
  registration authentication fixture
  attstmt-packed attstmt-fido-u2f attstmt-tpm attstmt-android-key attstmt-android-safetynet
  attstmt-apple attstmt-compound appattest-attestation appattest-assertion
)

# Limits (Docs/Fuzzing.md, "Limits"): an input is at most a few hundred KB, so any single
# allocation over 256 MB or a process over 2 GB is a bug, and so is one input taking 10 s.
RSS_LIMIT_MB=2048
MALLOC_LIMIT_MB=256
TIMEOUT_S=10
# A 32 MB ASan quarantine instead of 256 MB keeps a healthy harness far below the RSS limit over a
# ten-minute run (Docs/Fuzzing.md, "Limits"). Allocation stacks stay full length: the leak
# suppressions match frames deep in them.
ASAN_SETTINGS="quarantine_size_mb=32"
BUILD_DIR=.build/release
LOG_DIR=.build/fuzz-logs

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

dictionary() {
  case "$1" in
    client-data|response-json|registration|authentication|fixture) echo json.dict ;;
    x509) echo der.dict ;;
    *) echo cbor.dict ;;
  esac
}

known() { local h; for h in "${HARNESSES[@]}"; do [ "$h" = "$1" ] && return 0; done; return 1; }

build() {
  echo "==> building ${#HARNESSES[@]} harnesses (release, -sanitize=fuzzer,address)" >&2
  # No build-manifest caching: the cache notices changes to this package only, so a source file
  # added to the root package would be left out of the build ("cannot find ... in scope").
  swift build -c release --disable-build-manifest-caching \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >&2
}

supported() {
  [ "$(uname -s)" = Linux ] || return 1
  local scratch; scratch="$(mktemp -d)"
  cat > "$scratch/probe.swift" <<'SWIFT'
@_cdecl("LLVMFuzzerTestOneInput") public func probe(_ d: UnsafePointer<UInt8>?, _ n: Int) -> CInt { 0 }
SWIFT
  local ok=0
  swiftc -sanitize=fuzzer,address -parse-as-library "$scratch/probe.swift" -o "$scratch/probe" >/dev/null 2>&1 || ok=1
  rm -rf "$scratch"
  return $ok
}

# Runs one harness; prints its summary row on stdout; returns 1 on a finding.
run_one() {
  local name="$1" seconds="$2"; shift 2
  local failing="FailingCases/$name" corpus="Corpus/$name" log="$LOG_DIR/$name.log"
  mkdir -p "$failing" "$corpus" "$LOG_DIR"
  local before; before="$(find "$failing" -type f ! -name README.md ! -name '*.log' | wc -l)"
  local status=0
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-$ASAN_SETTINGS}" \
  LSAN_OPTIONS="suppressions=$PWD/lsan.supp:print_suppressions=0" "$BUILD_DIR/fuzz-$name" \
    -max_total_time="$seconds" -rss_limit_mb="$RSS_LIMIT_MB" -malloc_limit_mb="$MALLOC_LIMIT_MB" \
    -timeout="$TIMEOUT_S" -dict="$(dictionary "$name")" -artifact_prefix="$failing/" \
    -print_final_stats=1 "$@" "$corpus" "Seeds/$name" >"$log" 2>&1 || status=$?
  local after; after="$(find "$failing" -type f ! -name README.md ! -name '*.log' | wc -l)"
  local findings=$((after - before))
  [ "$status" -ne 0 ] && [ "$findings" -eq 0 ] && findings=1  # a failure that left no artifact still counts
  local execs cov ft rss
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)"
  # The last status line carries the final coverage: "#N <event> cov: C ft: F ...".
  cov="$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)"
  ft="$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$findings" "${rss:-?}"
  if [ "$findings" -ne 0 ]; then
    echo "==> $name: finding (exit $status); log: Fuzz/$log" >&2
    grep -E '==PROPERTY VIOLATION==|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|Fatal error|SUMMARY' "$log" | head -5 >&2 || true
    return 1
  fi
  return 0
}

header() { printf '| harness | seconds | execs | cov | ft | findings | peak RSS MB |\n|---|---|---|---|---|---|---|\n'; }

command="${1:-}"
case "$command" in
  ""|-h|--help) usage ;;
  list) printf '%s\n' "${HARNESSES[@]}"; exit 0 ;;
  supported) supported; exit $? ;;
  build) build; exit 0 ;;
esac
seconds="${2:-}"
[[ "$seconds" =~ ^[0-9]+$ ]] || usage
shift 2
if [ "$command" != all ] && ! known "$command"; then
  echo "unknown harness '$command'; one of: all ${HARNESSES[*]}" >&2
  exit 2
fi
build

if [ "$command" != all ]; then
  header
  run_one "$command" "$seconds" "$@"
  exit $?
fi

# all: FUZZ_JOBS harnesses at a time; rows are printed in harness order at the end.
jobs="${FUZZ_JOBS:-2}"
rows="$(mktemp -d)"
trap 'rm -rf "$rows"' EXIT
pids=()
for name in "${HARNESSES[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "==> fuzzing $name for ${seconds}s" >&2
  ( if run_one "$name" "$seconds" "$@" >"$rows/$name.row"; then :; else echo 1 >"$rows/$name.failed"; fi ) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || true; done
header
failed=0
for name in "${HARNESSES[@]}"; do
  cat "$rows/$name.row"
  [ -e "$rows/$name.failed" ] && failed=1
done
exit $failed
