#!/usr/bin/env python3
"""An article's app ("Add passkeys to a Hummingbird server": the backend package's
passkey-quickstart target; "... to a Vapor server": passkey-quickstart-vapor; or the Vapor
example), served without DATABASE_URL (in memory, or SQLite) and on PostgreSQL, and used as an
app and a browser would: an app signs up and in (the ceremony state in the body,
tokens back), calls the app's own route with its bearer token, refreshes (rotation; the spent
token is refused), a third party verifies the access token with PyJWT from the JWKS, the app
revokes its refresh token; a browser signs up and reads its account with the session cookie.
(The App Attest part runs appattest_sim.py against the same binary: run-e2e.sh.)

Environment (from run-e2e.sh): PASSKEY_BINARY (the quickstart), DATABASE_URL, E2E_WORK, E2E_SESSION_KEY.
"""
import json
import os
import sys
import urllib.parse

import jwt

from hardening import Node, check, run_suite
from softauth import SoftPasskey, post_json, request


def form(url, fields):
    return request("POST", url, urllib.parse.urlencode(fields).encode(), {"Content-Type": "application/x-www-form-urlencoded"})


def app_and_browser(mode, database_url):
    node = Node(f"quickstart-{mode}", DATABASE_URL=database_url)
    base = node.base
    try:
        passkey = SoftPasskey()
        status, answer, _ = post_json(base + "/native/register/options", {"username": f"ada-{mode}"})
        check(status == 200 and "state" in answer, f"{mode}: an app's sign-up options and state ({status})")
        status, tokens, _ = post_json(base + "/native/register/finish",
                                      {"state": answer["state"], "credential": passkey.create_response(answer["options"], base)})
        check(status == 200 and tokens.get("token_type") == "Bearer", f"{mode}: the app's first passkey answers tokens ({status})")
        bearer = {"Authorization": "Bearer " + tokens["access_token"]}
        status, text, _ = request("GET", base + "/hello", headers=bearer)
        check(status == 200 and b"Signed in" in text, f"{mode}: the app's own route sees the signed-in user ({status})")
        check(request("GET", base + "/hello")[0] == 401, f"{mode}: and refuses a request without a token")

        status, answer, _ = post_json(base + "/native/login/options", {})
        status, login, _ = post_json(base + "/native/login/finish",
                                     {"state": answer["state"], "credential": passkey.get_response(answer["options"], base)})
        check(status == 200 and "refresh_token" in login, f"{mode}: the app signs in with its passkey ({status})")

        status, refreshed, _ = form(base + "/oauth/token", {"grant_type": "refresh_token", "refresh_token": login["refresh_token"]})
        check(status == 200 and refreshed["refresh_token"] != login["refresh_token"], f"{mode}: a refresh rotates ({status})")
        status, error, _ = form(base + "/oauth/token", {"grant_type": "refresh_token", "refresh_token": login["refresh_token"]})
        check(status == 400 and error.get("error") == "invalid_grant", f"{mode}: the spent refresh token is refused ({status})")

        status, jwks, _ = request("GET", base + "/.well-known/jwks.json")
        keys = jwt.PyJWKSet.from_dict(jwks)
        kid = jwt.get_unverified_header(tokens["access_token"])["kid"]
        claims = jwt.decode(tokens["access_token"], keys[kid].key, algorithms=["ES256"], audience=base, issuer=base)
        check(claims["sub"] and claims["jti"], f"{mode}: PyJWT verifies the access token from the JWKS")

        status, _, _ = form(base + "/oauth/revoke", {"token": tokens["refresh_token"]})
        check(status == 200, f"{mode}: revocation answers 200 ({status})")
        status, error, _ = form(base + "/oauth/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        check(status == 400, f"{mode}: a revoked refresh token refreshes nothing ({status})")

        browser = SoftPasskey()
        status, answer, jar = browser.register(base, f"grace-{mode}")
        check(status == 200 and "pk_session" in jar, f"{mode}: a browser signs up with a session cookie ({status})")
        status, account, _ = request("GET", base + "/api/me", cookies={"pk_session": jar["pk_session"]})
        check(status == 200 and account["username"] == f"grace-{mode}", f"{mode}: the session reads the account ({status})")
        path = base + "/api/passkeys/" + account["passkeys"][0]["id"]
        status, renamed, _ = request("PATCH", path, json.dumps({"name": "Work laptop"}).encode(),
                                     {"Content-Type": "application/json"}, {"pk_session": jar["pk_session"]})
        check(status == 200 and renamed.get("name") == "Work laptop", f"{mode}: a passkey is named ({status})")
        status, account, _ = request("GET", base + "/api/me", cookies={"pk_session": jar["pk_session"]})
        check(account["passkeys"][0].get("name") == "Work laptop", f"{mode}: the passkey keeps the name its user gave it")
    finally:
        node.stop()


def checks():
    app_and_browser("default", "")
    if os.environ["DATABASE_URL"]:
        app_and_browser("postgres", os.environ["DATABASE_URL"])


if __name__ == "__main__":
    sys.exit(run_suite("quickstart", checks))
