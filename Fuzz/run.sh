#!/usr/bin/env bash
# Builds every libFuzzer harness once (release, -sanitize=fuzzer,address) and runs them.
#
#   Fuzz/run.sh NAME SECONDS [libFuzzer flags]   one harness, e.g. Fuzz/run.sh cbor 300
#   Fuzz/run.sh all SECONDS [libFuzzer flags]    every harness, FUZZ_JOBS (default 2) at a time
#   Fuzz/run.sh campaign SECONDS CHUNKS          CHUNKS runs of SECONDS, each on the harness with the
#                                                fewest executions in the ledger, FUZZ_JOBS at a time,
#                                                each minimised into Fuzz/Corpus/NAME when it ends
#   Fuzz/run.sh minimize NAME|all                merge new inputs into the kept corpus, minimised
#   Fuzz/run.sh ledger                           per-harness totals of Fuzz/ledger.tsv (Markdown)
#   Fuzz/run.sh build                            build only
#   Fuzz/run.sh list                             the harness names
#   Fuzz/run.sh supported                        exit 0 when this toolchain can build libFuzzer harnesses
#
# Each run starts from Fuzz/Seeds/NAME and the kept corpus Fuzz/Corpus/NAME (both committed) and
# writes the new inputs it finds to Fuzz/.build/fuzz-work/NAME (git-ignored), so a run never
# changes a committed file but Fuzz/ledger.tsv. `minimize` merges those new inputs with the kept
# corpus (libFuzzer -set_cover_merge=1, the seeds counted as covered) into a fresh folder that
# replaces Fuzz/Corpus/NAME. Crashes, timeouts and out-of-memory inputs go to
# Fuzz/FailingCases/NAME/. Every run appends one row to Fuzz/ledger.tsv (FUZZ_LEDGER) and ends
# with one summary line per harness:
#   | name | seconds | execs | cov | ft | findings | peak RSS MB | corpus files |
# and the script exits 1 when any harness had a finding. FUZZ_DEADLINE (a `date -d` time) stops a
# campaign from starting a chunk that would end after it; FUZZ_HARNESSES (names, space-separated)
# limits a campaign to those harnesses, for example to leave out one whose harness is being sped
# up. Docs/Fuzzing.md explains the limits.
set -euo pipefail
cd "$(dirname "$0")"

# The harnesses: one folder Sources/fuzz-<name> each, the one list kept by hand (Package.swift
# reads the same folders; FuzzHarnessListTests checks them against WebAuthnFuzzing's targets
# and AttestationFormatList).
HARNESSES=()
for dir in Sources/fuzz-*/; do
  dir="${dir%/}"
  HARNESSES+=("${dir#Sources/fuzz-}")
done

# Limits (Docs/Fuzzing.md, "Limits"): an input is at most a few hundred KB, so any single
# allocation over 256 MB or a process over 2 GB is a bug, and so is one input taking 10 s.
RSS_LIMIT_MB=2048
MALLOC_LIMIT_MB=256
TIMEOUT_S=10
# libFuzzer writes an input slower than -report_slow_units (default 10 s) to the artifact folder as
# slow-unit-*, and run.sh would count it as a finding. Below the timeout that only measures how
# busy the machine was (a campaign at idle priority waits behind builds), and above it the input
# is a timeout finding anyway, so slow units are never written.
SLOW_UNIT_S=$((TIMEOUT_S * 100))
# A 32 MB ASan quarantine instead of 256 MB keeps a healthy harness far below the RSS limit over a
# ten-minute run. Allocation stacks are recorded 16 frames deep instead of 30: recording them is a
# third of a slow harness's time, and 16 frames still reach the frames the leak suppressions match
# (Docs/Fuzzing.md, "Limits").
ASAN_SETTINGS="quarantine_size_mb=32:malloc_context_size=16"
BUILD_DIR=.build/release
LOG_DIR=.build/fuzz-logs
# New inputs of runs not yet merged into the kept corpus (git-ignored, like all of .build).
WORK_DIR=.build/fuzz-work
LEDGER="${FUZZ_LEDGER:-ledger.tsv}"
LEDGER_HEADER="utc	commit	harness	seconds	execs	cov	ft	findings	peak_rss_mb	corpus_files	corpus_kb	note"

usage() { sed -n '2,26p' "$(basename "$0")" | sed 's/^# \{0,1\}//' >&2; exit 2; }

dictionary() {
  case "$1" in
    client-data|response-json|registration|authentication|fixture) echo json.dict ;;
    x509) echo der.dict ;;
    *) echo cbor.dict ;;
  esac
}

known() { local h; for h in "${HARNESSES[@]}"; do [ "$h" = "$1" ] && return 0; done; return 1; }

build() {
  # The ledger names the commit the binaries were built from, even if HEAD moves during a campaign.
  CODE_COMMIT="$(code_commit)"
  echo "==> building ${#HARNESSES[@]} harnesses (release, -sanitize=fuzzer,address) at $CODE_COMMIT" >&2
  # No build-manifest caching: the cache notices changes to this package only, so a source file
  # added to the root package would be left out of the build ("cannot find ... in scope"). No
  # package-manifest cache either: Package.swift lists the harness folders when it is evaluated,
  # and SwiftPM's shared cache keys a manifest by its text and path, so a clone where a harness
  # was added since the last evaluation at that path built without it.
  swift build -c release --disable-build-manifest-caching --manifest-cache none \
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

# Runs a harness binary with the limits and sanitizer settings every mode shares.
fuzzer() {
  local name="$1"; shift
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-$ASAN_SETTINGS}" \
  LSAN_OPTIONS="suppressions=$PWD/lsan.supp:print_suppressions=0" "$BUILD_DIR/fuzz-$name" \
    -rss_limit_mb="$RSS_LIMIT_MB" -malloc_limit_mb="$MALLOC_LIMIT_MB" -timeout="$TIMEOUT_S" \
    -report_slow_units="$SLOW_UNIT_S" -artifact_prefix="FailingCases/$name/" "$@"
}

# "FILES KB" of the input files in the given folders (missing folders count as empty).
corpus_size() {
  local dir files=0 bytes=0 f b
  for dir in "$@"; do
    [ -d "$dir" ] || continue
    read -r f b < <(find "$dir" -type f ! -name '.*' -printf '%s\n' | awk '{ n++; s += $1 } END { print n + 0, s + 0 }')
    files=$((files + f)); bytes=$((bytes + b))
  done
  echo "$files $(( (bytes + 1023) / 1024 ))"
}

# The commit the harnesses were built from, "-dirty" when the code under test has local changes.
code_commit() {
  local commit
  commit="$(git -C .. rev-parse --short=12 HEAD 2>/dev/null)" || { echo unknown; return; }
  if [ -n "$(git -C .. status --porcelain -- Sources Package.swift Fuzz/Sources Fuzz/Package.swift 2>/dev/null)" ]; then
    commit="$commit-dirty"
  fi
  echo "$commit"
}

# Merges the new inputs of earlier runs (WORK_DIR/NAME) and the kept corpus into a fresh folder
# with libFuzzer's -set_cover_merge=1 (the -merge=1 that picks a smallest covering set rather than
# the smallest inputs first: about a third fewer files and bytes for the same features), the seeds
# placed there first so that only inputs adding features beyond the seeds are kept, and makes that
# folder the kept corpus Corpus/NAME.
minimize_one() {
  local name="$1" kept="Corpus/$1" work="$WORK_DIR/$1" fresh="$WORK_DIR/$1.merge" log="$LOG_DIR/$1.merge.log"
  mkdir -p "$kept" "$work" "$LOG_DIR" "FailingCases/$name"
  rm -rf -- "$fresh"; mkdir -p "$fresh"
  cp -pR "Seeds/$name/." "$fresh/"
  local before; before="$(corpus_size "$kept" "$work")"
  if ! fuzzer "$name" -set_cover_merge=1 "$fresh" "$kept" "$work" >"$log" 2>&1; then
    echo "==> $name: minimising failed; Corpus/$name left as it was; log: Fuzz/$log" >&2
    rm -rf -- "$fresh"
    return 1
  fi
  local seed
  for seed in "Seeds/$name"/*; do rm -f -- "$fresh/$(basename "$seed")"; done
  rm -rf -- "$kept"; mv "$fresh" "$kept"
  rm -rf -- "$work"; mkdir -p "$work"
  local after; after="$(corpus_size "$kept")"
  echo "==> minimised $name: ${before% *} files (kept + new) -> ${after% *} files, ${after#* } KB ($(grep -Eo 'MERGE-OUTER: [0-9]+ new files with [0-9]+ new features' "$log" | tail -1 || true) over the seeds)" >&2
}

# Runs one harness; prints its summary row on stdout and appends it to the ledger (after
# minimising when FUZZ_MINIMIZE=1); returns 1 on a finding.
run_one() {
  local name="$1" seconds="$2"; shift 2
  local failing="FailingCases/$name" corpus="Corpus/$name" work="$WORK_DIR/$name" log="$LOG_DIR/$name.log"
  mkdir -p "$failing" "$corpus" "$work" "$LOG_DIR"
  local commit="${CODE_COMMIT:-$(code_commit)}"
  local before; before="$(find "$failing" -type f ! -name README.md ! -name '*.log' ! -name '.*' | wc -l)"
  local status=0
  fuzzer "$name" -max_total_time="$seconds" -dict="$(dictionary "$name")" -print_final_stats=1 "$@" \
    "$work" "$corpus" "Seeds/$name" >"$log" 2>&1 || status=$?
  local after; after="$(find "$failing" -type f ! -name README.md ! -name '*.log' ! -name '.*' | wc -l)"
  local findings=$((after - before))
  [ "$status" -ne 0 ] && [ "$findings" -eq 0 ] && findings=1  # a failure that left no artifact still counts
  local execs cov ft rss
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)"
  # The last status line carries the final coverage: "#N <event> cov: C ft: F ...".
  cov="$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)"
  ft="$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)"
  local note="kept + new inputs, not minimised"
  if [ "${FUZZ_MINIMIZE:-0}" = 1 ]; then
    if minimize_one "$name"; then note="minimised"; else note="minimising failed"; fi
  fi
  local size; size="$(corpus_size "$corpus" "$work")"
  [ -s "$LEDGER" ] || printf '%s\n' "$LEDGER_HEADER" >"$LEDGER"
  # One short line per append: concurrent jobs never interleave inside a row.
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" \
    "$name" "$seconds" "${execs:-0}" "${cov:-?}" "${ft:-?}" "$findings" "${rss:-?}" "${size% *}" "${size#* }" \
    "$note" >>"$LEDGER"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
    "$findings" "${rss:-?}" "${size% *}"
  if [ "$findings" -ne 0 ]; then
    echo "==> $name: finding (exit $status); log: Fuzz/$log" >&2
    grep -E '==PROPERTY VIOLATION==|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|Fatal error|SUMMARY' "$log" | head -5 >&2 || true
    return 1
  fi
  return 0
}

header() {
  printf '| harness | seconds | execs | cov | ft | findings | peak RSS MB | corpus files |\n'
  printf '|---|---|---|---|---|---|---|---|\n'
}

# Per harness: runs, seconds and executions summed over the ledger, the coverage of its latest
# run, findings, and the kept corpus as it is now.
ledger_summary() {
  local name size
  [ -s "$LEDGER" ] || printf '%s\n' "$LEDGER_HEADER" >"$LEDGER"
  printf '| harness | runs | seconds | execs | to 10 M | last cov | last ft | findings | kept corpus files | kept corpus KB |\n'
  printf '|---|---|---|---|---|---|---|---|---|---|\n'
  for name in "${HARNESSES[@]}"; do
    size="$(corpus_size "Corpus/$name")"
    awk -F'\t' -v name="$name" -v files="${size% *}" -v kb="${size#* }" '
      NR > 1 && $3 == name { runs++; secs += $4; execs += $5; cov = $6; ft = $7; found += $8 }
      END {
        left = 10000000 - execs; if (left < 0) left = 0
        printf "| %s | %d | %d | %d | %d | %s | %s | %d | %s | %s |\n", name, runs, secs, execs, left,
          (cov == "" ? "-" : cov), (ft == "" ? "-" : ft), found, files, kb
      }' "$LEDGER"
  done
  local total; total="$(corpus_size Corpus)"
  printf '\nKept corpora: %s files, %s KB.\n' "${total% *}" "${total#* }"
}

# The harness with the fewest executions in the ledger that is not running (state folder).
next_harness() {
  local state="$1" name
  for name in "${CAMPAIGN_HARNESSES[@]}"; do
    [ -e "$state/$name" ] && continue
    awk -F'\t' -v name="$name" 'NR > 1 && $3 == name { n += $5 } END { printf "%d\t%s\n", n, name }' "$LEDGER"
  done | sort -n -k1,1 -s | head -1 | cut -f2
}

campaign() {
  local seconds="$1" chunks="$2"; shift 2
  local jobs="${FUZZ_JOBS:-2}" state rows deadline=""
  CAMPAIGN_HARNESSES=("${HARNESSES[@]}")
  if [ -n "${FUZZ_HARNESSES:-}" ]; then
    read -r -a CAMPAIGN_HARNESSES <<<"$FUZZ_HARNESSES"
    for name in "${CAMPAIGN_HARNESSES[@]}"; do known "$name" || { echo "FUZZ_HARNESSES: no harness named $name" >&2; exit 2; }; done
  fi
  [ -n "${FUZZ_DEADLINE:-}" ] && deadline="$(date -d "$FUZZ_DEADLINE" +%s)"
  state="$(mktemp -d)"; rows="$(mktemp -d)"
  [ -s "$LEDGER" ] || printf '%s\n' "$LEDGER_HEADER" >"$LEDGER"
  local started=0 name
  while [ "$started" -lt "$chunks" ]; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    # A chunk takes its seconds plus loading and minimising (a few minutes at most).
    if [ -n "$deadline" ] && [ $(( $(date +%s) + seconds + 300 )) -gt "$deadline" ]; then
      echo "==> FUZZ_DEADLINE: no chunk started after $started" >&2
      break
    fi
    name="$(next_harness "$state")"
    [ -n "$name" ] || { wait -n || true; continue; }
    touch "$state/$name"
    started=$((started + 1))
    echo "==> chunk $started/$chunks: $name for ${seconds}s ($(date -u +%H:%M:%SZ))" >&2
    ( if FUZZ_MINIMIZE=1 run_one "$name" "$seconds" "$@" >>"$rows/rows"; then :; else touch "$rows/failed"; fi
      rm -f "$state/$name" ) &
  done
  wait || true
  header
  cat "$rows/rows" 2>/dev/null || true
  local failed=0; [ -e "$rows/failed" ] && failed=1
  rm -rf "$state" "$rows"
  return $failed
}

command="${1:-}"
case "$command" in
  ""|-h|--help) usage ;;
  list) printf '%s\n' "${HARNESSES[@]}"; exit 0 ;;
  supported) supported; exit $? ;;
  build) build; exit 0 ;;
  ledger) ledger_summary; exit 0 ;;
  minimize)
    target="${2:-}"
    [ -n "$target" ] || usage
    if [ "$target" != all ] && ! known "$target"; then
      echo "unknown harness '$target'; one of: all ${HARNESSES[*]}" >&2
      exit 2
    fi
    build
    failed=0
    if [ "$target" = all ]; then
      for name in "${HARNESSES[@]}"; do minimize_one "$name" || failed=1; done
    else
      minimize_one "$target" || failed=1
    fi
    exit $failed ;;
  campaign)
    [[ "${2:-}" =~ ^[0-9]+$ ]] && [[ "${3:-}" =~ ^[0-9]+$ ]] || usage
    seconds="$2"; chunks="$3"; shift 3
    build
    campaign "$seconds" "$chunks" "$@"
    exit $? ;;
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
