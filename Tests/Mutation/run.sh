#!/usr/bin/env bash
# Mutation runner: proves that every verification check has a test that fails without it.
#
# Each line of Tests/Mutation/mutants.txt names one mutant: a file, an exact piece of its
# source text, the text that replaces it (the check removed, its condition negated or a
# comparison loosened) and the test filters that should notice. For each mutant the runner
#   1. applies it in a scratch copy of the tree (never in this checkout),
#   2. rebuilds incrementally (`swift build --build-tests`; the scratch .build is reused),
#   3. runs only the named tests (`swift test --skip-build --filter ...`),
#   4. records killed (a test failed), survived (every test passed) or build-error,
#   5. restores the file.
# A point whose text is not found exactly once stops the run before anything is built: the
# list is stale and must be fixed (points are text, not line numbers, so edits elsewhere in a
# file do not move them). Docs/Mutation.md explains the format and records the last campaign.
#
# Usage: Tests/Mutation/run.sh [options]
#   --only ID...        run these mutants only (the rest of the arguments up to the next option)
#   --filters SPEC      run these test filters (comma-separated) for every mutant instead of the
#                       list's own (e.g. whole targets, to see whether any test at all kills a survivor)
#   --sample N          run N mutants picked at random (for CI)
#   --seed S            seed for --sample (default: the date, so a day's CI runs agree)
#   --check             only check that every point is found exactly once; build nothing
#   --list FILE         the mutant list (default Tests/Mutation/mutants.txt)
#   --results FILE      append one tab-separated line per mutant (id, status, seconds, file, filters)
#   --markdown FILE     write a Markdown table of this run's results
#   --scratch DIR       scratch copy (default ${MUTATION_SCRATCH:-/tmp/mutation-scratch})
#   --in-place          mutate the checkout itself, restoring each file (for CI: a fresh clone whose
#                       .build `swift test` just filled, so no second full build is needed)
#   --no-baseline       skip the unmutated run of the selected filters
#   --keep-going        a surviving mutant does not make the exit status non-zero
# Exit status: 0 when every mutant run was killed (or --keep-going), 1 when one survived or
# did not build, 2 for a stale list or a failing baseline.
set -euo pipefail

# MUTATION_REPO_ROOT: the checkout to mutate, when this script runs from a copy (a long campaign
# should run from a copy, so that editing the checkout's run.sh cannot disturb it).
repo_root="${MUTATION_REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
list="$repo_root/Tests/Mutation/mutants.txt"
scratch="${MUTATION_SCRATCH:-/tmp/mutation-scratch}"
results=""
markdown=""
only=()
sample=0
seed="$(date -u +%Y%m%d)"
check_only=0
baseline=1
keep_going=0
filter_override=""
in_place=0
build_timeout="${MUTATION_BUILD_TIMEOUT:-1200}"
test_timeout="${MUTATION_TEST_TIMEOUT:-300}"

die() { printf 'mutation: error: %s\n' "$*" >&2; exit 2; }
log() { printf '%s\n' "$*"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --only) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do only+=("$1"); shift; done ;;
    --sample) sample="${2:?--sample needs N}"; shift 2 ;;
    --seed) seed="${2:?--seed needs a value}"; shift 2 ;;
    --check) check_only=1; shift ;;
    --filters) filter_override="${2:?--filters needs a pattern}"; shift 2 ;;
    --list) list="${2:?}"; shift 2 ;;
    --results) results="${2:?}"; shift 2 ;;
    --markdown) markdown="${2:?}"; shift 2 ;;
    --scratch) scratch="${2:?}"; shift 2 ;;
    --no-baseline) baseline=0; shift ;;
    --in-place) in_place=1; shift ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d'; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done
[ -f "$list" ] || die "no mutant list at $list"
if [ "$in_place" = 1 ]; then
  scratch="$repo_root"
else
  case "$scratch" in /|"$repo_root"|"$repo_root"/*) die "the scratch copy must lie outside the checkout" ;; esac
fi

# --- The list ------------------------------------------------------------------------------
# Directives: "%define NAME PATTERN" names a test-filter pattern that filter fields use as %NAME;
# "%skip PATTERN" is passed as `swift test --skip` for every run (slow stress suites that test
# no verification check).
# Line format (fields separated by "@@", surrounding blanks trimmed; '#' starts a comment line;
# the source text therefore cannot contain "@@", which Swift never needs):
#   ID @@ path @@ exact source text @@ replacement (may be empty) @@ filter[,filter...] [@@ equivalent: reason]
# A sixth field marks a mutant shown equivalent (no input can tell it from the original): it
# still runs, and its survival is reported as "equivalent" instead of failing the run.
trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; s="${s%"${s##*[![:space:]]}"}"; printf '%s' "$s"; }
ids=(); files=(); finds=(); repls=(); filters=(); equivs=()
group_names=(); group_values=(); skip_pattern=""
line_no=0
while IFS= read -r line || [ -n "$line" ]; do
  line_no=$((line_no + 1))
  case "$line" in
    ''|'#'*) continue ;;
    '%define '*)
      read -r _ name value <<< "$line"
      [ -n "$name" ] && [ -n "$value" ] || die "$list:$line_no: %define NAME PATTERN"
      group_names+=("$name"); group_values+=("$value"); continue ;;
    '%skip '*) skip_pattern="${line#%skip }"; continue ;;
  esac
  rest="$line"; fields=()
  while :; do
    case "$rest" in
      *'@@'*) fields+=("${rest%%@@*}"); rest="${rest#*@@}" ;;
      *) fields+=("$rest"); break ;;
    esac
  done
  [ "${#fields[@]}" -eq 5 ] || [ "${#fields[@]}" -eq 6 ] \
    || die "$list:$line_no: expected 5 or 6 fields separated by '@@', found ${#fields[@]}"
  id="$(trim "${fields[0]}")"
  for seen in "${ids[@]+"${ids[@]}"}"; do [ "$seen" = "$id" ] && die "$list:$line_no: duplicate id $id"; done
  ids+=("$id"); files+=("$(trim "${fields[1]}")"); finds+=("$(trim "${fields[2]}")")
  repls+=("$(trim "${fields[3]}")"); filters+=("$(trim "${fields[4]}")"); equivs+=("$(trim "${fields[5]:-}")")
  [ -n "${finds[-1]}" ] || die "$list:$line_no: empty source text"
  [ -n "${filters[-1]}" ] || die "$list:$line_no: no test filter"
  # %NAME in a filter field stands for the pattern a %define line gave NAME.
  expanded=()
  IFS=',' read -r -a parts <<< "${filters[-1]}"
  for part in "${parts[@]}"; do
    part="$(trim "$part")"
    if [ "${part#%}" != "$part" ]; then
      value=""
      for g in "${!group_names[@]}"; do [ "${group_names[$g]}" = "${part#%}" ] && value="${group_values[$g]}"; done
      [ -n "$value" ] || die "$list:$line_no: no %define for $part"
      part="$value"
    fi
    expanded+=("$part")
  done
  filters[-1]="$(IFS=','; echo "${expanded[*]}")"
done < "$list"
[ "${#ids[@]}" -gt 0 ] || die "the list is empty"

# Counts the occurrences of FIND in FILE, or writes FILE with the one occurrence replaced.
# perl (part of every Debian/Ubuntu base system) does exact text matching, no regular expressions.
count_text() { FIND="$2" perl -0777 -ne '$n=0; $p=0; while (($p = index($_, $ENV{FIND}, $p)) >= 0) { $n++; $p += length($ENV{FIND}) } print $n' "$1"; }
replace_text() {
  FIND="$2" REPL="$3" perl -0777 -i -pe '$i = index($_, $ENV{FIND}); die "not found\n" if $i < 0; substr($_, $i, length($ENV{FIND})) = $ENV{REPL}' "$1"
}

# Every point must be found exactly once, in the checkout, before anything else happens.
stale=0
for i in "${!ids[@]}"; do
  path="$repo_root/${files[$i]}"
  if [ ! -f "$path" ]; then
    printf 'mutation: stale: %s: no file %s\n' "${ids[$i]}" "${files[$i]}" >&2; stale=1; continue
  fi
  n="$(count_text "$path" "${finds[$i]}")"
  if [ "$n" != 1 ]; then
    printf 'mutation: stale: %s: text found %s times in %s (must be exactly once): %s\n' \
      "${ids[$i]}" "$n" "${files[$i]}" "${finds[$i]}" >&2
    stale=1
  fi
  if [ "${finds[$i]}" = "${repls[$i]}" ]; then
    printf 'mutation: %s: the replacement equals the source text\n' "${ids[$i]}" >&2; stale=1
  fi
done
[ "$stale" = 0 ] || die "the mutant list is stale: fix $list"
log "mutation: ${#ids[@]} mutation points, each found exactly once"
[ "$check_only" = 1 ] && exit 0

# --- Selection -----------------------------------------------------------------------------
selected=()
if [ "${#only[@]}" -gt 0 ]; then
  for want in "${only[@]}"; do
    found=""
    for i in "${!ids[@]}"; do [ "${ids[$i]}" = "$want" ] && found="$i"; done
    [ -n "$found" ] || die "no mutant with id $want"
    selected+=("$found")
  done
elif [ "$sample" -gt 0 ]; then
  mapfile -t selected < <(for i in "${!ids[@]}"; do echo "$i"; done \
    | SEED="$seed" perl -e 'srand($ENV{SEED} =~ /^\d{1,9}$/ ? $ENV{SEED} : unpack("%32C*", $ENV{SEED})); my @a = <STDIN>; for (my $i = @a; --$i;) { my $j = int rand($i + 1); @a[$i, $j] = @a[$j, $i] } print @a' \
    | head -n "$sample")
else
  selected=("${!ids[@]}")
fi
total="${#selected[@]}"
if [ -n "$filter_override" ]; then
  for i in "${selected[@]}"; do filters[$i]="$filter_override"; done
fi

# --- Scratch copy --------------------------------------------------------------------------
# What the build and the tests read (the package, its sources, tests and fixtures) is copied;
# only files whose content differs, so the scratch .build stays valid and every mutant is an
# incremental build. The campaign then works from this snapshot: edits made to the checkout
# while it runs do not leak into it.
# The sub-packages' sources too: a fence test reads them (no sub-package imports libcrypto).
tree_parts=(Package.swift Sources Tests Fixtures Fuzz/Sources Benchmarks/Sources)
mkdir -p "$scratch"
sync_tree() {
  if command -v rsync >/dev/null 2>&1; then
    (cd "$repo_root" && rsync -a --delete --relative "${tree_parts[@]}" "$scratch"/)
    return
  fi
  local listing
  listing="$(mktemp)"
  if git -C "$repo_root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$repo_root" ls-files -co --exclude-standard -z -- "${tree_parts[@]}" > "$listing"
  else
    (cd "$repo_root" && find "${tree_parts[@]}" -type f -print0) > "$listing"
  fi
  while IFS= read -r -d '' f; do
    f="${f#./}"
    [ -f "$repo_root/$f" ] || continue
    if ! cmp -s "$repo_root/$f" "$scratch/$f"; then
      mkdir -p "$scratch/$(dirname "$f")"
      cp -p "$repo_root/$f" "$scratch/$f"
    fi
  done < "$listing"
  # Drop sources the checkout no longer has (a stale file would still be compiled).
  (cd "$scratch" && find Sources Tests Fixtures -type f -print0 2>/dev/null) | while IFS= read -r -d '' f; do
    [ -e "$repo_root/$f" ] || rm -f "$scratch/$f"
  done
  rm -f "$listing"
}
if [ "$in_place" = 1 ]; then
  log "mutation: mutating the checkout in place (each file is restored)"
else
  log "mutation: syncing $repo_root -> $scratch"
  sync_tree
fi

# Only the test product is built per mutant (the executables need not be relinked each time).
package_name="$(sed -n 's/^ *name: *"\([^"]*\)".*/\1/p' "$repo_root/Package.swift" | head -n 1)"
[ -n "$package_name" ] || die "cannot read the package name from Package.swift"
test_product="${package_name}PackageTests"
build() { (cd "$scratch" && timeout "$build_timeout" swift build --product "$test_product") ; }
run_tests() {
  local spec="$1" args=() f
  IFS=',' read -r -a parts <<< "$spec"
  for f in "${parts[@]}"; do args+=(--filter "$f"); done
  [ -n "$skip_pattern" ] && args+=(--skip "$skip_pattern")
  (cd "$scratch" && timeout "$test_timeout" swift test --skip-build "${args[@]}")
}

# Logs (and each mutated file's original) live beside the scratch copy, or in a temporary
# directory when the checkout itself is mutated.
if [ "$in_place" = 1 ]; then logdir="$(mktemp -d "${TMPDIR:-/tmp}/mutation-logs.XXXXXX")"; else logdir="$scratch/.mutation-logs"; fi
mkdir -p "$logdir"

if [ "$baseline" = 1 ]; then
  log "mutation: baseline build (unmutated)"
  (cd "$scratch" && swift build --build-tests && swift build --product "$test_product") > "$logdir/baseline-build.log" 2>&1 \
    || { tail -40 "$logdir/baseline-build.log"; die "the unmutated tree does not build (or has no product $test_product)"; }
  # Every selected filter must pass unmutated, and must select at least one test
  # (a filter that matches nothing would let every mutant survive).
  specs=()
  for i in "${selected[@]}"; do
    dup=0
    for s in "${specs[@]+"${specs[@]}"}"; do [ "$s" = "${filters[$i]}" ] && dup=1; done
    [ "$dup" = 1 ] || specs+=("${filters[$i]}")
  done
  all_filters="$(IFS=','; echo "${specs[*]}")"
  log "mutation: baseline tests ($all_filters)"
  run_tests "$all_filters" > "$logdir/baseline-test.log" 2>&1 \
    || { tail -40 "$logdir/baseline-test.log"; die "the unmutated tests fail: fix them before mutating"; }
  (cd "$scratch" && swift test --skip-build --list-tests) > "$logdir/tests.txt" 2>/dev/null \
    || die "swift test --list-tests failed"
  for s in "${specs[@]}"; do
    IFS=',' read -r -a parts <<< "$s"
    for f in "${parts[@]}"; do
      grep -Eq -- "$f" "$logdir/tests.txt" || die "filter '$f' matches no test"
    done
  done
fi

# --- Campaign ------------------------------------------------------------------------------
killed=0; survived=0; broken=0; equivalent=0; k=0
rows=()
restore_all() { [ -n "${current_backup:-}" ] && [ -f "$current_backup" ] && cp "$current_backup" "$current_file"; current_backup=""; }
trap 'restore_all' EXIT INT TERM
for i in "${selected[@]}"; do
  k=$((k + 1))
  id="${ids[$i]}"; rel="${files[$i]}"
  current_file="$scratch/$rel"; current_backup="$logdir/$id.orig"
  cp "$current_file" "$current_backup"
  replace_text "$current_file" "${finds[$i]}" "${repls[$i]}"
  start=$(date +%s)
  if ! build > "$logdir/$id.build.log" 2>&1; then
    status="build-error"; broken=$((broken + 1))
  elif run_tests "${filters[$i]}" > "$logdir/$id.test.log" 2>&1; then
    if [ -n "${equivs[$i]}" ]; then
      status="equivalent"; equivalent=$((equivalent + 1))
    else
      status="survived"; survived=$((survived + 1))
    fi
  else
    rc=$?
    if [ "$rc" = 124 ]; then status="killed(timeout)"; else status="killed"; fi
    killed=$((killed + 1))
  fi
  secs=$(( $(date +%s) - start ))
  restore_all
  log "[$k/$total] $id $status ($secs s)"
  [ -n "$results" ] && printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$status" "$secs" "$rel" "${filters[$i]}" >> "$results"
  rows+=("| $id | \`$rel\` | $status | $secs s |")
done
trap - EXIT INT TERM
# The scratch sources equal the checkout again; its .build is rebuilt by the next run.
log "mutation: $total run: $killed killed, $equivalent equivalent, $survived survived, $broken build errors (logs in $logdir)"
if [ -n "$markdown" ]; then
  {
    echo "| Mutant | File | Result | Time |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows[@]+"${rows[@]}"}"
  } > "$markdown"
fi
if [ "$survived" -gt 0 ] || [ "$broken" -gt 0 ]; then
  [ "$keep_going" = 1 ] && exit 0
  exit 1
fi
exit 0
