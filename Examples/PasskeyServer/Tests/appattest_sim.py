#!/usr/bin/env python3
"""App Attest against real PostgreSQL and two nodes, as an iOS app's DCAppAttestService would.

A software App Attest device (P-256 key, `cryptography`) attests under a test App Attestation
CA (root -> intermediate -> credCert with Apple's nonce extension, as Apple issues them; the
nodes trust the root through APP_ATTEST_ROOT_PEM) and signs assertions with a counter over the
server's canonical request text (method, path, SHA-256 of the body, the challenge). Both nodes
require App Attest on token refresh. Checked on HTTP answers and database rows: the attested key
row (counter 0, environment, receipt), a refresh with an assertion (counter row advanced, token
rotated), the same request replayed on the other node, a counter replayed over a fresh request,
a refresh without an assertion (refused, refresh token not rotated), a key attested twice, a
development key on a production server (at attestation and at assertion), and two nodes
verifying assertions with one counter at once (exactly one passes: compare-and-swap), and an app
adding a passkey with its bearer token (refused without an assertion, no credential row; added
with one bound to the token's `jti`).

Environment (from run-e2e.sh): PASSKEY_BINARY, DATABASE_URL, PSQL_URL, E2E_WORK, E2E_SESSION_KEY.
"""
import base64
import datetime
import hashlib
from http.client import HTTPConnection
import json
import os
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from hardening import Node, check, run_suite, sql
from softauth import SoftPasskey, cbor, post_json
from tokens import family_of

TEAM_ID = "ABCDE12345"
BUNDLE_ID = "org.example.app"
APP_ID = f"{TEAM_ID}.{BUNDLE_ID}"
NONCE_OID = x509.ObjectIdentifier("1.2.840.113635.100.8.2")
PRODUCTION = b"appattest" + bytes(7)
DEVELOPMENT = b"appattestdevelop"


def b64(data):
    return base64.b64encode(data).decode()


def sha256(data):
    return hashlib.sha256(data).digest()


class Authority:
    """A test App Attestation CA: a root (the nodes' trust anchor) and its intermediate."""

    def __init__(self):
        now = datetime.datetime.now(datetime.timezone.utc)
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        self.key = ec.generate_private_key(ec.SECP256R1())
        root_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test App Attestation Root CA")])
        self.name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test App Attestation CA 1")])

        def ca(subject, key, issuer, signer, path):
            return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
                    .serial_number(x509.random_serial_number())
                    .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=365))
                    .add_extension(x509.BasicConstraints(ca=True, path_length=path), critical=True)
                    .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
                    .sign(signer, hashes.SHA256()))
        self.root = ca(root_name, self.root_key, root_name, self.root_key, None)
        self.intermediate = ca(self.name, self.key, root_name, self.root_key, 0)

    def root_pem(self):
        return self.root.public_bytes(serialization.Encoding.PEM)


class Device:
    """DCAppAttestService in software: attestKey and generateAssertion."""

    def __init__(self, authority, aaguid=PRODUCTION):
        self.authority = authority
        self.aaguid = aaguid
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.point = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = sha256(self.point)
        self.counter = 0

    def attest(self, challenge):
        """The attestation object for `attestKey(keyId, clientDataHash: SHA-256(challenge))`."""
        cose = cbor({1: 2, 3: -7, -1: 1, -2: self.point[1:33], -3: self.point[33:65]})
        auth_data = sha256(APP_ID.encode()) + b"\x40" + bytes(4) + self.aaguid + (32).to_bytes(2, "big") + self.key_id + cose
        nonce = sha256(auth_data + sha256(challenge.encode()))
        now = datetime.datetime.now(datetime.timezone.utc)
        cred_cert = (x509.CertificateBuilder()
                     .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, self.key_id.hex())]))
                     .issuer_name(self.authority.name).public_key(self.key.public_key())
                     .serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                     .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                     # SEQUENCE { [1] EXPLICIT OCTET STRING nonce }
                     .add_extension(x509.UnrecognizedExtension(NONCE_OID, bytes([0x30, 0x24, 0xA1, 0x22, 0x04, 0x20]) + nonce),
                                    critical=False)
                     .sign(self.authority.key, hashes.SHA256()))
        der = serialization.Encoding.DER
        return cbor({"fmt": "apple-appattest",
                     "attStmt": {"x5c": [cred_cert.public_bytes(der), self.authority.intermediate.public_bytes(der)],
                                 "receipt": b"test receipt " + self.key_id.hex().encode()},
                     "authData": auth_data})

    def assert_(self, client_data, counter=None):
        """`generateAssertion(keyId, clientDataHash: SHA-256(clientData))`; `counter` repeats a value."""
        count = self.counter + 1 if counter is None else counter
        self.counter = max(self.counter, count)
        auth_data = sha256(APP_ID.encode()) + b"\x40" + count.to_bytes(4, "big")
        signature = self.key.sign(sha256(auth_data + sha256(client_data)), ec.ECDSA(hashes.SHA256()))
        return cbor({"signature": signature, "authenticatorData": auth_data})


# The routes an assertion guards (README "App Attest", step 2), and the body a request to each
# carries here: a refresh form, or a ceremony (one more passkey, with the bearer token). The
# path variants of each are generated from this list.
GUARDED = [("/oauth/token", "refresh"), ("/api/register/verify", "ceremony"), ("/native/register/finish", "ceremony"),
           ("/native/login/finish", "refresh"), ("/api/token/login/verify", "refresh")]


def spellings(path):
    """Spellings of `path` a client can send: trailing and doubled slashes at every place, a query,
    dot segments, an encoded slash, percent-encoding and another case."""
    segments = path.strip("/").split("/")
    out = [path + "/", path + "//", "/" + path, path + "?x=1", path + "/?x=1", path + "/.", path + ";x", path.upper()]
    for cut in range(1, len(segments)):
        head, tail = "/".join(segments[:cut]), "/".join(segments[cut:])
        out += [f"/{head}//{tail}", f"/{head}/./{tail}", f"/{head}/x/../{tail}", f"/{head}%2F{tail}"]
    out.append("/" + "/".join(segments[:-1] + ["%%%02X" % ord(segments[-1][0]) + segments[-1][1:]]))
    return out


def raw_post(base, target, body, headers):
    """POST with the request target sent exactly as given (no client normalises it): (status, headers)."""
    port = int(base.rsplit(":", 1)[1])
    connection = HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.putrequest("POST", target, skip_host=True, skip_accept_encoding=True)
        for name, value in {"Host": f"localhost:{port}", "Content-Length": str(len(body)), **headers}.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        response.read()
        return response.status, response.headers
    finally:
        connection.close()


def client_data(method, path, body, binding):
    """The server's canonical request text (README: App Attest), built here independently."""
    return f"app-attest-request/1\n{method}\n{path}\n{hashlib.sha256(body).hexdigest()}\n{binding}".encode()


def http(method, url, body=None, headers=None):
    """(status, JSON or bytes, headers)."""
    req = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(req, timeout=20) as response:
            status, data, answer_headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, data, answer_headers = error.code, error.read(), error.headers
    try:
        return status, json.loads(data), answer_headers
    except ValueError:
        return status, data, answer_headers


def challenge(base):
    status, answer, _ = http("POST", base + "/appattest/challenge")
    check(status == 200 and isinstance(answer.get("challenge"), str), f"a challenge from {base}")
    return answer["challenge"]


def attest(base, device, issued):
    body = json.dumps({"keyId": b64(device.key_id), "attestation": b64(device.attest(issued)), "challenge": issued}).encode()
    return http("POST", base + "/appattest/attest", body, {"Content-Type": "application/json"})


def refresh(base, token, device=None, issued=None, counter=None, assertion=None):
    """POST /oauth/token; with `device`, an assertion over this request bound to `issued`.
    Returns (status, answer, headers, assertion headers sent)."""
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if device is not None:
        signed = assertion or device.assert_(client_data("POST", "/oauth/token", body, "challenge=" + issued), counter)
        headers.update({"App-Attest-Key-Id": b64(device.key_id), "App-Attest-Assertion": b64(signed),
                        "App-Attest-Challenge": issued})
    status, answer, answer_headers = http("POST", base + "/oauth/token", body, headers)
    return status, answer, answer_headers, headers


def asserted_token_login(base, passkey, username, challenge_of, headers_for):
    """A token login as an app makes it under app integrity: the request carries its key's
    assertion bound to a fresh challenge (`challenge_of(base)`; `headers_for(body, challenge)`
    the platform's headers), the first tokens need it too, and the family the login starts is
    bound to that key."""
    status, options, jar = post_json(base + "/api/login/options", {"username": username})
    check(status == 200, f"login options for {username}")
    body = json.dumps(passkey.get_response(options, base)).encode()
    issued = challenge_of(base)
    status, answer, _ = http("POST", base + "/api/token/login/verify", body, {
        "Content-Type": "application/json", "Cookie": f"pk_login={jar['pk_login']}", **headers_for(body, issued)})
    check(status == 200 and "access_token" in answer, f"an asserted token login of {username} at {base}: 200 ({status})")
    return answer


def attested_token_login(base, passkey, username, device):
    """A token login asserted by an App Attest device."""
    def headers(body, issued):
        signed = device.assert_(client_data("POST", "/api/token/login/verify", body, "challenge=" + issued))
        return {"App-Attest-Key-Id": b64(device.key_id), "App-Attest-Assertion": b64(signed), "App-Attest-Challenge": issued}
    return asserted_token_login(base, passkey, username, challenge, headers)


def at_once(calls):
    """Runs `calls` on threads started together (each node's request at the same instant); their results."""
    results = []
    threads = [threading.Thread(target=lambda call=call: results.append(call())) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def key_row(device):
    return sql("SELECT sign_count || ' ' || environment || ' ' || octet_length(public_key) || ' ' || octet_length(receipt)"
               f" FROM passkey_app_attest_keys WHERE key_id = decode('{device.key_id.hex()}', 'hex')")


def counter_of(device):
    return sql(f"SELECT sign_count FROM passkey_app_attest_keys WHERE key_id = decode('{device.key_id.hex()}', 'hex')")


def token_used(token):
    digest = hashlib.sha256(token.encode()).hexdigest()
    return sql(f"SELECT used_at IS NOT NULL FROM passkey_refresh_tokens WHERE hash = decode('{digest}', 'hex')")


def family_revoked(tokens):
    digest = hashlib.sha256(tokens["refresh_token"].encode()).hexdigest()
    return sql("SELECT revoked_at IS NOT NULL FROM passkey_token_families WHERE id ="
               f" (SELECT family FROM passkey_refresh_tokens WHERE hash = decode('{digest}', 'hex'))")


def checks():
    authority = Authority()
    root_path = os.path.join(os.environ["E2E_WORK"], "appattest-root.pem")
    with open(root_path, "wb") as handle:
        handle.write(authority.root_pem())
    settings = {"APP_ATTEST": "required", "APP_ATTEST_TEAM_ID": TEAM_ID, "APP_ATTEST_BUNDLE_ID": BUNDLE_ID,
                "APP_ATTEST_ENVIRONMENT": "production", "APP_ATTEST_ROOT_PEM": root_path,
                # One issuer for the fleet, so either node takes the other's access tokens.
                "TOKEN_ISSUER": "https://passkeys.test"}
    a = Node("appattest-a", **settings)
    b = Node("appattest-b", **settings)

    # Attest: the challenge from node A, the attestation verified by node B.
    device = Device(authority)
    status, answer, _ = attest(b.base, device, challenge(a.base))
    check(status == 201 and answer.get("environment") == "production" and answer.get("keyId") == b64(device.key_id),
          f"attested at node B with node A's challenge: 201 ({status} {answer})")
    check(key_row(device) == "0 production 65 " + str(len(b"test receipt ") + 64),
          "the key row: counter 0, production, the 65-byte point, the receipt")
    status, _, _ = attest(a.base, device, challenge(a.base))
    check(status == 409, f"the same key attested again: 409 ({status})")
    check(sql("SELECT count(*) FROM passkey_app_attest_keys") == "1", "still one key row")

    # A passkey sign-in for tokens: without an assertion, no tokens (the first issuance is asked
    # too); with one (counter 1), tokens bound to the key. Then a refresh with an assertion.
    passkey = SoftPasskey()
    check(passkey.register(a.base, "attested")[0] == 200, "a passkey registration")
    status, options, jar = post_json(a.base + "/api/login/options", {"username": "attested"})
    status, answer, headers = http("POST", a.base + "/api/token/login/verify", json.dumps(passkey.get_response(options, a.base)).encode(),
                                   {"Content-Type": "application/json", "Cookie": f"pk_login={jar['pk_login']}"})
    check(status == 401 and headers.get("App-Attest-Error") == "missing",
          f"a token login without an assertion: 401 missing, no tokens ({status})")
    tokens = attested_token_login(a.base, passkey, "attested", device)
    check(sql(f"SELECT encode(app_attest_key_id, 'hex') FROM passkey_token_families WHERE id = '{family_of(tokens['refresh_token'])}'")
          == device.key_id.hex(), "the token family row is bound to the key that asserted the login")
    issued = challenge(b.base)
    status, refreshed, _, sent = refresh(a.base, tokens["refresh_token"], device, issued)
    check(status == 200 and refreshed.get("refresh_token"), f"refresh at node A with an assertion (challenge from B): 200 ({status})")
    check(counter_of(device) == "2" and token_used(tokens["refresh_token"]) == "t",
          "the counter row is 2, the presented refresh token is spent")

    # The same request, body and headers, replayed on node B: refused before the token route
    # (which would take the spent refresh token for a stolen copy and revoke the family).
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}).encode()
    status, answer, headers = http("POST", b.base + "/oauth/token", body, sent)
    check(status == 401 and headers.get("App-Attest-Error") == "challenge" and "error" in answer,
          f"the same request replayed at node B: 401 challenge ({status} {headers.get('App-Attest-Error')})")
    check(counter_of(device) == "2" and token_used(refreshed["refresh_token"]) == "f" and family_revoked(tokens) == "f",
          "counter row still 2, the new refresh token not spent, the family not revoked")
    # The same counter over a fresh challenge and request: a replayed assertion.
    status, answer, headers, _ = refresh(b.base, refreshed["refresh_token"], device, challenge(a.base), counter=2)
    check(status == 401 and headers.get("App-Attest-Error") == "replayed",
          f"counter 2 again, fresh challenge, at node B: 401 replayed ({status} {headers.get('App-Attest-Error')})")
    check(counter_of(device) == "2" and token_used(refreshed["refresh_token"]) == "f", "counter row still 2, token not spent")

    # Another genuine device, attested: its assertion verifies, but the family is bound to the
    # first device's key, so it refreshes nothing and spends nothing.
    other = Device(authority)
    check(attest(a.base, other, challenge(a.base))[0] == 201, "a second device attested")
    status, answer, _, _ = refresh(b.base, refreshed["refresh_token"], other, challenge(b.base))
    check(status == 400 and answer.get("error") == "invalid_grant" and token_used(refreshed["refresh_token"]) == "f"
          and family_revoked(tokens) == "f",
          f"another key's assertion on the family's refresh token: 400 invalid_grant, not spent, not revoked ({status})")

    # No assertion where it is required.
    status, answer, headers, _ = refresh(b.base, refreshed["refresh_token"])
    check(status == 401 and headers.get("App-Attest-Error") == "missing" and "error" in answer,
          f"a refresh without an assertion: 401 missing ({status})")
    digest = hashlib.sha256(refreshed["refresh_token"].encode()).hexdigest()
    check(token_used(refreshed["refresh_token"]) == "f" and
          sql("SELECT count(*) FROM passkey_refresh_tokens WHERE family = (SELECT family FROM passkey_refresh_tokens"
              f" WHERE hash = decode('{digest}', 'hex'))") == "2",
          "the refresh token not rotated (its family still has two token rows)")

    # A development key on a production server: refused at attestation, no row.
    development = Device(authority, DEVELOPMENT)
    status, _, _ = attest(a.base, development, challenge(b.base))
    check(status == 403 and counter_of(development) == "", f"a development key attested at a production node: 403, no row ({status})")
    # A development key row (attested when the server was a development one): its assertion is refused.
    # created_at is given: the Fluent stores' table has no default for it (the PostgresNIO one does).
    sql("INSERT INTO passkey_app_attest_keys (key_id, public_key, sign_count, environment, receipt, created_at) VALUES ("
        f"decode('{development.key_id.hex()}', 'hex'), decode('{development.point.hex()}', 'hex'), 0, 'development', '', now())")
    status, _, headers, _ = refresh(a.base, refreshed["refresh_token"], development, challenge(a.base))
    check(status == 403 and headers.get("App-Attest-Error") == "environment",
          f"a development key's assertion at a production node: 403 environment ({status} {headers.get('App-Attest-Error')})")
    check(counter_of(development) == "0" and token_used(refreshed["refresh_token"]) == "f", "its counter row 0, token not spent")

    # Two nodes, one counter value, at once: the compare-and-swap lets one through.
    second = attested_token_login(b.base, passkey, "attested", device)
    assertions = []
    for node, token in ((a, refreshed["refresh_token"]), (b, second["refresh_token"])):
        issued = challenge(node.base)
        body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
        assertions.append((node, token, issued, device.assert_(client_data("POST", "/oauth/token", body, "challenge=" + issued),
                                                              counter=4)))
    outcomes = at_once([lambda n=n, t=t, i=i, s=s: refresh(n.base, t, device, i, assertion=s)[0] for n, t, i, s in assertions])
    check(sorted(outcomes) == [200, 401] and counter_of(device) == "4",
          f"counter 4 at nodes A and B at once: one 200, one 401, the row at 4 ({outcomes})")

    # And the app goes on: counter 5 refreshes the token that was not spent.
    spare = refreshed["refresh_token"] if token_used(refreshed["refresh_token"]) == "f" else second["refresh_token"]
    status, _, _, _ = refresh(b.base, spare, device, challenge(b.base))
    check(status == 200 and counter_of(device) == "5", "the next assertion (counter 5) refreshes the unspent token")

    # An app adding a passkey with its bearer token: the assertion binds the token's jti.
    access = second["access_token"]
    jti = json.loads(base64.urlsafe_b64decode(access.split(".")[1] + "=="))["jti"]

    def add_passkey(signed):
        added = SoftPasskey()
        status, options, jar = post_json(a.base + "/api/register/options", {}, headers={"Authorization": f"Bearer {access}"})
        check(status == 200, f"creation options for one more passkey, with the bearer token ({status})")
        body = json.dumps(added.create_response(options, a.base)).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {access}",
                   "Cookie": f"pk_reg={jar['pk_reg']}"}
        if signed:
            headers.update({"App-Attest-Key-Id": b64(device.key_id), "App-Attest-Assertion":
                            b64(device.assert_(client_data("POST", "/api/register/verify", body, "jti=" + jti)))})
        return http("POST", a.base + "/api/register/verify", body, headers)

    def passkeys():
        return sql(f"SELECT count(*) FROM passkey_credentials WHERE user_handle = decode('{passkey.user_handle.hex()}', 'hex')")

    status, _, headers = add_passkey(signed=False)
    check(status == 401 and headers.get("App-Attest-Error") == "missing" and passkeys() == "1",
          f"an app's new passkey without an assertion: 401 missing, no credential row ({status} {passkeys()})")
    status, _, _ = add_passkey(signed=True)
    check(status == 200 and passkeys() == "2" and counter_of(device) == "6",
          f"with an assertion bound to the token's jti: 200, a second credential row, counter 6 ({status})")

    third = attested_token_login(b.base, passkey, "attested", device)
    guarded_spellings(a, device, passkey, third)
    passkey_challenge_kept(a)


def guarded_spellings(a, device, passkey, second):
    """Every spelling of every guarded route, without an assertion: refused by the guard (401
    missing) where it reaches the route, not found where it reaches none; nothing rotated, no
    passkey added. An assertion signs the route's canonical path: it holds on any spelling of that
    route and on no other route."""
    access = second["access_token"]
    bearer = {"Authorization": f"Bearer {access}"}
    jti = json.loads(base64.urlsafe_b64decode(access.split(".")[1] + "=="))["jti"]

    def passkeys():
        return sql(f"SELECT count(*) FROM passkey_credentials WHERE user_handle = decode('{passkey.user_handle.hex()}', 'hex')")

    def ceremony(route):
        """A fresh ceremony for one more passkey, ready to finish at `route`: (body, headers)."""
        added = SoftPasskey()
        if route.startswith("/native/"):
            status, started, _ = post_json(a.base + "/native/register/options", {}, headers=bearer)
            check(status == 200, f"native creation options with the bearer token ({status})")
            body = json.dumps({"state": started["state"], "credential": added.create_response(started["options"], a.base)})
            return body.encode(), {"Content-Type": "application/json", **bearer}
        status, options, jar = post_json(a.base + "/api/register/options", {}, headers=bearer)
        check(status == 200, f"creation options with the bearer token ({status})")
        return (json.dumps(added.create_response(options, a.base)).encode(),
                {"Content-Type": "application/json", "Cookie": f"pk_reg={jar['pk_reg']}", **bearer})

    token = second["refresh_token"]
    before = passkeys()
    for route, body_kind in GUARDED:
        outcomes = {}
        for target in spellings(route):
            if body_kind == "ceremony":
                body, headers = ceremony(route)
            else:
                body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
                headers = {"Content-Type": "application/x-www-form-urlencoded"}
            status, answer_headers = raw_post(a.base, target, body, headers)
            outcomes[target] = status if status != 401 else answer_headers.get("App-Attest-Error")
        reached = [t for t, o in outcomes.items() if o == "missing"]
        check(all(o in ("missing", 404) for o in outcomes.values()) and len(reached) >= 5 and route + "/" in reached,
              f"{route}: every spelling refused without an assertion ({len(reached)} reach it: 401 missing; the rest 404)"
              f" {outcomes if not all(o in ('missing', 404) for o in outcomes.values()) else ''}")
    check(token_used(token) == "f" and passkeys() == before,
          "no spelling rotated the refresh token or added a passkey")

    # The canonical path is what the assertion signs.
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
    issued = challenge(a.base)
    signed = device.assert_(client_data("POST", "/oauth//token/", body, "challenge=" + issued))
    status, headers = raw_post(a.base, "/oauth//token/", body, {
        "Content-Type": "application/x-www-form-urlencoded", "App-Attest-Key-Id": b64(device.key_id),
        "App-Attest-Assertion": b64(signed), "App-Attest-Challenge": issued})
    check(status == 401 and headers.get("App-Attest-Error") == "signature" and token_used(token) == "f",
          f"an assertion over the spelling /oauth//token/ is refused there: the route's path is signed ({status})")
    body, headers = ceremony("/native/register/finish")
    signed = device.assert_(client_data("POST", "/api/register/verify", body, "jti=" + jti))
    status, answer = raw_post(a.base, "/native/register/finish/", body, {
        **headers, "App-Attest-Key-Id": b64(device.key_id), "App-Attest-Assertion": b64(signed)})
    check(status == 401 and answer.get("App-Attest-Error") == "signature" and passkeys() == before,
          f"an assertion for /api/register/verify does not add a passkey through /native/register/finish/ ({status})")
    issued = challenge(a.base)
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
    signed = device.assert_(client_data("POST", "/oauth/token", body, "challenge=" + issued))
    status, _ = raw_post(a.base, "//oauth/token/", body, {
        "Content-Type": "application/x-www-form-urlencoded", "App-Attest-Key-Id": b64(device.key_id),
        "App-Attest-Assertion": b64(signed), "App-Attest-Challenge": issued})
    check(status == 200 and token_used(token) == "t", f"an assertion over /oauth/token holds on //oauth/token/ ({status})")


def passkey_challenge_kept(a):
    """A passkey login's challenge presented as App-Attest-Challenge (stored challenges): refused
    as an App Attest challenge without being used up, so the login it belongs to still finishes."""
    passkey = SoftPasskey()
    check(passkey.register(a.base, "kindcheck")[0] == 200, "a registration for the challenge-kind check")
    status, options, jar = post_json(a.base + "/api/login/options", {"username": "kindcheck"})
    rows = sql("SELECT count(*) FROM passkey_challenges")
    status, headers = raw_post(a.base, "/oauth/token", b"grant_type=refresh_token", {
        "Content-Type": "application/x-www-form-urlencoded", "App-Attest-Key-Id": b64(bytes(32)),
        "App-Attest-Assertion": "AAAA", "App-Attest-Challenge": options["challenge"]})
    check(status == 401 and headers.get("App-Attest-Error") == "challenge" and sql("SELECT count(*) FROM passkey_challenges") == rows,
          f"a passkey challenge as App-Attest-Challenge: 401 challenge, its row kept ({status})")
    status, _, _ = post_json(a.base + "/api/login/verify", passkey.get_response(options, a.base), {"pk_login": jar["pk_login"]})
    check(status == 200, f"and the passkey login it belongs to finishes ({status})")


def main():
    return run_suite("App Attest", checks)


if __name__ == "__main__":
    sys.exit(main())
