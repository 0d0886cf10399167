#!/usr/bin/env python3
"""The token API against real PostgreSQL and two nodes, as an app and a third party use it.

An app signs in with a software passkey (softauth.py) through /api/token/login/verify, keeps
the RFC 6749 token response, calls the account with its bearer token on the other node,
refreshes (rotation), and then tries the attacks: a reused refresh token (the family is revoked,
the newest refresh token and the access tokens stop working), an expired, a tampered and a
foreign-audience access token. Revocation (RFC 7009) and logout end a family server side.
A third party verifies the access tokens with PyJWT from either node's /.well-known/jwks.json,
including after a signing-key rotation that one node made and the other publishes. With the
database stopped, a bearer request and a refresh answer 503, never a verdict on the token. Every
check is on HTTP answers and database rows.

Environment (from run-e2e.sh): PASSKEY_BINARY, DATABASE_URL, PSQL_URL, E2E_WORK, E2E_SESSION_KEY.
"""
import base64
import hashlib
import json
import os
import sys
import threading
import time
import urllib.parse

import jwt

from hardening import Node, check, free_port, pg, run_suite, sql
from softauth import SoftPasskey, post_json, request

ACCESS_SECONDS = 5
ROTATION_SECONDS = 8


def form(base, path, fields):
    body = urllib.parse.urlencode(fields).encode()
    return request("POST", base + path, body, {"Content-Type": "application/x-www-form-urlencoded"})


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def token_login(base, passkey, username):
    """The token response of a passkey login at `base` (no cookie kept)."""
    status, options, jar = post_json(base + "/api/login/options", {"username": username})
    check(status == 200, f"login options for {username}")
    answer = post_json(base + "/api/token/login/verify", passkey.get_response(options, base), {"pk_login": jar["pk_login"]})
    check(answer[0] == 200 and "pk_session" not in answer[2], f"token login of {username} at {base}: 200, no session cookie")
    return answer[1]


def third_party_verify(base, token, audience, issuer):
    """PyJWT with the keys `base` publishes, as an outside service would."""
    status, jwks, _ = request("GET", base + "/.well-known/jwks.json")
    check(status == 200 and len(jwks.get("keys", [])) in (1, 2), f"JWKS at {base}: {[k.get('kid') for k in jwks.get('keys', [])]}")
    kid = jwt.get_unverified_header(token)["kid"]
    key = jwt.PyJWKSet.from_dict(jwks)[kid]
    return jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer,
                      options={"require": ["iss", "aud", "sub", "iat", "exp", "jti"]})


def family_of(refresh_token):
    digest = hashlib.sha256(refresh_token.encode()).hexdigest()
    return sql(f"SELECT family FROM passkey_refresh_tokens WHERE hash = decode('{digest}', 'hex')")


def revoked(family):
    return sql(f"SELECT revoked_at IS NOT NULL FROM passkey_token_families WHERE id = '{family}'") == "t"


def checks():
    # One issuer and audience for the fleet (each node's own URL is its page's origin).
    issuer = audience = "https://passkeys.test"
    settings = {"ACCESS_TOKEN_SECONDS": ACCESS_SECONDS, "SIGNING_KEY_ROTATION_SECONDS": ROTATION_SECONDS, "TOKEN_ISSUER": issuer,
                "DB_TIMEOUT_MS": 1000}
    # A and B also serve the native apps: an iOS app reports https://<rp id>, an Android app
    # the hash of its signing certificate.
    native = {"APPLE_TEAM_ID": "ABCDE12345", "APPLE_BUNDLE_IDS": "org.example.app",
              "ANDROID_APPS": "org.example.android=" + ANDROID_FINGERPRINT}
    port_a, port_b = free_port(), free_port()
    a = Node("tokens-a", origins=[f"http://localhost:{port_a}", "https://localhost"], port=port_a, **settings, **native)
    b = Node("tokens-b", origins=[f"http://localhost:{port_b}", "https://localhost"], port=port_b, **settings, **native)
    # Node C issues for another audience, with the same keys.
    c = Node("tokens-c", TOKEN_AUDIENCE="https://other.example", **settings)
    passkey = SoftPasskey()
    check(passkey.register(a.base, "tokenuser")[0] == 200, "a registration through the page's routes")
    first = token_login(a.base, passkey, "tokenuser")
    check(first.get("token_type") == "Bearer" and first.get("expires_in") == ACCESS_SECONDS
          and first.get("access_token") and first.get("refresh_token"), f"an RFC 6749 token response ({sorted(first)})")
    family = family_of(first["refresh_token"])
    check(family != "", "the refresh token is stored as its SHA-256, in its family")
    check(sql("SELECT count(*) FROM passkey_refresh_tokens WHERE hash = convert_to('" + first["refresh_token"] + "', 'UTF8')")
          == "0", "no refresh token is stored in clear")

    claims = third_party_verify(b.base, first["access_token"], audience, issuer)
    check(claims["sid"] == family and claims["sub"] == passkey_b64(passkey),
          "PyJWT verifies node A's token with node B's JWKS: iss, aud, sub, iat, exp, jti, sid")
    status, me, _ = request("GET", b.base + "/api/me", headers=bearer(first["access_token"]))
    check(status == 200 and me["username"] == "tokenuser", "the bearer token reads the account on node B")

    # Rotation: B spends the token, A sees it spent.
    status, second, _ = form(b.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]})
    check(status == 200 and second["refresh_token"] != first["refresh_token"], "refresh at node B: a new pair")
    check(sql(f"SELECT count(*) FILTER (WHERE used_at IS NOT NULL) || '/' || count(*) FROM passkey_refresh_tokens"
              f" WHERE family = '{family}'") == "1/2", "the presented token is marked used, the new one stored")
    status, answer, _ = form(a.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]})
    check(status == 400 and answer.get("error") == "invalid_grant", f"the rotated token again, at node A: invalid_grant ({answer})")
    check(revoked(family), "reuse revoked the whole family (row)")
    status, answer, _ = form(b.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": second["refresh_token"]})
    check(status == 400 and answer.get("error") == "invalid_grant", "the family's newest refresh token is refused too")
    status, _, _ = request("GET", a.base + "/api/me", headers=bearer(second["access_token"]))
    check(status == 401, "and its access tokens are refused at once")

    # Revocation (RFC 7009) and logout end a family server side.
    third = token_login(b.base, passkey, "tokenuser")
    status, _, _ = form(a.base, "/oauth/revoke", {"token": third["refresh_token"], "token_type_hint": "refresh_token"})
    check(status == 200 and revoked(family_of(third["refresh_token"])), "revocation at node A: 200, the family row revoked")
    check(form(b.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": third["refresh_token"]})[0] == 400,
          "a revoked refresh token is refused at node B")
    check(request("GET", b.base + "/api/me", headers=bearer(third["access_token"]))[0] == 401,
          "its access token is refused at node B")
    fourth = token_login(a.base, passkey, "tokenuser")
    status, answer, _ = post_json(b.base + "/api/logout", {}, headers=bearer(fourth["access_token"]))
    check(status == 200 and revoked(family_of(fourth["refresh_token"])), "logout with the bearer token revokes its family")

    # A reuse interval (REFRESH_REUSE_SECONDS): one token refreshed at node D and again at node E
    # within it rotates twice, the family lives and both new refresh tokens work; presented once
    # the interval has passed, the spent token revokes the family.
    graced = {**settings, "REFRESH_REUSE_SECONDS": 3}
    d, e = Node("tokens-d", **graced), Node("tokens-e", **graced)
    sixth = token_login(d.base, passkey, "tokenuser")
    spend = {"grant_type": "refresh_token", "refresh_token": sixth["refresh_token"]}
    status_d, one, _ = form(d.base, "/oauth/token", spend)
    status_e, two, _ = form(e.base, "/oauth/token", spend)
    check(status_d == 200 and status_e == 200 and one["refresh_token"] != two["refresh_token"],
          f"within the reuse interval the same token refreshes at D and again at E ({status_d}, {status_e})")
    check(not revoked(family_of(sixth["refresh_token"])), "and the family lives")
    check(form(e.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": one["refresh_token"]})[0] == 200,
          "the first answer's refresh token refreshes too")
    time.sleep(3.5)
    status, answer, _ = form(d.base, "/oauth/token", spend)
    check(status == 400 and revoked(family_of(sixth["refresh_token"])), f"past the interval the spent token revokes the family ({status})")
    check(form(d.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": two["refresh_token"]})[0] == 400,
          "and every token of the family is refused")
    d.stop()
    e.stop()

    # Attacks on the access token.
    fifth = token_login(a.base, passkey, "tokenuser")
    header, payload, signature = fifth["access_token"].split(".")
    forged = json.loads(b64decode(payload))
    forged["sub"] = "AAAA"
    tampered = ".".join([header, b64encode(json.dumps(forged).encode()), signature])
    check(request("GET", a.base + "/api/me", headers=bearer(tampered))[0] == 401, "a tampered access token: 401")
    foreign = token_login(c.base, passkey, "tokenuser")
    check(request("GET", a.base + "/api/me", headers=bearer(foreign["access_token"]))[0] == 401,
          "a token for another audience (node C's), signed by the same keys: 401")
    try:
        third_party_verify(a.base, foreign["access_token"], audience, issuer)
        check(False, "PyJWT refuses the other audience")
    except jwt.InvalidAudienceError:
        check(True, "PyJWT refuses the other audience")
    # A refresh token is bound to the audience its family was issued for.
    status, answer, _ = form(c.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": fifth["refresh_token"]})
    check(status == 400 and answer.get("error") == "invalid_grant" and not revoked(family_of(fifth["refresh_token"]))
          and sql(f"SELECT used_at IS NULL FROM passkey_refresh_tokens WHERE family = '{family_of(fifth['refresh_token'])}'") == "t",
          f"node A's refresh token at node C (another audience): invalid_grant, not spent, the family alive ({status} {answer})")
    status, answer, _ = form(a.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": foreign["refresh_token"]})
    check(status == 400 and answer.get("error") == "invalid_grant", f"and node C's at node A: invalid_grant ({status})")
    time.sleep(ACCESS_SECONDS + 1)
    status, _, headers = request("GET", a.base + "/api/me", headers=bearer(fifth["access_token"]))
    check(status == 401, "an expired access token: 401")
    try:
        third_party_verify(a.base, fifth["access_token"], audience, issuer)
        check(False, "PyJWT refuses the expired token")
    except jwt.ExpiredSignatureError:
        check(True, "PyJWT refuses the expired token")
    status, sixth, _ = form(a.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": fifth["refresh_token"]})
    check(status == 200, "its refresh token still refreshes")

    # Signing keys: one table for every node, rotated with two published.
    # The newest key now (on a slow machine the steps above may already have outlived a rotation,
    # so it is read, not taken from the first token), and the wait until it is due to rotate.
    old_kid, made_at = sql("SELECT kid || ' ' || extract(epoch FROM created_at) FROM passkey_signing_keys"
                           " ORDER BY created_at DESC LIMIT 1").split(" ")
    wait = ROTATION_SECONDS - (time.time() - float(made_at)) + 0.5
    time.sleep(max(0, wait))
    rotated = token_login(b.base, passkey, "tokenuser")
    new_kid = jwt.get_unverified_header(rotated["access_token"])["kid"]
    check(new_kid != old_kid, f"after {ROTATION_SECONDS} s node B signs with a new key ({old_kid[:8]} -> {new_kid[:8]})")
    check(request("GET", a.base + "/api/me", headers=bearer(rotated["access_token"]))[0] == 200,
          "node A accepts node B's token signed with the new key at once (it reloads the keys for an unknown kid)")
    time.sleep(ROTATION_SECONDS / 2 + 0.5)   # every node has reloaded its copy of the keys
    kids = {}
    for node in (a, b):
        kids[node.name] = [key["kid"] for key in request("GET", node.base + "/.well-known/jwks.json")[1]["keys"]]
    check(kids["tokens-a"] == kids["tokens-b"] == [new_kid, old_kid], f"both nodes publish the new key and the previous one ({kids})")
    status, latest, _ = form(b.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": rotated["refresh_token"]})
    check(status == 200, "a refresh at node B after the rotation")
    claims = third_party_verify(a.base, latest["access_token"], audience, issuer)
    check(claims["sub"] == passkey_b64(passkey) and jwt.get_unverified_header(latest["access_token"])["kid"] == new_kid,
          "PyJWT verifies the new key's token with node A's JWKS")
    created = [float(x) for x in sql("SELECT extract(epoch FROM created_at) FROM passkey_signing_keys ORDER BY 1").split()]
    check(all(later - earlier >= ROTATION_SECONDS - 1 for earlier, later in zip(created, created[1:])),
          f"three nodes made one key per rotation between them ({len(created)} keys)")
    check(sql("SELECT count(*) FROM passkey_signing_keys WHERE position(convert_to('PRIVATE KEY', 'UTF8') IN sealed_key) > 0")
          == "0" and len(created) >= 2, "the private keys are stored sealed (no PEM in the table)")
    discovery = request("GET", b.base + "/.well-known/openid-configuration")[1]
    check(discovery.get("issuer") == issuer and discovery.get("jwks_uri") == issuer + "/.well-known/jwks.json",
          "the discovery document names the issuer and its JWKS")

    native_apps(a, b)

    # A database outage is 503 ("try again"), never a verdict on the token: an app that took a
    # 401 or invalid_grant for one would throw its sign-in away.
    outage_token = latest
    pg("stop")
    try:
        time.sleep(ROTATION_SECONDS / 2 + 0.5)   # past the node's key-cache period: it must reread the keys
        status, _, _ = request("GET", a.base + "/api/me", headers=bearer(outage_token["access_token"]))
        check(status == 503, f"database down: a bearer request answers 503, not 401 ({status})")
        status, answer, _ = form(a.base, "/oauth/token", {"grant_type": "refresh_token",
                                                          "refresh_token": outage_token["refresh_token"]})
        check(status == 503, f"database down: a refresh answers 503, not invalid_grant ({status} {answer})")
    finally:
        pg("start")
    deadline = time.time() + 20
    status = None
    while time.time() < deadline and status != 200:
        status, recovered, _ = form(a.base, "/oauth/token", {"grant_type": "refresh_token",
                                                             "refresh_token": outage_token["refresh_token"]})
        time.sleep(0.5)
    check(status == 200, "the database back: the refresh token the outage did not spend still refreshes")
    check(request("GET", b.base + "/api/me", headers=bearer(recovered["access_token"]))[0] == 200,
          "and its new access token reads the account")

    commits_under_restarts(a, passkey)
    session_key_rotation(a, b, passkey)


class App:
    """An app signed in with tokens that keeps refreshing at `node` and calling the account with
    each new access token. A refresh without an answer (connection error, 503) is retried with
    the same token, as an app does; every answer is recorded with the token it was for."""

    def __init__(self, node, passkey, username):
        self.node = node
        self.tokens = token_login(node.base, passkey, username)
        self.answers = []   # (status, error, presented token, new refresh token or None)
        self.bearer = []    # statuses of the account call after each 200

    def step(self):
        try:
            status, answer, _ = form(self.node.base, "/oauth/token",
                                     {"grant_type": "refresh_token", "refresh_token": self.tokens["refresh_token"]})
        except OSError:
            status, answer = None, {}
        error = answer.get("error") if isinstance(answer, dict) else None
        fresh = answer.get("refresh_token") if status == 200 else None
        self.answers.append((status, error, self.tokens["refresh_token"], fresh))
        if status == 200:
            self.tokens = answer
            try:
                self.bearer.append(request("GET", self.node.base + "/api/me", headers=bearer(answer["access_token"]))[0])
            except OSError:
                self.bearer.append(None)


def run_apps(apps, while_running):
    stop = threading.Event()

    def loop(app):
        while not stop.is_set():
            app.step()
            time.sleep(0.05)
    threads = [threading.Thread(target=loop, args=(app,)) for app in apps]
    for thread in threads: thread.start()
    try:
        while_running()
    finally:
        stop.set()
        for thread in threads: thread.join(60)


def stored(token):
    digest = hashlib.sha256(token.encode()).hexdigest()
    return sql(f"SELECT count(*) FROM passkey_refresh_tokens WHERE hash = decode('{digest}', 'hex')") == "1"


def spent(token):
    digest = hashlib.sha256(token.encode()).hexdigest()
    return sql(f"SELECT used_at IS NOT NULL FROM passkey_refresh_tokens WHERE hash = decode('{digest}', 'hex')") == "t"


def check_answers(apps, what):
    """No refresh spent its token without answering its successor: every 200's new token is
    stored, every token presented without a 200 was still unspent when presented again (an app
    never got invalid_grant), and the last token of each app refreshes."""
    answers = [a for app in apps for a in app.answers]
    ok = [a for a in answers if a[0] == 200]
    check(all(a[0] in (200, 503, None) for a in answers),
          f"{what}: every refresh answered 200 or 503 (or not at all), never invalid_grant"
          f" ({sorted(set((a[0], a[1]) for a in answers), key=str)})")
    check(ok and all(stored(a[3]) for a in ok), f"{what}: each of the {len(ok)} 200s' new refresh token is stored")
    unanswered = [a for a in answers if a[0] != 200]
    check(all(spent(a[2]) == any(b[2] == a[2] and b[0] == 200 for b in ok) for a in unanswered),
          f"{what}: each of the {len(unanswered)} refreshes without a 200 left its token unspent (or a later 200 spent it)")


def commits_under_restarts(a, passkey):
    """Refreshes and new accounts while PostgreSQL restarts three times: a 200 is only sent once
    its commit is acknowledged (the new refresh token, the new account are there), and a
    503 changed nothing (the token is unspent, the name is free)."""
    apps = [App(a, passkey, "tokenuser") for _ in range(3)]
    signups = []   # (name, status)

    def sign_up(index):
        name = f"restart-{index}"
        try:
            status, started, _ = post_json(a.base + "/native/register/options", {"username": name})
            if status != 200:
                signups.append((name, None))
                return
            created = SoftPasskey().create_response(started["options"], "https://localhost")
            status, _, _ = post_json(a.base + "/native/register/finish", {"state": started["state"], "credential": created})
        except OSError:
            status = None
        signups.append((name, status))

    def restarts():
        index = 0
        for _ in range(3):
            started = time.time()
            thread = threading.Thread(target=pg, args=("restart",))
            thread.start()
            while thread.is_alive() or time.time() - started < 1.0:
                sign_up(index)
                index += 1
            thread.join()
        time.sleep(3)
    run_apps(apps, restarts)
    check_answers(apps, "PostgreSQL restarts")
    accounts = {name: sql(f"SELECT count(*) FROM passkey_users WHERE username = '{name}'") for name, _ in signups}
    check(all(accounts[name] == ("1" if status == 200 else "0") for name, status in signups),
          f"PostgreSQL restarts: each of {len(signups)} sign-ups has its account exactly when it answered 200"
          f" ({sorted(set(s for _, s in signups), key=str)})")


def session_key_rotation(a, b, passkey):
    """A new SESSION_KEY, node by node, while apps refresh at both (the README's rotation): the
    signing keys sealed under the old key no longer open, and each node makes one under its new
    key by itself (no SQL by hand). Access tokens of the old key fail closed; refresh tokens go on."""
    apps = [App(node, passkey, "tokenuser") for node in (a, b, a, b)]
    before = token_login(a.base, passkey, "tokenuser")
    old_kids = {key["kid"] for key in request("GET", a.base + "/.well-known/jwks.json")[1]["keys"]}
    key = os.urandom(32).hex()

    def rotate():
        for node in (a, b):
            time.sleep(1.5)
            node.env["SESSION_KEY"] = key
            # No rotation by age from here on: a node must not wait for the old keys to age out.
            node.env["SIGNING_KEY_ROTATION_SECONDS"] = "3600"
            node.stop()
            node.start()
            status, jwks, _ = request("GET", node.base + "/.well-known/jwks.json")
            kids = {k["kid"] for k in jwks.get("keys", [])} if status == 200 else set()
            check(status == 200 and kids and not kids & old_kids,
                  f"{node.name} restarted with a new SESSION_KEY: its JWKS at once has a key of it ({status} {len(kids)})")
        time.sleep(3)
    run_apps(apps, rotate)
    # A 503 (a database call past its 1 s deadline on a busy machine) is allowed: it spends nothing.
    check_answers(apps, "SESSION_KEY rotation")
    for node in (a, b):
        status, jwks, _ = request("GET", node.base + "/.well-known/jwks.json")
        kids = {k["kid"] for k in jwks.get("keys", [])} if status == 200 else set()
        check(status == 200 and kids and not kids & old_kids, f"{node.name}: JWKS answers, with keys of the new SESSION_KEY only ({status})")
        check(request("GET", node.base + "/api/me", headers=bearer(before["access_token"]))[0] == 401,
              f"{node.name}: an access token of the old key fails closed (401)")
    for app in apps:
        check(app.bearer and app.bearer[-1] == 200, f"{app.node.name}: the app's newest access token reads the account")
    status, after, _ = form(b.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": before["refresh_token"]})
    check(status == 200 and request("GET", a.base + "/api/me", headers=bearer(after["access_token"]))[0] == 200,
          "a refresh token from before the rotation refreshes, and its new access token works on the other node")


def main():
    return run_suite("tokens", checks)


ANDROID_CERTIFICATE_SHA256 = hashlib.sha256(b"the example app's signing certificate").digest()
ANDROID_FINGERPRINT = ":".join(f"{byte:02X}" for byte in ANDROID_CERTIFICATE_SHA256)
ANDROID_ORIGIN = "android:apk-key-hash:" + base64.urlsafe_b64encode(ANDROID_CERTIFICATE_SHA256).decode().rstrip("=")


def std64(text):
    """base64url (as the software passkey writes) to the standard base64 JSONEncoder writes for Data."""
    return base64.b64encode(b64decode(text)).decode()


def app_registration(browser):
    """What an iOS app posts for ASAuthorizationPlatformPublicKeyCredentialRegistration."""
    return {"credentialID": std64(browser["rawId"]), "rawClientDataJSON": std64(browser["response"]["clientDataJSON"]),
            "rawAttestationObject": std64(browser["response"]["attestationObject"])}


def app_assertion(browser):
    """What an iOS app posts for ASAuthorizationPlatformPublicKeyCredentialAssertion."""
    response = browser["response"]
    return {"credentialID": std64(browser["rawId"]), "rawClientDataJSON": std64(response["clientDataJSON"]),
            "rawAuthenticatorData": std64(response["authenticatorData"]), "signature": std64(response["signature"]),
            "userID": std64(response["userHandle"])}


def native_apps(a, b):
    """An iOS app (raw AuthenticationServices fields, origin https://localhost) and an Android app
    (Credential Manager's JSON, origin android:apk-key-hash:…) sign up on one node and sign in on
    the other, with the ceremony state in the body and no cookie; the association files list them."""
    status, aasa, _ = request("GET", a.base + "/.well-known/apple-app-site-association")
    check(status == 200 and aasa == {"webcredentials": {"apps": ["ABCDE12345.org.example.app"]}}, f"AASA served ({aasa})")
    status, links, _ = request("GET", b.base + "/.well-known/assetlinks.json")
    check(status == 200 and any(s["target"].get("package_name") == "org.example.android"
                                and s["target"].get("sha256_cert_fingerprints") == [ANDROID_FINGERPRINT] for s in links),
          "assetlinks.json lists the Android app with its fingerprint")
    for name, origin, shape in (("iosuser", "https://localhost", "ios"), ("androiduser", ANDROID_ORIGIN, "android")):
        passkey = SoftPasskey()
        status, started, jar = post_json(a.base + "/native/register/options", {"username": name})
        check(status == 200 and not jar and set(started) == {"options", "state"}, f"{shape}: registration options and state, no cookie")
        browser = passkey.create_response(started["options"], origin)
        credential = app_registration(browser) if shape == "ios" else browser
        status, tokens, jar = post_json(b.base + "/native/register/finish", {"state": started["state"], "credential": credential})
        check(status == 200 and tokens.get("token_type") == "Bearer" and not jar,
              f"{shape}: registration begun on A, finished on B: tokens, no cookie ({status} {str(tokens)[:80]})")
        check(sql(f"SELECT count(*) FROM passkey_users WHERE username = '{name}'") == "1", f"{shape}: the account row")
        # The first refresh token was stored in the registration's own transaction, with its family.
        check(family_of(tokens["refresh_token"]) != "", f"{shape}: its first refresh token is stored, in its family")
        status, refreshed, _ = form(a.base, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        check(status == 200 and refreshed.get("refresh_token"), f"{shape}: the registration's refresh token refreshes ({status})")
        status, me, _ = request("GET", a.base + "/api/me", headers=bearer(tokens["access_token"]))
        check(status == 200 and me["username"] == name, f"{shape}: its bearer token reads the account")
        status, started, _ = post_json(b.base + "/native/login/options", {})
        browser = passkey.get_response(started["options"], origin)
        credential = app_assertion(browser) if shape == "ios" else browser
        finish = {"state": started["state"], "credential": credential}
        status, tokens, _ = post_json(a.base + "/native/login/finish", finish)
        check(status == 200 and tokens.get("access_token"), f"{shape}: usernameless login begun on B, finished on A: tokens")
        status, answer, _ = post_json(b.base + "/native/login/finish", finish)
        check(status == 400, f"{shape}: the same login again, at the other node: refused ({status} {answer})")


def b64decode(text):
    import base64
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64encode(data):
    import base64
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def passkey_b64(passkey):
    return b64encode(passkey.user_handle)


if __name__ == "__main__":
    sys.exit(main())
