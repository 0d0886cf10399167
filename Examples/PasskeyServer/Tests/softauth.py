"""A software passkey for the hardening tests: an ES256 key in this process, `none` attestation,
and a signature counter that stays 0 at every use, as synced passkeys' does (Apple, Google).
It talks to the server over plain HTTP, the way a browser's page would: options, then the
response JSON that `credential.toJSON()` gives, with the ceremony cookie."""
import base64
import hashlib
import json
import os
import urllib.error
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

TIMEOUT = 20


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value):
    """Canonical-enough CBOR for attestation objects: ints, bytes, text, lists, dicts."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for size, code in ((1, 24), (2, 25), (4, 26), (8, 27)):
            if n < 1 << (8 * size):
                return bytes([major << 5 | code]) + n.to_bytes(size, "big")
        raise ValueError(n)
    if isinstance(value, bool):
        return b"\xf5" if value else b"\xf4"
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, dict):
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(type(value))


def request(method, url, body=None, headers=None, cookies=None, timeout=TIMEOUT):
    """(status, parsed JSON or raw bytes, {cookie name: value} set by the answer)."""
    req = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    if cookies:
        req.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            status, data, set_cookies = response.status, response.read(), response.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as error:
        status, data, set_cookies = error.code, error.read(), error.headers.get_all("Set-Cookie") or []
    jar = {}
    for header in set_cookies:
        name, value = header.split(";", 1)[0].split("=", 1)
        jar[name] = value
    try:
        return status, json.loads(data), jar
    except ValueError:
        return status, data, jar


def post_json(url, obj, cookies=None, headers=None, timeout=TIMEOUT):
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return request("POST", url, body, {"Content-Type": "application/json", **(headers or {})}, cookies, timeout)


class SoftPasskey:
    """One credential. `origin` is the page's origin the client data names."""

    def __init__(self, rp_id="localhost"):
        self.rp_id = rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.user_handle = None

    def _cose_key(self):
        numbers = self.key.public_key().public_numbers()
        return cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})

    def _client_data(self, kind, challenge, origin):
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}).encode()

    def create_response(self, options, origin):
        """The registration response for creation options (JSON as the server sent them)."""
        self.user_handle = b64url_decode(options["user"]["id"])
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        auth_data = (hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x45]) + (0).to_bytes(4, "big")
                     + bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + self._cose_key())
        attestation = cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                             "transports": ["internal"]},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}

    def get_response(self, options, origin):
        """The authentication response for request options; the counter is 0 every time."""
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        auth_data = hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x05]) + (0).to_bytes(4, "big")
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                             "signature": b64url(signature), "userHandle": b64url(self.user_handle or b"")},
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}

    # Whole ceremonies over HTTP (`base` is the node's URL, which is also the origin).

    def register(self, base, username=None, session=None):
        """(status, answer, cookies) of options + verification; signed in: adds to the session's account."""
        cookies = {"pk_session": session} if session else {}
        status, options, jar = post_json(base + "/api/register/options", {"username": username} if username else {}, cookies)
        if status != 200:
            return status, options, jar
        response = self.create_response(options, base)
        return post_json(base + "/api/register/verify", response, {**cookies, "pk_reg": jar["pk_reg"]})

    def login_capture(self, base, username=None):
        """A signed login response and its ceremony cookie, not yet posted (a captured login)."""
        status, options, jar = post_json(base + "/api/login/options", {"username": username} if username else {})
        assert status == 200, (status, options)
        return json.dumps(self.get_response(options, base)).encode(), jar["pk_login"]

    def login(self, base, username=None):
        """(status, answer, cookies) of a whole login."""
        body, cookie = self.login_capture(base, username)
        return post_json(base + "/api/login/verify", body, {"pk_login": cookie})
