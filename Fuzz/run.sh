#!/usr/bin/env bash
# Builds one harness with libFuzzer + AddressSanitizer and runs it.
#   Fuzz/run.sh FuzzCBOR [-max_total_time=60] [more libFuzzer flags]
# Crashes land in Fuzz/FailCases/<harness>/; add each one as a regression test.
set -euo pipefail
cd "$(dirname "$0")"
harness="${1:?usage: run.sh <FuzzCBOR|FuzzAuthenticatorData|FuzzAttestationObject|FuzzClientData|FuzzCOSEKey> [libFuzzer flags]}"
shift
swift build -c release --product "$harness" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
mkdir -p "Corpus/$harness" "FailCases/$harness"
".build/release/$harness" -artifact_prefix="FailCases/$harness/" "Corpus/$harness" "$@"
