#!/usr/bin/env python3
"""Writes Android key attestation ceremony files from public recordings of real
Android key attestation chains (their sources and licences: Fixtures/README.md, "Android key
attestation ceremonies"). Only the certificate chains and the challenge each device attested
are taken; the expected facts restate what each chain's key description says.

    python3 Tests/Scripts/android_key_chains.py google <android/keyattestation checkout>
        rewrites Fixtures/recorded/android-key-attestation/google-*.json
    python3 Tests/Scripts/android_key_chains.py conformance <shared/conformance/devices> <folder>
        writes <folder>/webauthn-recordings.json from the shared corpus (.ci/run, each run)

No Python packages: the chains are read from PEM, and the WebAuthn attestation objects with
the small CBOR reader below.
"""
import base64, hashlib, json, re, subprocess, sys

KEYATTESTATION_COMMIT = "47f970d044ae4da7b00da068e7e1a4e952b0fd2f"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def git_show(checkout, path):
    return subprocess.run(["git", "-C", checkout, "show", f"{KEYATTESTATION_COMMIT}:{path}"], check=True, capture_output=True).stdout


def pem_chain(text):
    return [base64.b64decode("".join(block.split())) for block in re.findall(
        r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", text, re.S)]


def cbor(data, i=0):
    """(value, next index) of the CBOR item at i: enough for attestation objects."""
    head = data[i]; major, info = head >> 5, head & 31; i += 1
    if info < 24: n = info
    else:
        size = {24: 1, 25: 2, 26: 4, 27: 8}[info]; n = int.from_bytes(data[i:i + size], "big"); i += size
    if major == 0: return n, i
    if major == 1: return -1 - n, i
    if major in (2, 3):
        raw = data[i:i + n]; return (raw if major == 2 else raw.decode()), i + n
    if major == 4:
        out = []
        for _ in range(n): v, i = cbor(data, i); out.append(v)
        return out, i
    if major == 5:
        out = {}
        for _ in range(n): k, i = cbor(data, i); v, i = cbor(data, i); out[k] = v
        return out, i
    raise ValueError(f"CBOR major type {major}")


def fingerprint(digest):
    return ":".join(f"{b:02X}" for b in digest)


def google(checkout):
    """Chains from Google's android/keyattestation test data (Apache-2.0)."""
    def case(path, name, time, expect):
        facts = json.loads("\n".join(l for l in git_show(checkout, f"testdata/{path}.json").decode().splitlines() if not l.strip().startswith("//")))
        chain = pem_chain(git_show(checkout, f"testdata/{path}.pem").decode())
        app = facts["softwareEnforced"].get("attestationApplicationId")
        ceremony = {"name": name, "kind": "androidKeyAttestation", "source": f"android/keyattestation testdata/{path}.pem",
                    "receivedAt": time, "certificateChain": [b64url(c) for c in chain],
                    "challenge": b64url(base64.b64decode(facts["attestationChallenge"])), "expect": expect}
        apps = [{"packageName": p["name"], "sha256Fingerprint": fingerprint(base64.b64decode(s))}
                for p in (app or {}).get("packages", []) for s in app["signatures"]]
        return ceremony, apps

    strict, lax = [], []
    accept = lambda level, version, os, patch, **extra: dict(
        outcome="accept", securityLevel=level, keystoreSecurityLevel=level, verifiedBootState="verified", deviceLocked=True,
        attestationVersion=version, osVersion=os, osPatchLevel=patch, **extra)
    strict.append(case("tegu/sdk36/TEE_EC_2026_ROOT", "Pixel 9a preproduction TEE KeyMint 4 to the EC root Key Attestation CA1",
                       "2026-03-01T00:00:00Z", accept("trustedEnvironment", 400, 160000, 202602, packageName="com.google.android.attestation")))
    strict.append(case("tegu/sdk36/SB_EC_2026_ROOT", "Pixel 9a preproduction StrongBox to the EC root Key Attestation CA1",
                       "2026-03-01T00:00:00Z", accept("strongBox", 300, 160000, 202602, packageName="com.google.android.attestation")))
    strict.append(case("caiman/sdk36/TEE_EC_RKP", "Pixel 9 Pro TEE remotely provisioned to the RSA root",
                       "2025-10-01T00:00:00Z", accept("trustedEnvironment", 400, 160000, 202511, packageName="com.google.android.attestation")))
    strict.append(case("caiman/sdk36/SB_EC_RKP", "Pixel 9 Pro StrongBox remotely provisioned to the RSA root",
                       "2025-10-01T00:00:00Z", accept("strongBox", 300, 160000, 202511, packageName="com.google.android.attestation")))
    strict.append(case("akita/sdk34/TEE_EC_NONE", "Pixel 8a unlocked refused by the default policy",
                       "2024-10-01T00:00:00Z", {"outcome": "reject", "error": "attestation"}))
    strict.append(case("marlin/sdk29/TEE_EC_NONE", "Pixel XL software attestation ends in the software root",
                       "2020-01-01T00:00:00Z", {"outcome": "reject", "error": "trust"}))
    lax.append(case("akita/sdk34/TEE_EC_NONE", "Pixel 8a unlocked unverified boot KeyMint 3",
                    "2024-10-01T00:00:00Z", dict(outcome="accept", securityLevel="trustedEnvironment", keystoreSecurityLevel="trustedEnvironment",
                                                 verifiedBootState="unverified", deviceLocked=False, attestationVersion=300, osVersion=140000,
                                                 osPatchLevel=202408, packageName="com.google.wireless.android.security.attestationverifier.collector")))
    lax.append(case("blueline/sdk28/TEE_EC_NONE", "Pixel 3 Keymaster 4 attestation version 3 unlocked",
                    "2020-01-01T00:00:00Z", dict(outcome="accept", securityLevel="trustedEnvironment", keystoreSecurityLevel="trustedEnvironment",
                                                 verifiedBootState="unverified", deviceLocked=False, attestationVersion=3, osVersion=90000,
                                                 osPatchLevel=201908, packageName="com.google.wireless.android.security.attestationverifier.collector")))
    return strict, lax


def webauthn(devices):
    """android-key chains of real devices in WebAuthn recordings (the x5c of the statement; the
    attested challenge is the clientDataHash), from py_webauthn (BSD-3-Clause) and SimpleWebAuthn (MIT)."""
    out = []
    for file, name in [
        ("simplewebauthn-verifyattestationandroidkey-should-verify-android-keystore-response-from-a-samsung-galaxy-s9-running-android-10.json",
         "Samsung Galaxy S9 plus Android 10 Google Play services key"),
        ("py_webauthn-reg-android-key-verify-attestation-android-key-hardware-authority.json",
         "py_webauthn hardware authority recording Google Play services key"),
    ]:
        doc = json.load(open(f"{devices}/{file}"))
        response = doc["ceremonies"][0]["response"]["response"]
        statement, _ = cbor(unb64(response["attestationObject"]))
        out.append(({"name": name, "kind": "androidKeyAttestation",
                     "source": f"{doc['peer']['repository']} @ {doc['peer']['commit'][:12]} {doc['peer']['path']}",
                     "receivedAt": doc["policy"]["verificationTime"],
                     "certificateChain": [b64url(c) for c in statement["attStmt"]["x5c"]],
                     "challenge": b64url(hashlib.sha256(unb64(response["clientDataJSON"])).digest())}, doc))
    return out


def write(path, description, ceremonies, apps, policy):
    seen, unique = set(), []
    for app in apps:
        key = (app["packageName"], app["sha256Fingerprint"])
        if key not in seen: seen.add(key); unique.append(app)
    document = {"format": "webauthn-ceremonies/1", "description": description,
                "source": "real devices' key attestation chains; see Fixtures/README.md, Android key attestation ceremonies",
                "androidApps": unique, "policy": policy, "ceremonies": ceremonies}
    with open(path, "w") as f:
        json.dump(document, f, indent=2); f.write("\n")


def main_google(checkout):
    folder = "Fixtures/recorded/android-key-attestation"
    strict, lax = google(checkout)
    write(f"{folder}/google-keyattestation.json",
          "Real chains from Google's key attestation verifier's test data, under the default policy (TEE or StrongBox, verified, locked)",
          [c for c, _ in strict], [a for _, apps in strict for a in apps], {"verificationTime": "2026-03-01T00:00:00Z"})
    write(f"{folder}/google-keyattestation-unlocked.json",
          "Real chains of unlocked development devices, accepted by a policy that asks for neither verified boot nor a locked bootloader",
          [c for c, _ in lax], [a for _, apps in lax for a in apps],
          {"verificationTime": "2024-10-01T00:00:00Z", "requireVerifiedBoot": False, "requireLockedBootloader": False})


def main_conformance(devices, folder):
    """The shared conformance corpus is tested against, never copied into the project: .ci/run
    writes this file into a temporary folder at each run and replays it there."""
    recordings = webauthn(devices)
    apps = [{"packageName": "com.google.android.gms", "sha256Fingerprint": "F0:FD:6C:5B:41:0F:25:CB:25:C3:B5:33:46:C8:97:2F:AE:30:F8:EE:74:11:DF:91:04:80:AD:6B:2D:60:DB:83"}]
    ceremonies = []
    for ceremony, _ in recordings:
        ceremony["expect"] = EXPECT_WEBAUTHN.get(ceremony["name"], {"outcome": "accept"})
        ceremonies.append(ceremony)
    write(f"{folder}/webauthn-recordings.json",
          "Real chains from WebAuthn android-key recordings (passkeys made through Google Play services), as app-key attestations",
          ceremonies, apps, {"verificationTime": "2025-01-08T00:00:00Z"})


# Filled from the chains' key descriptions (webauthn-replay --explain shows each).
EXPECT_WEBAUTHN = {
    "Samsung Galaxy S9 plus Android 10 Google Play services key": dict(
        outcome="accept", securityLevel="trustedEnvironment", keystoreSecurityLevel="trustedEnvironment", verifiedBootState="verified",
        deviceLocked=True, attestationVersion=3, osVersion=110000, osPatchLevel=202111, packageName="com.google.android.gms"),
    "py_webauthn hardware authority recording Google Play services key": dict(
        outcome="accept", securityLevel="trustedEnvironment", keystoreSecurityLevel="trustedEnvironment", verifiedBootState="verified",
        deviceLocked=True, attestationVersion=300, osVersion=150000, osPatchLevel=202501, packageName="com.google.android.gms"),
}

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "google":
        main_google(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "conformance":
        main_conformance(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
