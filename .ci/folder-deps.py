#!/usr/bin/env python3
"""Prints which top-level folders of Sources/WebAuthnRP use which other folders' declarations,
and fails when the folder graph has a cycle (Docs/Architecture.md, "Inside WebAuthnRP",
gives the layer order this enforces).

Pragmatic, textual: for every folder it collects the names it declares (top-level types,
typealiases, protocols and functions, and the camel-case members of at least 12 characters
that `extension X` blocks add; a name declared in two folders counts for neither), then looks for those names, as whole words, in the other folders'
code with comments and string literals removed. A use of a name declared in folder B from
folder A is an edge A -> B. Files directly in Sources/WebAuthnRP (no folder) count as the
folder "(root)", the bottom layer every folder may use; the root must not use any folder.

Usage: .ci/folder-deps.py [--quiet] [--why A B]
  --why A B   lists the names and files that make the edge A -> B
"""
import collections, os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "WebAuthnRP")
ROOT_FOLDER = "(root)"


def strip(source):
    """Source without comments and string-literal contents (interpolations are kept)."""
    out, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if source.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif source.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == '"':
            triple = source.startswith('"""', i)
            quote = '"""' if triple else '"'
            i += len(quote)
            out.append('""')
            while i < n and not source.startswith(quote, i):
                if source[i] == "\\" and i + 1 < n and source[i + 1] == "(":
                    # keep the interpolated expression
                    depth, i = 1, i + 2
                    start = i
                    while i < n and depth:
                        depth += {"(": 1, ")": -1}.get(source[i], 0)
                        i += 1
                    out.append(" " + source[start:i - 1] + " ")
                elif source[i] == "\\":
                    i += 2
                else:
                    i += 1
            i += len(quote)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def folder_of(path):
    rel = os.path.relpath(path, ROOT)
    parts = rel.split(os.sep)
    return ROOT_FOLDER if len(parts) == 1 else parts[0]


TYPE_DECL = re.compile(
    r"\b(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)")
FUNC_DECL = re.compile(r"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*)")
MEMBER_DECL = re.compile(
    r"\b(?:func|var|let|case)\s+([A-Za-z_][A-Za-z0-9_]*)|\binit\b")
EXTENSION = re.compile(r"\bextension\s+([A-Za-z_][A-Za-z0-9_.]*)")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def top_level_blocks(text):
    """(header, body) for every top-level brace block."""
    blocks, depth, start, header_start = [], 0, 0, 0
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                header = text[header_start:start]
                blocks.append((header, text[start + 1:i]))
                header_start = i + 1
    return blocks



def outside_braces(text):
    """The characters of `text` at brace depth 0: what a block declares at its own level."""
    flat, depth = [], 0
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            flat.append(c)
    return "".join(flat)

def main():
    args = sys.argv[1:]
    quiet = "--quiet" in args
    why = None
    if "--why" in args:
        k = args.index("--why")
        why = (args[k + 1], args[k + 2])

    texts = {}
    for dirpath, _, files in os.walk(ROOT):
        if ".docc" in dirpath:
            continue
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as handle:
                    texts[path] = strip(handle.read())

    declared = collections.defaultdict(set)   # folder -> names
    members = collections.defaultdict(set)    # folder -> member names of extensions of others' types
    for path, text in texts.items():
        folder = folder_of(path)
        for header, body in top_level_blocks(text):
            if re.search(r"\b(?:extension)\b", header):
                # members added by an extension: only depth-0 declarations of the body
                for m in MEMBER_DECL.finditer(outside_braces(body)):
                    if m.group(1):
                        members[folder].add(m.group(1))
        # top-level functions and types: declarations outside every brace block (a nested type
        # is named through its outer type)
        top = outside_braces(text)
        declared[folder].update(FUNC_DECL.findall(top))
        declared[folder].update(TYPE_DECL.findall(top))

    # A name counts for the folder that declares it only when no other folder declares it too.
    owners = collections.defaultdict(set)
    for folder, names in declared.items():
        for name in names:
            owners[name].add(folder)
    member_owners = collections.defaultdict(set)
    for folder, names in members.items():
        for name in names:
            member_owners[name].add(folder)
    all_declared = set(owners)
    unique = {}
    for name, folders in owners.items():
        if len(folders) == 1:
            unique[name] = next(iter(folders))
    for name, folders in member_owners.items():
        # extension members: only distinctive names (long, declared in one folder, not a type)
        if (len(folders) == 1 and name not in all_declared and len(name) >= 12
                and re.search(r"[a-z][A-Z]", name)):
            unique.setdefault(name, next(iter(folders)))

    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for path, text in texts.items():
        folder = folder_of(path)
        for word in set(WORD.findall(text)):
            owner = unique.get(word)
            if owner and owner != folder:
                edges[folder][owner].add((word, os.path.relpath(path, ROOT)))

    folders = sorted(set(folder_of(p) for p in texts))
    if why:
        for word, path in sorted(edges[why[0]][why[1]], key=lambda item: (item[1], item[0])):
            print(f"{path}: {word}")
        return 0

    if not quiet:
        print("folder graph of Sources/WebAuthnRP (A -> folders whose declarations A uses):")
        for folder in folders:
            targets = sorted(edges[folder])
            print(f"  {folder:12} -> {', '.join(targets) if targets else '-'}")

    failed = False
    if edges[ROOT_FOLDER]:
        failed = True
        print(f"error: files directly in Sources/WebAuthnRP use folders: {', '.join(sorted(edges[ROOT_FOLDER]))}")

    # Strongly connected components (Tarjan); any with more than one folder is a cycle.
    index, low, stack, on_stack, components, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(component)

    sys.setrecursionlimit(10000)
    for folder in folders:
        if folder not in index:
            visit(folder)
    for component in components:
        if len(component) > 1:
            failed = True
            members_sorted = sorted(component)
            print(f"error: folder cycle: {' <-> '.join(members_sorted)}")
            for a in members_sorted:
                for b in members_sorted:
                    if b in edges[a]:
                        names = sorted({word for word, _ in edges[a][b]})
                        print(f"    {a} -> {b}: {', '.join(names[:12])}{' …' if len(names) > 12 else ''}")

    if not failed:
        # components come out in reverse topological order: bottom layer first
        order = [c[0] for c in components]
        print("layers, bottom first: " + ", ".join(order))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
