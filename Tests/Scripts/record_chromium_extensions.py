#!/usr/bin/env python3
"""Record real-browser WebAuthn ceremonies WITH EXTENSIONS from headless Chromium's virtual
authenticator (hasPrf, hasLargeBlob, hasCredBlob, hasMinPinLength; credProps from the client).

Usage:
    record_chromium_extensions.py [--out DIR] [--port N] [--chromium PATH] [--chromedriver PATH]

Uses the page, WebDriver client and CBOR reader of record_chromium.py (same folder). Each file is
one virtual authenticator: a registration asking for extensions, then logins asking for others.
Responses are written exactly as the browser returned them into Fixtures/recorded/chromium/ as
`extensions-*.json`; `expect.extensions` is read from the browser's own outputs (client outputs and
the authenticator data's extensions map), never invented. A ceremony the browser refuses is
reported and its file is not written.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record_chromium as rc  # noqa: E402


def add_authenticator(driver: rc.WebDriver) -> str:
    return driver.request("POST", driver.s("/webauthn/authenticator"), {
        # WebDriver's names for DevTools' hasPrf / hasLargeBlob / hasCredBlob / hasMinPinLength.
        "protocol": "ctap2_1", "transport": "usb", "hasResidentKey": True,
        "hasUserVerification": True, "isUserConsenting": True, "isUserVerified": True,
        "extensions": ["prf", "largeBlob", "credBlob", "minPinLength"],
    })


def authenticator_extensions(auth_data: bytes) -> dict:
    """The authenticator data's extensions map, or {} (ED clear)."""
    flags = auth_data[32]
    if not flags & 0x80:
        return {}
    pos = 37
    if flags & 0x40:
        length = int.from_bytes(auth_data[53:55], "big")
        _, pos = rc.cbor_decode(auth_data, 55 + length)
    value, _ = rc.cbor_decode(auth_data, pos)
    return value if isinstance(value, dict) else {}


def expected_registration(client: dict, ext: dict) -> dict:
    out: dict[str, Any] = {}
    if isinstance(client.get("credProps"), dict) and "rk" in client["credProps"]:
        out["credProps"] = {"rk": client["credProps"]["rk"]}
    prf = client.get("prf")
    if isinstance(prf, dict):
        members = {}
        if "enabled" in prf:
            members["enabled"] = prf["enabled"]
        if isinstance(prf.get("results"), dict):
            members["results"] = prf["results"]
        if members:
            out["prf"] = members
    if isinstance(client.get("largeBlob"), dict) and "supported" in client["largeBlob"]:
        out["largeBlob"] = {"supported": client["largeBlob"]["supported"]}
    if "credProtect" in ext:
        out["credProtect"] = ext["credProtect"]
    if "minPinLength" in ext:
        out["minPinLength"] = ext["minPinLength"]
    if isinstance(ext.get("hmac-secret"), bool):
        out["hmacSecret"] = ext["hmac-secret"]
    if isinstance(ext.get("credBlob"), bool):
        out["credBlob"] = ext["credBlob"]
    return out


def expected_authentication(client: dict, ext: dict, options: dict) -> dict:
    out: dict[str, Any] = {}
    prf = client.get("prf")
    if isinstance(prf, dict) and isinstance(prf.get("results"), dict):
        out["prf"] = {"results": prf["results"]}
    large = client.get("largeBlob")
    if isinstance(large, dict) and large:
        out["largeBlob"] = {k: large[k] for k in ("blob", "written") if k in large}
    if options.get("extensions", {}).get("getCredBlob") and isinstance(ext.get("credBlob"), bytes):
        out["credBlob"] = rc.b64u(ext["credBlob"])
    if isinstance(ext.get("hmac-secret"), bytes):
        out["hmacSecret"] = True
    return out


def record(driver: rc.WebDriver, origin: str, stem: str, registration_ext: dict,
           logins: list[tuple[str, dict, bool]], recorded_at: str) -> Optional[dict]:
    authenticator = add_authenticator(driver)
    try:
        options = {
            "rp": {"id": rc.RP_ID, "name": rc.RP_NAME},
            "user": {"id": rc.derived("ext", stem, "user", length=16), "name": f"{stem}@localhost", "displayName": stem},
            "challenge": rc.derived("ext", stem, "register"),
            "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
            "timeout": 60000, "excludeCredentials": [],
            "authenticatorSelection": {"residentKey": "required", "requireResidentKey": True, "userVerification": "required"},
            "attestation": "none",
            "extensions": registration_ext,
        }
        created = driver.run_ceremony("create", options)
        if "error" in created:
            print(f"  {stem}: create failed in the browser ({created['error']}); not recorded")
            return None
        reg = created["ok"]["json"]
        fmt, auth_data = rc.fmt_and_auth_data(rc.unb64u(reg["response"]["attestationObject"]))
        cred_id = reg["rawId"]
        ceremonies = [{
            "name": "register", "kind": "registration", "options": options, "response": reg,
            "expect": {"outcome": "accept", "attestationFormat": fmt, "credentialId": cred_id, "algorithm": -7,
                       **rc.auth_data_fields(auth_data),
                       "extensions": expected_registration(reg.get("clientExtensionResults", {}),
                                                           authenticator_extensions(auth_data))},
        }]
        for name, extensions, allow in logins:
            extensions = json.loads(json.dumps(extensions).replace("$CRED", cred_id))
            login = {"challenge": rc.derived("ext", stem, name), "timeout": 60000, "rpId": rc.RP_ID,
                     "allowCredentials": [{"type": "public-key", "id": cred_id}] if allow else [],
                     "userVerification": "required", "extensions": extensions}
            got = driver.run_ceremony("get", login)
            if "error" in got:
                print(f"  {stem}/{name}: get failed in the browser ({got['error']}); file not recorded")
                return None
            response = got["ok"]["json"]
            raw = rc.unb64u(response["response"]["authenticatorData"])
            ceremonies.append({
                "name": name, "kind": "authentication", "options": login, "response": response,
                "expect": {"outcome": "accept", "credentialId": response["rawId"], **rc.auth_data_fields(raw),
                           "extensions": expected_authentication(response.get("clientExtensionResults", {}),
                                                                 authenticator_extensions(raw), login)},
            })
        return {
            "format": rc.FORMAT,
            "description": (f"Chromium {driver.browser_version} (headless), virtual CTAP 2.1 security key (usb) with the prf, "
                            f"largeBlob, credBlob and minPinLength extensions: {stem}; a registration and logins asking "
                            f"for extensions, recorded as the browser returned them"),
            "source": "Recorded by Tests/Scripts/record_chromium_extensions.py on " + recorded_at,
            "relyingParty": {"id": rc.RP_ID, "name": rc.RP_NAME, "origins": [origin]},
            "policy": {"verificationTime": recorded_at, "trustAnchors": [],
                       "requireTrustedAttestation": False, "allowCounterRegression": False},
            "ceremonies": ceremonies,
        }
    finally:
        driver.remove_authenticator(authenticator)


SALT1 = rc.derived("ext", "salt", "first")
SALT2 = rc.derived("ext", "salt", "second")
BLOB = rc.b64u(b"webauthn-rp large blob")

FILES = [
    ("extensions-prf", {"credProps": True, "prf": {"eval": {"first": SALT1}}}, [
        ("login-prf-one", {"prf": {"eval": {"first": SALT1}}}, True),
        ("login-prf-two", {"prf": {"eval": {"first": SALT1, "second": SALT2}}}, False),
        ("login-prf-by-credential", {"prf": {"eval": {"first": SALT2}, "evalByCredential": {"$CRED": {"first": SALT1}}}}, True),
    ]),
    ("extensions-largeblob", {"credProps": True, "largeBlob": {"support": "required"}}, [
        ("login-largeblob-write", {"largeBlob": {"write": BLOB}}, True),
        ("login-largeblob-read", {"largeBlob": {"read": True}}, True),
    ]),
    ("extensions-credblob-minpin-credprotect", {
        "credBlob": rc.b64u(b"cred blob"), "minPinLength": True,
        "credentialProtectionPolicy": "userVerificationRequired", "enforceCredentialProtectionPolicy": True}, [
        ("login-get-cred-blob", {"getCredBlob": True}, True),
    ]),
]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(rc.REPO_ROOT / "Fixtures" / "recorded" / "chromium"))
    parser.add_argument("--port", type=int, default=8443)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    origin = f"http://localhost:{args.port}"
    server = rc.serve_page(args.port)
    driver = rc.WebDriver(args.chromedriver, args.chromium)
    written = 0
    try:
        print(f"Chromium {driver.browser_version}, page {origin}/")
        driver.navigate(origin + "/")
        recorded_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        for stem, registration_ext, logins in FILES:
            doc = record(driver, origin, stem, registration_ext, logins, recorded_at)
            if doc is None:
                continue
            path = out / f"{stem}.json"
            path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
            print(f"  wrote {path} ({len(doc['ceremonies'])} ceremonies)")
            written += 1
    finally:
        driver.close()
        server.shutdown()
    print(f"{written} files written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
