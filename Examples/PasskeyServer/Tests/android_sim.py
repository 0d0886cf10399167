#!/usr/bin/env python3
"""Android key attestation against real PostgreSQL and two nodes, as an Android app would.

A software Android Keystore (P-256 key, `cryptography`) generates an app key whose certificate
chain runs to a test attestation root (appattest_sim's test CA: root -> intermediate, as a
device's batch key -> the key's certificate with the
KeyDescription extension a TEE writes: the attestation challenge, the app's package and
signing-certificate digest, a locked and verified boot; the nodes trust the root through
ANDROID_KEY_ATTESTATION_ROOT_PEM) and signs requests with a counter in the layout of the article
"Android app integrity". Both nodes require an Android assertion on token issuance and refresh.
Checked on HTTP answers and database rows: the registered key row (counter 0, package), a key
registered twice, a key of a debug-signed app (its digest not declared) refused at
registration, a token login without an assertion (no tokens), with one (tokens, the family bound
to the key), a refresh with an assertion, the same request replayed on the other node, a counter
replayed over a fresh request on the other node, a bad signature, an unknown key, a refresh
without an assertion (each refused, the refresh token not rotated), two nodes verifying one
counter at once (exactly one passes: compare-and-swap), and an app adding a passkey with its
bearer token (the assertion binds the token's `jti`).

Environment (from run-e2e.sh): PASSKEY_BINARY, DATABASE_URL, PSQL_URL, E2E_WORK, E2E_SESSION_KEY.
"""
import base64
import datetime
import json
import os
import sys
import urllib.parse

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from appattest_sim import Authority, asserted_token_login, at_once, b64, family_revoked, http, sha256, token_used
from hardening import Node, check, run_suite, sql
from softauth import SoftPasskey, post_json
from tokens import family_of

PACKAGE = "org.example.app"
RELEASE_CERTIFICATE = b"the release signing certificate"
DEBUG_CERTIFICATE = b"the Android debug keystore's certificate"
KEY_DESCRIPTION_OID = x509.ObjectIdentifier("1.3.6.1.4.1.11129.2.1.17")


def fingerprint(certificate):
    return ":".join(f"{byte:02X}" for byte in sha256(certificate))


# The few DER items a KeyDescription needs (schema: "Verify hardware-backed key pairs with key attestation").
def tlv(tag, value):
    n = len(value)
    length = bytes([n]) if n < 128 else bytes([0x81, n]) if n < 256 else bytes([0x82, n >> 8, n & 0xFF])
    return bytes(tag) + length + value


def integer(value):
    data = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big")
    return tlv([0x02], data)


def enumerated(value):
    return tlv([0x0A], bytes([value]))


def octets(data):
    return tlv([0x04], data)


def sequence(*items):
    return tlv([0x30], b"".join(items))


def set_of(*items):
    return tlv([0x31], b"".join(sorted(items)))


def explicit(tag, value):
    """[tag] EXPLICIT, context-specific and constructed (high-tag form past 30)."""
    if tag <= 30:
        return tlv([0xA0 | tag], value)
    digits = [tag & 0x7F]
    tag >>= 7
    while tag:
        digits.insert(0, (tag & 0x7F) | 0x80)
        tag >>= 7
    return tlv([0xBF] + digits, value)


def key_description(challenge, package, signing_certificate, locked=True):
    """What a TEE writes for an EC P-256 signing key (attestation version 300, KeyMint 3)."""
    application_id = sequence(set_of(sequence(octets(package.encode()), integer(1))), set_of(octets(sha256(signing_certificate))))
    root_of_trust = sequence(octets(b"\xb0" * 32), tlv([0x01], b"\xff" if locked else b"\x00"), enumerated(0 if locked else 2),
                             octets(b"\xb1" * 32))
    software = explicit(709, octets(application_id))
    tee = b"".join([explicit(1, set_of(integer(2))), explicit(2, integer(3)), explicit(3, integer(256)), explicit(10, integer(1)),
                    explicit(702, integer(0)), explicit(704, root_of_trust), explicit(705, integer(150000)),
                    explicit(706, integer(202510))])
    return sequence(integer(300), enumerated(1), integer(300), enumerated(1), octets(sha256(challenge.encode())), octets(b""),
                    sequence(software), sequence(tee))


class Device:
    """An app's Keystore key, certified by `authority`'s intermediate (a device's batch key):
    generated with setAttestationChallenge, then signing requests."""

    def __init__(self, authority, signing_certificate=RELEASE_CERTIFICATE, package=PACKAGE):
        self.authority = authority
        self.signing_certificate = signing_certificate
        self.package = package
        self.key = ec.generate_private_key(ec.SECP256R1())
        point = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = sha256(point)
        self.counter = 0

    def chain(self, challenge):
        """KeyStore.getCertificateChain(alias), base64 DER, the key's certificate first."""
        now = datetime.datetime.now(datetime.timezone.utc)
        leaf = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Android Keystore Key")]))
                .issuer_name(self.authority.name).public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                .add_extension(x509.UnrecognizedExtension(
                    KEY_DESCRIPTION_OID, key_description(challenge, self.package, self.signing_certificate)), critical=False)
                .sign(self.authority.key, hashes.SHA256()))
        der = serialization.Encoding.DER
        return [b64(c.public_bytes(der)) for c in (leaf, self.authority.intermediate, self.authority.root)]

    def sign(self, binding, path, body, counter=None, method="POST", key=None):
        """The article's layout, signed SHA256withECDSA; (counter, signature). `counter` repeats a value."""
        count = self.counter + 1 if counter is None else counter
        self.counter = max(self.counter, count)

        def field(text):
            data = text.encode()
            return len(data).to_bytes(4, "big") + data
        signed = b"android-key-assertion/1\x00" + count.to_bytes(4, "big") + field(binding) + field(method) + field(path) + sha256(body)
        return count, (key or self.key).sign(signed, ec.ECDSA(hashes.SHA256()))

    def headers(self, signed, challenge=None):
        headers = {"Android-Key-Id": b64(self.key_id), "Android-Key-Counter": str(signed[0]), "Android-Key-Signature": b64(signed[1])}
        if challenge is not None:
            headers["Android-Key-Challenge"] = challenge
        return headers


def challenge(base):
    status, answer, _ = http("POST", base + "/android/challenge")
    check(status == 200 and isinstance(answer.get("challenge"), str), f"an Android challenge from {base}")
    return answer["challenge"]


def register(base, device, issued):
    body = json.dumps({"challenge": issued, "certificateChain": device.chain(issued)}).encode()
    return http("POST", base + "/android/register", body, {"Content-Type": "application/json"})


def refresh(base, token, device=None, issued=None, counter=None, signed=None, key=None):
    """POST /oauth/token; with `device`, its assertion over this request bound to `issued`.
    Returns (status, answer, headers, headers sent)."""
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if device is not None:
        headers.update(device.headers(signed or device.sign(issued, "/oauth/token", body, counter, key=key), issued))
    status, answer, answer_headers = http("POST", base + "/oauth/token", body, headers)
    return status, answer, answer_headers, headers


def token_login(base, passkey, username, device):
    """A token login asserted by an Android app's key."""
    return asserted_token_login(
        base, passkey, username, challenge,
        lambda body, issued: device.headers(device.sign(issued, "/api/token/login/verify", body), issued))


def key_row(device):
    return sql("SELECT counter || ' ' || package_name || ' ' || octet_length(public_key)"
               f" FROM passkey_android_app_keys WHERE key_id = decode('{device.key_id.hex()}', 'hex')")


def counter_of(device):
    return sql(f"SELECT counter FROM passkey_android_app_keys WHERE key_id = decode('{device.key_id.hex()}', 'hex')")


def checks():
    authority = Authority()
    root_path = os.path.join(os.environ["E2E_WORK"], "android-root.pem")
    with open(root_path, "wb") as handle:
        handle.write(authority.root_pem())
    settings = {"ANDROID_KEY_ATTESTATION": "required", "ANDROID_APPS": f"{PACKAGE}={fingerprint(RELEASE_CERTIFICATE)}",
                "ANDROID_KEY_ATTESTATION_ROOT_PEM": root_path,
                # One issuer for the fleet, so either node takes the other's access tokens.
                "TOKEN_ISSUER": "https://passkeys.test"}
    a = Node("android-a", **settings)
    b = Node("android-b", **settings)

    # Register: the challenge from node A, the chain verified by node B.
    device = Device(authority)
    status, answer, _ = register(b.base, device, challenge(a.base))
    check(status == 201 and answer.get("keyId") == b64(device.key_id) and answer.get("packageName") == PACKAGE
          and answer.get("securityLevel") == "trustedEnvironment" and answer.get("verifiedBootState") == "verified",
          f"registered at node B with node A's challenge: 201 with the attested facts ({status} {answer})")
    check(key_row(device) == f"0 {PACKAGE} 65", "the key row: counter 0, the package, the 65-byte point")
    status, _, _ = register(a.base, device, challenge(a.base))
    check(status == 409, f"the same key registered again: 409 ({status})")

    # A debug build of the app: its key is genuine, its signing certificate is not the declared one.
    debug = Device(authority, DEBUG_CERTIFICATE)
    status, answer, _ = register(a.base, debug, challenge(b.base))
    check(status == 403 and "error" in answer and counter_of(debug) == "",
          f"a key of a debug-signed app: 403, no row ({status} {answer})")
    check(sql("SELECT count(*) FROM passkey_android_app_keys") == "1", "still one key row")

    # Tokens: without an assertion, none; with one (counter 1), tokens bound to the key.
    passkey = SoftPasskey()
    check(passkey.register(a.base, "android")[0] == 200, "a passkey registration")
    status, options, jar = post_json(a.base + "/api/login/options", {"username": "android"})
    status, answer, headers = http("POST", a.base + "/api/token/login/verify", json.dumps(passkey.get_response(options, a.base)).encode(),
                                   {"Content-Type": "application/json", "Cookie": f"pk_login={jar['pk_login']}"})
    check(status == 401 and headers.get("Android-Key-Error") == "missing" and "access_token" not in answer,
          f"a token login without an assertion: 401 missing, no tokens ({status})")
    tokens = token_login(a.base, passkey, "android", device)
    check(sql(f"SELECT encode(android_key_id, 'hex') FROM passkey_token_families WHERE id = '{family_of(tokens['refresh_token'])}'")
          == device.key_id.hex(), "the token family row is bound to the Android key that asserted the login")
    status, refreshed, _, sent = refresh(a.base, tokens["refresh_token"], device, challenge(b.base))
    check(status == 200 and refreshed.get("refresh_token"), f"refresh at node A with an assertion (challenge from B): 200 ({status})")
    check(counter_of(device) == "2" and token_used(tokens["refresh_token"]) == "t", "the counter row is 2, the token spent")

    # The same request replayed on node B: its challenge is spent there too (one database).
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}).encode()
    status, answer, headers = http("POST", b.base + "/oauth/token", body, sent)
    check(status == 401 and headers.get("Android-Key-Error") == "challenge" and family_revoked(tokens) == "f",
          f"the same request replayed at node B: 401 challenge, the family not revoked ({status} {headers.get('Android-Key-Error')})")
    # The same counter over a fresh challenge and request, on the other node: a replayed assertion.
    status, answer, headers, _ = refresh(b.base, refreshed["refresh_token"], device, challenge(a.base), counter=2)
    check(status == 401 and headers.get("Android-Key-Error") == "replayed",
          f"counter 2 again, fresh challenge, at node B: 401 replayed ({status} {headers.get('Android-Key-Error')})")
    check(counter_of(device) == "2" and token_used(refreshed["refresh_token"]) == "f", "counter row still 2, token not spent")

    # A bad signature, an unknown key, no assertion: refused, nothing rotated.
    status, _, headers, _ = refresh(a.base, refreshed["refresh_token"], device, challenge(a.base), key=ec.generate_private_key(ec.SECP256R1()))
    check(status == 401 and headers.get("Android-Key-Error") == "signature", f"signed by another key: 401 signature ({status})")
    stranger = Device(authority)
    status, _, headers, _ = refresh(b.base, refreshed["refresh_token"], stranger, challenge(b.base))
    check(status == 401 and headers.get("Android-Key-Error") == "unknown-key", f"a key never registered: 401 unknown-key ({status})")
    status, answer, headers, _ = refresh(b.base, refreshed["refresh_token"])
    check(status == 401 and headers.get("Android-Key-Error") == "missing" and "error" in answer,
          f"a refresh without an assertion: 401 missing ({status})")
    check(counter_of(device) == "2" and token_used(refreshed["refresh_token"]) == "f" and family_revoked(tokens) == "f",
          "after the refusals: counter row 2, the refresh token not spent, the family alive")

    # Two nodes, one counter value, at once: the key store's compare-and-swap lets one through.
    second = token_login(b.base, passkey, "android", device)
    racing = device.counter + 1
    requests = []
    for node, token in ((a, refreshed["refresh_token"]), (b, second["refresh_token"])):
        issued = challenge(node.base)
        body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
        requests.append((node, token, issued, device.sign(issued, "/oauth/token", body, counter=racing)))
    outcomes = at_once([lambda n=n, t=t, i=i, s=s: refresh(n.base, t, device, i, signed=s)[0] for n, t, i, s in requests])
    check(sorted(outcomes) == [200, 401] and counter_of(device) == str(racing),
          f"counter {racing} at nodes A and B at once: one 200, one 401, the row at {racing} ({outcomes})")

    # An app adding a passkey with its bearer token: the assertion binds the token's jti.
    access = second["access_token"]
    jti = json.loads(base64.urlsafe_b64decode(access.split(".")[1] + "=="))["jti"]
    added = SoftPasskey()
    status, options, jar = post_json(a.base + "/api/register/options", {}, headers={"Authorization": f"Bearer {access}"})
    check(status == 200, f"creation options for one more passkey, with the bearer token ({status})")
    body = json.dumps(added.create_response(options, a.base)).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {access}", "Cookie": f"pk_reg={jar['pk_reg']}"}
    status, _, answer_headers = http("POST", a.base + "/api/register/verify", body, headers)
    check(status == 401 and answer_headers.get("Android-Key-Error") == "missing", f"an app's new passkey without an assertion: 401 ({status})")
    status, _, _ = http("POST", a.base + "/api/register/verify", body, {**headers, **device.headers(device.sign(jti, "/api/register/verify", body))})
    count = sql(f"SELECT count(*) FROM passkey_credentials WHERE user_handle = decode('{passkey.user_handle.hex()}', 'hex')")
    check(status == 200 and count == "2" and counter_of(device) == str(racing + 1),
          f"with an assertion bound to the token's jti: 200, a second credential row, counter {racing + 1} ({status} {count})")


def main():
    return run_suite("Android key attestation", checks)


if __name__ == "__main__":
    sys.exit(main())
