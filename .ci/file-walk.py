#!/usr/bin/env python3
"""Lists the files of Sources/ that one ceremony runs code in: the walk a reader follows.

Runs a case of the benchmark executable (debug build, so nothing is inlined across files)
under valgrind's callgrind twice, with 1 and with 1 + N operations, and lists every source
file whose instruction count grows with N: setup (keys, the pool of responses, the service)
is in both runs and cancels out. Docs/Architecture.md, "A ceremony's walk", records the lists.

Usage: .ci/file-walk.py [--case assertion.es256] [--operations 40] [--keep DIR]
  cases: assertion.es256 (a discoverable login: body -> response -> finish),
         registration.packed.es256 (a packed registration with a certificate chain)
Needs valgrind (Debian's valgrind); builds Benchmarks/ in debug.
"""
import argparse, collections, os, re, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def files_run(out_file):
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out_file],
                          capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\(.*?\)\s+(\S+?):", line)
        if not match:
            continue
        # callgrind names a file relative to the build's working directory or absolutely.
        path = match.group(2)
        if path.startswith(ROOT + "/"):
            path = os.path.relpath(path, ROOT)
        if not path.startswith("Sources/"):
            continue
        counts[path[len("Sources/"):]] += int(match.group(1).replace(",", ""))
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", default="assertion.es256")
    parser.add_argument("--operations", type=int, default=40)
    parser.add_argument("--keep")
    args = parser.parse_args()
    subprocess.run(["swift", "build", "--package-path", os.path.join(ROOT, "Benchmarks")], check=True,
                   stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, "Benchmarks", ".build", "debug", "webauthn-bench")
    work = args.keep or tempfile.mkdtemp(prefix="file-walk-")
    os.makedirs(work, exist_ok=True)
    runs = {}
    for n in (1, 1 + args.operations):
        out = os.path.join(work, f"callgrind.{n}.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary,
                        "--case", args.case, "--iterations", str(n), "--warmup", "0"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs[n] = files_run(out)
    base, more = runs[1], runs[1 + args.operations]
    walked = {f: more[f] - base.get(f, 0) for f in more if more[f] > base.get(f, 0)}
    # The benchmark's own driver is not part of the library's walk.
    walked = {f: v for f, v in walked.items() if not f.startswith("WebAuthnBenchmarking/")}
    for path, grown in sorted(walked.items(), key=lambda item: -item[1]):
        print(f"{grown // args.operations:>10}  {path}")
    print(f"{len(walked)} files ({args.case}; instructions per operation, debug build)")


if __name__ == "__main__":
    sys.exit(main())
