#!/usr/bin/env python3
"""Counts the public declarations a server sees, per module, and fails when a module grows
past its budget. The symbol graphs come from `swift package dump-symbol-graph`, which this
script runs (it builds the package first when needed).

The count is every public symbol the compiler lists for the module (types, members, cases,
typealiases, extension members), without compiler-synthesized ones. A server imports
WebAuthnRP only; WebAuthnCrypto's public symbols are the few its signatures name (COSEAlgorithm,
Certificate, CryptoError), WebAuthnCoding has none. Raise a budget on purpose, with the
change that needs it, and record the new count in Docs/Architecture.md.

Usage: .ci/public-api.py [symbol-graph-dir]   (a directory given is read, nothing is built)
"""
import collections, glob, json, os, re, subprocess, sys

# The underscored products (_WebAuthnFuzzing, _WebAuthnBenchmarking) are left out: no server
# imports them, and their modules are not in BUDGET, so they are not counted.
# 464 -> 465 (issue 41, 7d): AttestationResult's one merged authenticatorName became metadataName
# and claimedProviderName, so a community list's claim is never read as a metadata statement.
# 465 -> 466 (issue 41, 7c): RelyingParty.isAllowedOrigin(_:) is public, so a server's
# same-origin check accepts exactly the origins the verifier does instead of comparing text.
# 466 -> 467 (issue 42): VerificationPolicy.fidoConformance(trust:), the one public way to the conformance profile
# 467 -> 468 (issue 42): MetadataTrust(statements:policy:additionalAnchors:), unsigned statements into the same source
# 468 -> 470 (native-app backend gaps): CeremonyChallenge.serialized and init(serialized:), the
# state a server carries between begin and finish as documented text instead of a Codable detour.
# 470 -> 471 (native-app backend gaps): VerifiedRegistration.userHandle, whose account a sign-up was for.
# 471 -> 472 (backend performance): JSONValue.jsonData(), the writer beside the strict reader, so a
# server's own small documents (the backend's signed ceremony state) skip JSONEncoder.
# 472 -> 529 (issue 46, Android key attestation of an app key): AndroidKeyAttestationService (6),
# AndroidKeyAttestationPolicy (7), VerifiedAndroidKeyAttestation (13), AndroidSecurityLevel (4),
# AndroidVerifiedBootState (5), AttestedAndroidKey (6), AndroidAppKeyStore (4),
# InMemoryAndroidAppKeyStore (5), AndroidAttestationStatusList (4), CeremonyKind.androidKeyAttestation
# (1), and the two enums' init(rawValue:) (2).
# 529 -> 553 (issue 46, part 3, Play Integrity verdicts verified locally): PlayIntegrityService (4:
# the type, init, issueChallenge(now:), verify(token:binding:now:)), PlayIntegrityPolicy (7),
# PlayIntegrityRequestBinding (3), VerifiedPlayIntegrityVerdict (9), CeremonyKind.playIntegrity (1).
BUDGET = {"WebAuthnRP": 553, "WebAuthnCrypto": 53, "WebAuthnCoding": 0}

if len(sys.argv) > 1:
    graphs = sys.argv[1]
else:
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    run = subprocess.run(["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"],
                         capture_output=True, text=True)
    found = re.search(r"Files written to (\S+)", run.stdout + run.stderr)
    if not found:
        sys.exit("swift package dump-symbol-graph wrote no symbol graphs:\n" + run.stdout + run.stderr)
    graphs = found.group(1)
counts = collections.Counter()
for path in glob.glob(os.path.join(graphs, "*.symbols.json")):
    module = os.path.basename(path).split(".")[0].split("@")[0]
    with open(path) as handle:
        graph = json.load(handle)
    for symbol in graph.get("symbols", []):
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        counts[module] += 1

failed = False
for module in sorted(BUDGET):
    count, budget = counts.get(module, 0), BUDGET[module]
    verdict = "ok" if count <= budget else "OVER BUDGET"
    failed |= count > budget
    print(f"{module:16} {count:5} public symbols (budget {budget}) {verdict}")
if "WebAuthnRP" not in counts:
    print(f"no WebAuthnRP symbol graph in {graphs}: run .ci/docc.sh first", file=sys.stderr)
    failed = True
sys.exit(1 if failed else 0)
