#!/usr/bin/env python3
"""Runs the example server's mutation points (Tests/mutants.txt): each mutant is applied in
place, the hardening steps it names are run through run-e2e.sh (which rebuilds the server), and
the file is restored whatever happens. A mutant is killed when the run fails.

Usage: Tests/mutate.py [--check] [ID ...]   (no ID: every mutant; --check: find each text only)"""
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
package = os.path.dirname(here)


def mutants():
    with open(os.path.join(here, "mutants.txt"), encoding="utf-8") as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                ident, path, text, replacement, steps = [part.strip() for part in line.split("@@")]
                yield ident, os.path.join(package, path), text, replacement, steps


def main(argv):
    check_only = "--check" in argv
    wanted = [a for a in argv if not a.startswith("--")]
    chosen = [m for m in mutants() if not wanted or m[0] in wanted]
    for ident, path, text, _, _ in chosen:
        with open(path, encoding="utf-8") as handle:
            count = handle.read().count(text)
        if count != 1:
            print(f"stale: {ident}: its text is found {count} times in {path}")
            return 2
    if check_only:
        print(f"{len(chosen)} mutation points found")
        return 0
    outcomes = []
    for ident, path, text, replacement, steps in chosen:
        with open(path, encoding="utf-8") as handle:
            original = handle.read()
        started = time.time()
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(original.replace(text, replacement))
            parts = steps if steps in ("tokens", "appattest", "browser") else "hardening"
            run = subprocess.run([os.path.join(here, "run-e2e.sh")], capture_output=True, text=True, timeout=1500,
                                 env={**os.environ, "PASSKEY_E2E_PARTS": parts, "HARDENING_ONLY": steps})
        finally:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(original)
        output = run.stdout + run.stderr
        status = "build-error" if "build failed" in output else "killed" if run.returncode != 0 else "SURVIVED"
        failed = next((line for line in output.splitlines() if line.startswith("FAIL")), "")
        outcomes.append(status)
        print(f"{ident:22} {status:11} {time.time() - started:5.0f} s  {failed[:110]}", flush=True)
    print(f"{outcomes.count('killed')} of {len(outcomes)} killed")
    return 0 if all(o == "killed" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
