"""A peer for the load test (run-load.sh): the example's web login routes written the way a
Python shop would, with Starlette on uvicorn, py_webauthn and asyncpg, on the same PostgreSQL
tables as the Swift server (accounts and credentials the Swift server registered), so one
generator and one /proc split can say what each costs per login.

Same work per login as the Swift server with challenges in the database: options read the
account and its credentials in one query and store the challenge (a row in passkey_challenges);
the ceremony state travels in an HMAC-signed cookie; verification consumes the challenge row
(DELETE ... RETURNING), reads the record, verifies the assertion, updates the counter only if
nobody advanced it (the conditional UPDATE), and starts a session (a row keyed by the token's
SHA-256, a cookie). Not a product: only what the load test drives.

Environment: PORT, DATABASE_URL, SESSION_KEY (64 hex digits), ORIGIN (default
http://localhost:PORT), RP_ID (default localhost).
"""

import base64
import contextlib
import datetime
import hashlib
import hmac
import json
import os
import secrets
import time
import unicodedata

import asyncpg
import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from webauthn import generate_authentication_options, options_to_json, verify_authentication_response
from webauthn.helpers.structs import AuthenticatorTransport, PublicKeyCredentialDescriptor, UserVerificationRequirement

PORT = int(os.environ.get("PORT", "8090"))
RP_ID = os.environ.get("RP_ID", "localhost")
ORIGIN = os.environ.get("ORIGIN", f"http://localhost:{PORT}")
KEY = bytes.fromhex(os.environ["SESSION_KEY"])
LIFETIME = 300
SESSION_LIFETIME = 12 * 3600
TRANSPORTS = {t.value: t for t in AuthenticatorTransport}

pool: asyncpg.Pool | None = None


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_key(value) -> bytes:
    """The COSE key of a stored record: base64 text (either alphabet) or an array of bytes."""
    return unb64(value) if isinstance(value, str) else bytes(value)


def sign(payload: dict, purpose: str) -> str:
    body = json.dumps(payload, separators=(",", ":")).encode()
    mac = hmac.new(KEY, purpose.encode() + b"\0" + body, hashlib.sha256).digest()
    return b64(body) + "." + b64(mac)


def verify(value: str | None, purpose: str) -> dict | None:
    if not value or len(value) > 8192 or value.count(".") != 1:
        return None
    body_text, mac_text = value.split(".")
    try:
        body, mac = unb64(body_text), unb64(mac_text)
    except ValueError:
        return None
    if not hmac.compare_digest(mac, hmac.new(KEY, purpose.encode() + b"\0" + body, hashlib.sha256).digest()):
        return None
    return json.loads(body)


def refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={"Cache-Control": "no-store"})


async def login_options(request):
    try:
        body = await request.json()
        name = unicodedata.normalize("NFC", str(body.get("username", "")).strip())
    except (ValueError, AttributeError):
        return refuse(400, "The request is not valid JSON for this endpoint.")
    if not 1 <= len(name) <= 64:
        return refuse(400, "A username is 1 to 64 characters.")
    key = unicodedata.normalize("NFC", name.casefold())
    rows = await pool.fetch(
        """SELECT u.user_handle, u.username, c.id, c.transports FROM passkey_users u
           LEFT JOIN passkey_credentials c ON c.user_handle = u.user_handle
           WHERE u.username_key = $1 ORDER BY c.created_at""",
        key,
    )
    allow = [
        PublicKeyCredentialDescriptor(id=bytes(r["id"]), transports=[TRANSPORTS[t] for t in (r["transports"] or []) if t in TRANSPORTS])
        for r in rows
        if r["id"] is not None
    ]
    handle = bytes(rows[0]["user_handle"]) if rows else secrets.token_bytes(32)
    options = generate_authentication_options(
        rp_id=RP_ID, allow_credentials=allow, user_verification=UserVerificationRequirement.PREFERRED
    )
    now = time.time()
    issued = json.dumps({"user": b64(handle), "exp": now + LIFETIME}, separators=(",", ":"))
    await pool.execute(
        "INSERT INTO passkey_challenges (challenge, issued, expires_at) VALUES ($1, $2, $3)",
        options.challenge,
        issued,
        datetime.datetime.fromtimestamp(now + LIFETIME, datetime.timezone.utc),
    )
    cookie = sign(
        {"c": b64(options.challenge), "u": b64(handle), "n": rows[0]["username"] if rows else name, "exp": now + LIFETIME},
        "authentication",
    )
    response = Response(options_to_json(options), media_type="application/json", headers={"Cache-Control": "no-store"})
    response.set_cookie("pk_login", cookie, max_age=LIFETIME, path="/", httponly=True, samesite="strict")
    return response


async def login_verify(request):
    ceremony = verify(request.cookies.get("pk_login"), "authentication")
    if ceremony is None or ceremony["exp"] < time.time():
        return refuse(400, "No login is in progress. Please start again.")
    body = await request.body()
    if len(body) > 65536:
        return refuse(413, "The request is too large.")
    try:
        credential = json.loads(body)
        credential_id = unb64(credential["rawId"])
    except (ValueError, KeyError, TypeError):
        return refuse(400, "The request is not valid JSON for this endpoint.")
    challenge = unb64(ceremony["c"])
    async with pool.acquire() as connection:
        issued = await connection.fetchval("DELETE FROM passkey_challenges WHERE challenge = $1 RETURNING issued", challenge)
        if issued is None:
            return refuse(401, "The challenge is unknown or was already used.")
        row = await connection.fetchrow(
            "SELECT record, sign_count, user_handle FROM passkey_credentials WHERE id = $1", credential_id
        )
        if row is None or b64(bytes(row["user_handle"])) != ceremony["u"]:
            return refuse(401, "Unknown credential.")
        record = json.loads(row["record"])
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=RP_ID,
                expected_origin=ORIGIN,
                credential_public_key=public_key(record["publicKey"]),
                credential_current_sign_count=row["sign_count"],
                require_user_verification=False,
            )
        except Exception as error:  # py_webauthn raises its own exception types per check
            return refuse(401, f"The passkey could not be verified: {error}")
        updated = await connection.fetchval(
            """UPDATE passkey_credentials SET sign_count = $2, backup_state = $3, last_used_at = now()
               WHERE id = $1 AND sign_count = $4 RETURNING 1""",
            credential_id,
            verified.new_sign_count,
            verified.credential_backed_up,
            row["sign_count"],
        )
        if updated != 1:
            return refuse(401, "A concurrent login of this passkey won.")
        token = secrets.token_bytes(32)
        now = datetime.datetime.now(datetime.timezone.utc)
        await connection.execute(
            """INSERT INTO passkey_sessions (id, user_handle, credential_id, signed_in_at, expires_at)
               VALUES ($1, $2, $3, $4, $5)""",
            hashlib.sha256(token).digest(),
            bytes(row["user_handle"]),
            credential_id,
            now,
            now + datetime.timedelta(seconds=SESSION_LIFETIME),
        )
    response = JSONResponse({"ok": True, "username": ceremony["n"], "prf": False}, headers={"Cache-Control": "no-store"})
    response.set_cookie("pk_login", "", max_age=0, path="/", httponly=True, samesite="strict")
    response.set_cookie("pk_session", b64(token), max_age=SESSION_LIFETIME, path="/", httponly=True, samesite="strict")
    return response


async def healthz(request):
    return JSONResponse({"status": "ok"})


@contextlib.asynccontextmanager
async def lifespan(app):
    global pool
    pool = await asyncpg.create_pool(os.environ["DATABASE_URL"], min_size=16, max_size=16)
    yield
    await pool.close()


app = Starlette(
    routes=[
        Route("/api/login/options", login_options, methods=["POST"]),
        Route("/api/login/verify", login_verify, methods=["POST"]),
        Route("/healthz", healthz),
    ],
    lifespan=lifespan,
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning", access_log=False)
