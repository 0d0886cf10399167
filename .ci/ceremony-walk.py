#!/usr/bin/env python3
"""A ceremony's walk through Sources/: the folders its code runs in, in the order it runs them,
how often it goes back to a folder it had left, and (second) the files.

Why this measure: the earlier one (`.ci/file-walk.py`) counted the files a ceremony runs code
in, which rewarded merging unrelated concepts into one file. Splitting a file into files of the
same folder changes neither figure here; what raises them is code that wanders: a ceremony that
goes down into a folder, back up, and down into it again.

Method (callgrind, over the benchmark executable in a debug build, so nothing is inlined across
functions):
  1. Runs the case under `valgrind --tool=callgrind --dump-instr=yes` twice, with 1 and with
     1 + N operations. A function runs per operation when its own instruction count grows with N;
     setup (keys, the pool of responses, the service) is in both runs and cancels out.
  2. Reads the call graph of the larger run: for each function, the functions it calls, each with
     the source line and instruction address of the call. A closure, an `await` resume part
     (`(n) await resume partial function for F`) and a default-argument generator belong to the
     function F that writes them, so F's calls are those of its whole body, at their lines.
     Thunks, protocol witnesses, `partial apply` forwarders and the Swift code of the standard
     library, Foundation and Synchronization are passed through: what they call is called from
     where they were called. The runtime's C entry points (`swift_release`, which runs every
     deinit) and the concurrency runtime (which resumes every suspended function) are not. Compiler-generated code (outlined copies, metadata and witness-table accessors) is
     not code a reader reads and is left out.
  3. Walks that graph depth first from the benchmark's operation loop (`<Case>.run(operations:)`),
     each function's calls in the order they are written (call-site line, then address), each
     function once (at its first call). The walk lists the functions of Sources/ (not the
     benchmark's own) that run per operation, in that order. What the benchmark's untimed
     preparation runs per operation (issuing each operation's challenge) and the deinits the
     runtime runs are not reached from the loop and not counted; `--list` names them.
  4. Each function's folder is the directory of its file under Sources/ (`WebAuthnRP/Ceremonies`,
     `WebAuthnCrypto/OpenSSL`, `WebAuthnCoding` for a file at the module's top). Consecutive
     functions in one folder are one visit.

Definitions:
  folders visited: the distinct folders of the walk.
  returns: the visits to a folder the walk had already visited and left, that is, in the
     sequence of visits (consecutive functions of one folder collapsed), every visit whose
     folder appears earlier in the sequence. A walk that goes down the layers once, each folder
     entered once, has 0 returns; every return is a hop back into a folder already read.
  files: the distinct files of the walk (the secondary figure).

Limits: callgrind's call graph is per function, not per call path, so where library code calls
back into ours (a dictionary hashing a key, `map` running a closure) the callee is placed at the
first place the walk reaches that library function; order within a function is the order calls
are written, which is the order they run except across loops and branches. The figures are for
comparing layouts under one method, not an exact trace.

Usage: .ci/ceremony-walk.py [--case assertion.es256] [--operations 40] [--keep DIR]
                            [--binary PATH] [--list]
  cases: assertion.es256 (a discoverable login: body -> response -> finish),
         registration.packed.es256 (a packed registration with a certificate chain)
  --binary  a webauthn-bench built earlier (to measure another checkout's layout); default:
            builds Benchmarks/ in debug and uses it.
  --list    prints the walk (each visit's folder with its functions' files).
  --keep    keeps the callgrind files in DIR; files already there are read, not run again.
  WALK_DEBUG=NAME in the environment prints the call path by which the walk reaches a function
  whose name contains NAME (to check why a function sits where it does).
Needs valgrind (Debian's valgrind) and `swift demangle`.
"""
import argparse, collections, os, re, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BENCH_FOLDER = "WebAuthnBenchmarking"
# Libraries whose code is passed through (generic code that calls back into ours). The concurrency
# runtime is not: it resumes every suspended function of the process, so passing through it would
# put them all at the first `await`.
PASSED_LIBRARIES = ("libswiftCore.so", "libswiftSwiftOnoneSupport.so", "libFoundationEssentials.so",
                    "libFoundation.so", "libswiftSynchronization.so")

# Demangled (`swift demangle --simplified`) name prefixes.
SKIPPED = ("outlined ", "lazy protocol witness table", "type metadata", "base witness table",
           "associated type", "metadata ", "value witness", "protocol conformance descriptor",
           "nominal type descriptor", "__swift", "objectdestroy", "destroy helper", "block_",
           "lazy cache variable", "flat unique", "symbolic ", "get_witness_table", "globalinit",
           "one-time initialization token")
PASSED = ("protocol witness for ", "reabstraction thunk", "thunk for ", "dispatch thunk of ",
          "partial apply for ", "merged ", "async function pointer to ", "method lookup function",
          "vtable thunk", "@objc ")
PART_OF = re.compile(
    r"^(?:\(\d+\) (?:await|suspend) resume partial function for |(?:implicit )?closure #\d+ in "
    r"|default argument \d+ of |autoclosure #\d+ in |[A-Za-z_][A-Za-z0-9_]* #\d+ \([^)]*\) in )")


class Function:
    __slots__ = ("name", "obj", "file", "cost", "calls")

    def __init__(self, name, obj, file):
        self.name, self.obj, self.file = name, obj, file
        self.cost = 0
        self.calls = []  # (line, address, callee raw name)


def read_callgrind(path):
    """Functions by raw name: object, file, own instructions and calls with their call sites."""
    functions = {}
    obj = file = None
    current = None
    callee = callee_obj = callee_file = None
    pending_call = False
    with open(path, errors="replace") as text:
        for line in text:
            if pending_call:
                pending_call = False
                parts = line.split()
                address = int(parts[0], 16) if parts[0].startswith("0x") else 0
                current.calls.append((int(parts[1]), address, callee))
                if callee not in functions:
                    functions[callee] = Function(callee, callee_obj or obj, callee_file or file)
                # cob= and cfi= name the next call's callee only.
                callee_obj = callee_file = None
                continue
            if line[0].isdigit() or line.startswith("0x") or line.startswith("+") or line.startswith("-"):
                if current is not None:
                    parts = line.split()
                    if len(parts) >= 3:
                        current.cost += int(parts[2])
                continue
            key, _, value = line.rstrip("\n").partition("=")
            if key == "ob":
                obj = value
            elif key == "fl":
                file = value
            elif key in ("fi", "fe"):
                pass
            elif key == "fn":
                name = re.sub(r"'\d+$", "", value)
                current = functions.get(name)
                if current is None:
                    current = functions[name] = Function(name, obj, file)
                elif current.file in (None, "???"):
                    current.file, current.obj = file, obj
                callee_obj = callee_file = None
            elif key == "cob":
                callee_obj = value
            elif key in ("cfi", "cfl"):
                callee_file = value
            elif key == "cfn":
                callee = re.sub(r"'\d+$", "", value)
            elif key == "calls":
                pending_call = True
    return functions


def demangle(names):
    out = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def source_path(file):
    """The file relative to Sources/, or None for a file outside it."""
    if file is None:
        return None
    if file.startswith(ROOT + "/"):
        file = os.path.relpath(file, ROOT)
    match = re.search(r"(?:^|/)Sources/(.+)$", file)
    return match.group(1) if match else None


def owner(demangled):
    """The function a closure, resume part or default argument belongs to."""
    while True:
        stripped = PART_OF.sub("", demangled, count=1)
        if stripped == demangled:
            return demangled
        demangled = stripped


def walk(run_small, run_large):
    small, large = read_callgrind(run_small), read_callgrind(run_large)
    names = sorted(large)
    pretty = demangle(names)

    def kind(raw):
        text = pretty.get(raw, raw)
        if text.startswith(SKIPPED):
            return "skip", text
        if text.startswith(PASSED):
            return "pass", text
        return "code", text

    # Nodes: functions of Sources/ keyed by (file, owner); everything else passes calls through.
    node_of, grown = {}, collections.Counter()
    parts_of = collections.defaultdict(list)
    for raw in names:
        fn = large[raw]
        what, text = kind(raw)
        path = source_path(fn.file)
        if what != "code" or path is None:
            continue
        key = (path, owner(text))
        node_of[raw] = key
        parts_of[key].append(raw)
        grown[key] += fn.cost - (small[raw].cost if raw in small else 0)
    per_operation = {key for key, value in grown.items() if value > 0}

    def calls_of(raws):
        sites = [call for raw in raws for call in large[raw].calls]
        sites.sort(key=lambda call: (call[0] if call[0] else 1 << 30, call[1]))
        return [callee for _, _, callee in sites]

    # The operation loop: the case's `run(operations:)` (only the case that ran is in the graph).
    roots = [key for key in parts_of if key[0].startswith(BENCH_FOLDER + "/") and key[1].endswith(".run(operations:)")]
    if not roots:
        sys.exit("ceremony-walk: no <Case>.run(operations:) in the benchmark's functions")
    binary = large[parts_of[roots[0]][0]].obj  # the executable: its thunks and witnesses pass calls on
    order, seen, passed = [], set(), set()

    def visit_calls(raws, from_bench):
        for callee in calls_of(raws):
            key = node_of.get(callee)
            if key is None:
                what, _ = kind(callee)
                library = os.path.basename(large[callee].obj or "")
                ours = large[callee].obj == binary
                if what == "skip" or callee in passed or not (ours or library in PASSED_LIBRARIES):
                    continue
                if not callee.startswith("$s"):
                    continue  # the runtime's C entry points (swift_release runs every deinit)
                passed.add(callee)
                stack.append(("", "via " + pretty.get(callee, callee)))
                visit_calls([callee], from_bench)
                stack.pop()
                continue
            if not is_entry(callee):
                continue  # a closure or resume part: its calls are its owner's
            if key[0].startswith(BENCH_FOLDER + "/") and not from_bench:
                continue  # an async return into the benchmark's own setup (a caller, not a callee)
            visit(key)

    def is_entry(raw):
        return PART_OF.match(pretty.get(raw, raw)) is None

    stack = []

    def visit(key):
        if key in seen:
            return
        seen.add(key)
        if os.environ.get("WALK_DEBUG") and os.environ["WALK_DEBUG"] in key[1]:
            print("path:", " <- ".join(k[1][:60] for k in reversed(stack)), file=sys.stderr)
        stack.append(key)
        if key in per_operation and not key[0].startswith(BENCH_FOLDER + "/"):
            order.append(key)
        visit_calls(parts_of[key], key[0].startswith(BENCH_FOLDER + "/"))
        stack.pop()

    sys.setrecursionlimit(100000)
    for root in sorted(roots, key=lambda key: -grown[key]):
        visit(root)
    unplaced = sorted(key for key in per_operation - seen if not key[0].startswith(BENCH_FOLDER + "/"))
    return order, unplaced


def figures(order):
    visits = []
    for path, name in order:
        folder = os.path.dirname(path)
        if visits and visits[-1][0] == folder:
            visits[-1][1].append((path, name))
        else:
            visits.append((folder, [(path, name)]))
    seen, returns = set(), 0
    for folder, _ in visits:
        if folder in seen:
            returns += 1
        seen.add(folder)
    files = {path for path, _ in order}
    return visits, len(seen), returns, len(files)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", default="assertion.es256")
    parser.add_argument("--operations", type=int, default=40)
    parser.add_argument("--keep")
    parser.add_argument("--binary")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    binary = args.binary
    if not binary:
        subprocess.run(["swift", "build", "--package-path", os.path.join(ROOT, "Benchmarks")], check=True,
                       stdout=subprocess.DEVNULL)
        binary = os.path.join(ROOT, "Benchmarks", ".build", "debug", "webauthn-bench")
    work = args.keep or tempfile.mkdtemp(prefix="ceremony-walk-")
    os.makedirs(work, exist_ok=True)
    runs = []
    for n in (1, 1 + args.operations):
        out = os.path.join(work, f"callgrind.{args.case}.{n}.out")
        if not os.path.exists(out):
            subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-strings=no",
                            "--compress-pos=no", f"--callgrind-out-file={out}", binary,
                            "--case", args.case, "--iterations", str(n), "--warmup", "0"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs.append(out)
    order, unplaced = walk(runs[0], runs[1])
    visits, folders, returns, files = figures(order)
    if args.list:
        for folder, functions in visits:
            print(f"{folder}: " + ", ".join(sorted({os.path.basename(p) for p, _ in functions},
                                                   key=[os.path.basename(p) for p, _ in functions].index)))
        for path, name in unplaced:
            print(f"  (runs per operation, not reached from the loop: {path} {name})")
    print(f"{folders} folders, {returns} returns, {files} files ({args.case}; {len(visits)} visits, "
          f"{len(order)} functions, debug build)")


if __name__ == "__main__":
    sys.exit(main())
