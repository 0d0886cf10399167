#!/usr/bin/env python3
"""Compares the public API of every library product a server depends on with the stored
baseline (.ci/public-api-baseline.json, the API of the newest release) and fails when a public
declaration was removed or changed and CHANGELOG.md's Unreleased section does not name it
under "### Breaking". Additions pass and are listed.

What is compared, per product: the products are the library products of Package.swift whose
name does not start with "_" (WebAuthnRP; _WebAuthnFuzzing and _WebAuthnBenchmarking are not
for servers), each with the modules it builds from (WebAuthnRP, WebAuthnCrypto, WebAuthnCoding:
a server sees the public declarations of all three). Each public symbol of their symbol graphs
(`swift package dump-symbol-graph --minimum-access-level public`, compiler-synthesized members
left out) is kept as its precise identifier (the compiler's USR, which spells the full
signature), its path (`RelyingParty.isAllowedOrigin(_:)`), its kind, its declaration as the
compiler prints it (with generic constraints) and, for a type, the protocols it conforms to.

A break is:
  - a symbol of the baseline that is gone: "removed", or "changed" when a symbol of the same
    path and kind is there with another declaration (a signature changed), or "moved to another
    module" (a server importing WebAuthnRP alone may no longer see it);
  - a conformance of a type that is gone, or a default implementation of a requirement;
  - an added enum case (no library evolution: every public enum is frozen, so a server's
    exhaustive `switch` stops compiling) or an added protocol requirement without a default
    implementation (a server's conforming type stops compiling).
Declarations are compared without what no caller depends on and printers vary (parameter names
inside the function, `_` labels, type qualifiers, `Self`; see signature()). Not a break, and
listed: an addition; the same declaration under another identifier (Foundation's types are
mangled in FoundationEssentials on Linux and Foundation on macOS); a function,
initializer or subscript that only gained parameters with a default value (every call still
compiles; a reference to the function itself as a value would not, which we accept).

The matching rule: a break is named when a code span (`...`) in a bullet of the Unreleased
section's `### Breaking` subsection names the symbol's path, compared without argument labels
and without a leading module name: `AppAttestService.init(relyingParty:challenges:)`,
`AppAttestService.init(…)` and `AppAttestService.init` all name
`AppAttestService.init(relyingParty:policy:)`. A span that names a removed or changed type
also names every member of it, and a lost conformance is named by its type's path.

Why the symbol graph and not `swift package diagnose-api-breaking-changes <ref>`: that command
needs a git ref of the baseline (no tag exists yet), checks it out and builds that tree as well
as the current one (on CI's two CPUs a clean build of the library is minutes, with tests about
nine), reports by its own printing rules, and cannot say which breaks the changelog already
announces. A symbol graph is written from the build CI has already done, the baseline is a
reviewable file in the repository, and a release records it with --update.

Usage: .ci/api-breaks.py [--update] [--graphs DIR] [--modules P=M,M,...]
                         [--baseline FILE] [--changelog FILE]
  --update      rewrites the baseline from the current API (at a release: README.md,
                "Releases and support"), then exits 0
  --graphs DIR  reads the symbol graphs in DIR instead of dumping them (nothing is built)
  --modules     the products and their modules, e.g. WebAuthnRP=WebAuthnRP,WebAuthnCrypto
                (default: read from `swift package describe --type json`)
"""
import argparse, glob, json, os, re, subprocess, sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BASELINE = os.path.join(ROOT, ".ci", "public-api-baseline.json")
CHANGELOG = os.path.join(ROOT, "CHANGELOG.md")
FORMAT = "webauthn-rp-public-api/1"


def products_from_package():
    """{product: [modules]}: the library products without a leading "_", each with the
    Swift targets it builds from (system libraries have no symbols)."""
    described = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT,
                               capture_output=True, text=True)
    if described.returncode != 0:
        sys.exit("swift package describe failed:\n" + described.stderr)
    package = json.loads(described.stdout[described.stdout.index("{"):])
    targets = {target["name"]: target for target in package["targets"]}
    products = {}
    for product in package["products"]:
        if "library" not in product["type"] or product["name"].startswith("_"):
            continue
        modules, pending = [], list(product["targets"])
        while pending:
            name = pending.pop()
            if name in modules or targets[name].get("type") == "system-target":
                continue
            modules.append(name)
            pending.extend(targets[name].get("target_dependencies") or [])
        products[product["name"]] = sorted(modules)
    return products


def dump_graphs():
    """Directory of the public symbol graphs (builds the package first when needed)."""
    run = subprocess.run(["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"],
                         cwd=ROOT, capture_output=True, text=True)
    found = re.search(r"Files written to (\S+)", run.stdout + run.stderr)
    if not found:
        sys.exit("swift package dump-symbol-graph wrote no symbol graphs:\n" + run.stdout + run.stderr)
    return found.group(1)


def declaration(symbol):
    """The declaration as the compiler prints it, with the constraints it keeps apart."""
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    constraints = symbol.get("swiftGenerics", {}).get("constraints", [])
    constraints += symbol.get("swiftExtension", {}).get("constraints", [])
    spelled = sorted({f'{c["lhs"]} {":" if c["kind"] != "sameType" else "=="} {c["rhs"]}' for c in constraints})
    return " ".join(text.split()) + (" where " + ", ".join(spelled) if spelled else "")


def signature(entry):
    """The declaration as compared: what a caller's code depends on, without what printers or
    authors vary freely. Parameter names inside the body of a function (`keyId k:` is
    `keyId:`), `_` labels (so `(_ data: [UInt8]) -> Bool` is `([UInt8]) -> Bool`), qualifiers
    (`WebAuthnError.Category` is `Category`: the compiler prints them in some places only) and
    `Self` (the type's own name) are left out; spaces are collapsed."""
    text = re.sub(r"([(]|, )(\w+) \w+: ", r"\1\2: ", entry["declaration"])
    text = re.sub(r"([(]|, )_: ", r"\1", text)
    text = re.sub(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_`])", "", text)
    parts = entry["path"].split(".")
    if len(parts) > 1:
        text = re.sub(r"`?\bSelf\b`?", parts[-2], text)
    return " ".join(text.split())


def read_api(graphs, products):
    """{precise: entry} over the products' modules, entries as the baseline stores them."""
    wanted = {module for modules in products.values() for module in modules}
    symbols, relationships = {}, []
    for path in sorted(glob.glob(os.path.join(graphs, "*.symbols.json"))):
        if os.path.basename(path).split(".")[0].split("@")[0] not in wanted:
            continue
        with open(path) as handle:
            graph = json.load(handle)
        module = graph["module"]["name"]
        for symbol in graph.get("symbols", []):
            precise = symbol["identifier"]["precise"]
            if symbol.get("accessLevel") not in ("public", "open") or "::SYNTHESIZED::" in precise:
                continue
            symbols[precise] = {
                "module": module,
                "path": ".".join(symbol["pathComponents"]),
                "kind": symbol["kind"]["identifier"],
                "declaration": declaration(symbol),
            }
        relationships += graph.get("relationships", [])
    names = {precise: entry["path"] for precise, entry in symbols.items()}
    for relation in relationships:
        source, target = relation["source"], relation["target"]
        if source not in symbols:
            continue
        target_name = names.get(target) or relation.get("targetFallback") or target
        if relation["kind"] in ("conformsTo", "inheritsFrom"):
            symbols[source].setdefault("conformances", []).append(target_name)
        elif relation["kind"] == "requirementOf":
            symbols[source]["requirementOf"] = target_name
        elif relation["kind"] == "defaultImplementationOf":
            symbols[source].setdefault("implements", []).append(target)
    defaulted = {target for entry in symbols.values() for target in entry.pop("implements", [])}
    for precise, entry in symbols.items():
        if "conformances" in entry:
            entry["conformances"] = sorted(set(entry["conformances"]))
        if "requirementOf" in entry and precise in defaulted:
            entry["defaulted"] = True
    return symbols


def base(path):
    """A path without argument labels and module: `A.f(x:)` and `WebAuthnRP.A.f(…)` -> `A.f`."""
    return re.sub(r"\([^()]*\)$", "", path)


def breaking_spans(changelog_path, modules):
    """The code spans of the bullets under `### Breaking` in the Unreleased section."""
    if not os.path.exists(changelog_path):
        return set()
    spans, section, subsection = set(), None, None
    with open(changelog_path) as handle:
        for line in handle:
            if line.startswith("## "):
                section, subsection = line[3:].strip().strip("[]").split("]")[0], None
            elif line.startswith("### "):
                subsection = line[4:].strip()
            elif section == "Unreleased" and subsection == "Breaking":
                for span in re.findall(r"`([^`]+)`", line):
                    span = span.strip()
                    for module in modules:
                        if span.startswith(module + "."):
                            span = span[len(module) + 1:]
                    spans.add(base(span))
    return spans


def split_parameters(text):
    """(head, [parameters], tail) of `func f(a: A, b: B = b) -> R`, split at depth 0; None when
    the declaration has no parameter list."""
    opening = text.find("(")
    if opening < 0:
        return None
    depth, parts, start = 0, [], opening + 1
    for index in range(opening, len(text)):
        char = text[index]
        if char in "([<":
            depth += 1
        elif char in ")]>" and not (char == ">" and text[index - 1] == "-"):
            depth -= 1
            if depth == 0:
                parts.append(text[start:index].strip())
                return text[:opening], [part for part in parts if part], text[index + 1:]
        elif char == "," and depth == 1:
            parts.append(text[start:index].strip())
            start = index + 1
    return None


def source_compatible(old, new):
    """Whether `new` is `old` with parameters added that all have a default value: every call
    written against `old` still compiles (a reference to the function itself would not)."""
    old_parts, new_parts = split_parameters(old), split_parameters(new)
    if not old_parts or not new_parts or old_parts[0] != new_parts[0] or old_parts[2] != new_parts[2]:
        return False
    remaining = iter(new_parts[1])
    for parameter in old_parts[1]:
        for candidate in remaining:
            if candidate == parameter:
                break
            if " = " not in candidate:
                return False
        else:
            return False
    return all(" = " in candidate for candidate in remaining)


def compare(baseline, current):
    """(breaks, compatible, additions): breaks and source-compatible changes as (path, what,
    detail); additions as paths."""
    breaks, compatible, additions = [], [], []
    new_by_path, new_by_base = {}, {}
    for precise, entry in current.items():
        if precise not in baseline:
            new_by_path.setdefault((entry["path"], entry["kind"]), []).append(precise)
            new_by_base.setdefault((base(entry["path"]), entry["kind"]), []).append(precise)
    paired = set()
    for precise, old in sorted(baseline.items(), key=lambda item: (item[1]["path"], item[0])):
        new = current.get(precise)
        if new is None:
            # Another identifier at the same path and kind: the same declaration spelled by
            # another platform's Foundation, a move between modules, or a changed signature.
            # Under the same name with other labels: only a parameter with a default added.
            others = [p for p in new_by_path.get((old["path"], old["kind"]), []) if p not in paired]
            named_alike = [p for p in new_by_base.get((base(old["path"]), old["kind"]), []) if p not in paired]
            same = [p for p in others if signature(current[p]) == signature(old)]
            widened = [p for p in named_alike if source_compatible(signature(old), signature(current[p]))]
            match = (same or widened or others or [None])[0]
            if match is None:
                breaks.append((old["path"], "removed", old["declaration"]))
                continue
            paired.add(match)
            new = current[match]
            if new["module"] != old["module"]:
                breaks.append((old["path"], "moved to another module", f'{old["module"]} -> {new["module"]}'))
        if signature(new) != signature(old):
            change = (old["path"], "changed", f'{old["declaration"]}  ->  {new["declaration"]}')
            (compatible if source_compatible(signature(old), signature(new)) else breaks).append(change)
        lost = sorted(set(old.get("conformances", [])) - set(new.get("conformances", [])))
        if lost:
            breaks.append((old["path"], "conformance removed", ", ".join(lost)))
        if old.get("defaulted") and not new.get("defaulted"):
            breaks.append((old["path"], "default implementation removed", new["declaration"]))
    parents = {entry["path"] for entry in baseline.values()}
    for precise, new in sorted(current.items(), key=lambda item: (item[1]["path"], item[0])):
        if precise in baseline or precise in paired:
            continue
        parent = new["path"].rsplit(".", 1)[0] if "." in new["path"] else None
        if new["kind"] == "swift.enum.case" and parent in parents:
            breaks.append((new["path"], "case added to a public enum", new["declaration"]))
        elif "requirementOf" in new and not new.get("defaulted") and new["requirementOf"] in parents:
            breaks.append((new["path"], "protocol requirement added", new["declaration"]))
        else:
            additions.append(new["path"])
    return breaks, compatible, additions


def named(path, spans, broken_paths):
    """Whether a Breaking span names the symbol, or a broken type that holds it."""
    if base(path) in spans:
        return True
    parts = path.split(".")
    return any(".".join(parts[:i]) in spans and ".".join(parts[:i]) in broken_paths for i in range(1, len(parts)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true")
    parser.add_argument("--graphs")
    parser.add_argument("--modules", action="append", default=[])
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--changelog", default=CHANGELOG)
    args = parser.parse_args()

    if args.modules:
        products = {}
        for item in args.modules:
            product, _, modules = item.partition("=")
            products[product] = sorted(modules.split(","))
    else:
        products = products_from_package()
    current = read_api(args.graphs or dump_graphs(), products)
    if not current:
        sys.exit(f"no public symbol of {sorted(products)} in the symbol graphs")

    if args.update:
        commit = subprocess.run(["git", "rev-parse", "--short=8", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        document = {
            "format": FORMAT,
            "recordedAt": commit.stdout.strip() or "unknown",
            "products": products,
            "symbols": dict(sorted(current.items(), key=lambda item: (item[1]["path"], item[0]))),
        }
        with open(args.baseline, "w") as handle:
            json.dump(document, handle, indent=1, ensure_ascii=False)
            handle.write("\n")
        print(f"{args.baseline}: {len(current)} public symbols of {', '.join(sorted(products))} recorded")
        return 0

    if not os.path.exists(args.baseline):
        sys.exit(f"no baseline at {args.baseline}: record one with .ci/api-breaks.py --update")
    with open(args.baseline) as handle:
        stored = json.load(handle)
    if stored.get("format") != FORMAT:
        sys.exit(f"{args.baseline}: not a {FORMAT} document")
    if stored["products"] != products:
        print(f"note: the products' modules changed: {stored['products']} -> {products}")

    breaks, compatible, additions = compare(stored["symbols"], current)
    modules = {module for listed in products.values() for module in listed}
    spans = breaking_spans(args.changelog, modules)
    broken_paths = {path for path, _, _ in breaks}
    unnamed = [item for item in breaks if not named(item[0], spans, broken_paths)]

    print(f"public API of {', '.join(sorted(products))}: {len(current)} symbols, baseline "
          f"{len(stored['symbols'])} (recorded at {stored.get('recordedAt', '?')})")
    for path in additions:
        print(f"  added: {path}")
    for path, what, detail in compatible:
        print(f"  changed, source-compatible (parameters with defaults added): {path}\n      {detail}")
    for path, what, detail in breaks:
        verdict = "BREAKING, not in the changelog" if (path, what, detail) in unnamed else "breaking, named in the changelog"
        print(f"  {what}: {path} ({verdict})\n      {detail}")
    print(f"{len(additions)} added, {len(compatible)} source-compatible, {len(breaks)} breaking ({len(breaks) - len(unnamed)} named under "
          f"Unreleased / Breaking in {os.path.basename(args.changelog)})")
    if unnamed:
        print("a public declaration was removed or changed: name each path above in a bullet under "
              "'### Breaking' of '## [Unreleased]' in CHANGELOG.md (README.md, \"Releases and support\")",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
