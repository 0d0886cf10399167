#!/usr/bin/env python3
"""Record real-browser WebAuthn ceremonies from headless Chromium's virtual authenticator.

Usage:
    record_chromium.py [--out DIR] [--port N] [--chromium PATH] [--chromedriver PATH]

Serves a tiny page on http://localhost:PORT (a secure context), starts Chromium through
chromedriver (plain WebDriver over HTTP, no Python packages needed), adds a CTAP2 virtual
authenticator (internal transport, resident keys, user verification) for each file, and
runs navigator.credentials.create / navigator.credentials.get with challenges derived from
the file and ceremony names. The responses are written exactly as the browser returned them
(PublicKeyCredential.toJSON()) into `webauthn-ceremonies/1` files under
Fixtures/recorded/chromium/ (default), each expected to be accepted, with the recording
time as policy.verificationTime and the browser version in the description.

Needs Debian's `chromium` and `chromium-driver` packages. Re-recording replaces the files:
keys, signatures and credential ids are new every time (the authenticator is the
browser's), the challenges and user handles stay the same.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import http.server
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Optional

FORMAT = "webauthn-ceremonies/1"
REPO_ROOT = Path(__file__).resolve().parents[2]
RP_ID = "localhost"
RP_NAME = "webauthn-rp recording"

ALGORITHMS = [(-7, "es256"), (-257, "rs256"), (-8, "eddsa")]
ATTESTATIONS = ["none", "direct"]

PAGE = """<!doctype html>
<meta charset="utf-8">
<title>webauthn-rp recorder</title>
<script>
function b64u(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
}
function unb64u(text) {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(padded), c => c.charCodeAt(0)).buffer;
}
function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON)
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  const o = structuredClone(json);
  o.challenge = unb64u(o.challenge);
  o.user.id = unb64u(o.user.id);
  o.excludeCredentials = (o.excludeCredentials || []).map(c => ({...c, id: unb64u(c.id)}));
  return o;
}
function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON)
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  const o = structuredClone(json);
  o.challenge = unb64u(o.challenge);
  o.allowCredentials = (o.allowCredentials || []).map(c => ({...c, id: unb64u(c.id)}));
  return o;
}
// The JSON of a credential: toJSON() when the browser has it, otherwise the base64url of
// each ArrayBuffer (WebAuthn L3 RegistrationResponseJSON / AuthenticationResponseJSON).
function credentialJSON(cred) {
  if (typeof cred.toJSON === "function") return {viaToJSON: true, json: cred.toJSON()};
  const r = cred.response;
  const response = {clientDataJSON: b64u(r.clientDataJSON)};
  if (r.attestationObject) {
    response.attestationObject = b64u(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = b64u(r.authenticatorData);
    response.signature = b64u(r.signature);
    if (r.userHandle) response.userHandle = b64u(r.userHandle);
  }
  return {viaToJSON: false, json: {id: cred.id, rawId: b64u(cred.rawId), response,
          authenticatorAttachment: cred.authenticatorAttachment, type: cred.type,
          clientExtensionResults: cred.getClientExtensionResults()}};
}
async function ceremony(kind, json) {
  try {
    const cred = kind === "create"
      ? await navigator.credentials.create({publicKey: creationOptions(json)})
      : await navigator.credentials.get({publicKey: requestOptions(json)});
    return {ok: credentialJSON(cred)};
  } catch (e) {
    return {error: e.name + ": " + e.message};
  }
}
</script>
<p>webauthn-rp recorder</p>
"""


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def derived(*parts: str, length: int = 32) -> str:
    """A value fixed by the names, so that re-recording keeps challenges and user ids."""
    return b64u(hashlib.sha256("/".join(("chromium",) + parts).encode()).digest()[:length])


# ---------------------------------------------------------------------------
# A minimal WebDriver client
# ---------------------------------------------------------------------------

class WebDriverError(Exception):
    pass


class WebDriver:
    def __init__(self, chromedriver: str, chromium: str):
        self.port = free_port()
        self.process = subprocess.Popen(
            [chromedriver, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(100):
            try:
                self.request("GET", "/status")
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        else:
            self.close()
            raise WebDriverError("chromedriver did not start")
        self.profile = tempfile.mkdtemp(prefix="record-chromium-")
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", f"--user-data-dir={self.profile}"],
            },
        }}}
        value = self.request("POST", "/session", capabilities)
        self.session = value["sessionId"]
        self.browser_version = value["capabilities"].get("browserVersion", "?")

    def request(self, method: str, path: str, body: Optional[dict] = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                payload = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            payload = json.loads(exc.read() or b"{}")
            raise WebDriverError(f"{method} {path}: {payload.get('value', payload)}") from None
        return payload.get("value")

    def s(self, path: str) -> str:
        return f"/session/{self.session}{path}"

    def navigate(self, url: str) -> None:
        self.request("POST", self.s("/url"), {"url": url})

    def add_authenticator(self) -> str:
        return self.request("POST", self.s("/webauthn/authenticator"), {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
            "hasUserVerification": True, "isUserConsenting": True, "isUserVerified": True,
        })

    def remove_authenticator(self, authenticator_id: str) -> None:
        self.request("DELETE", self.s(f"/webauthn/authenticator/{authenticator_id}"))

    def run_ceremony(self, kind: str, options: dict) -> dict:
        script = ("const done = arguments[arguments.length - 1];"
                  "ceremony(arguments[0], arguments[1]).then(done);")
        return self.request("POST", self.s("/execute/async"), {"script": script, "args": [kind, options]})

    def close(self) -> None:
        try:
            if getattr(self, "session", None):
                self.request("DELETE", self.s(""))
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        if getattr(self, "profile", None):
            shutil.rmtree(self.profile, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_page(port: int) -> http.server.ThreadingHTTPServer:
    page = PAGE.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------------------
# Reading the browser's bytes for the expectations (never changing them)
# ---------------------------------------------------------------------------

def auth_data_fields(auth_data: bytes) -> dict:
    flags = auth_data[32]
    return {
        "signCount": int.from_bytes(auth_data[33:37], "big"),
        "userPresent": bool(flags & 0x01),
        "userVerified": bool(flags & 0x04),
        "backupEligible": bool(flags & 0x08),
        "backupState": bool(flags & 0x10),
    }


def cbor_decode(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """A small CBOR reader (definite lengths) for reading the attestation object's fmt and
    authData into the expectations; returns (value, next position)."""
    major, info = data[pos] >> 5, data[pos] & 0x1F
    pos += 1
    if info < 24:
        value = info
    elif info in (24, 25, 26, 27):
        size = 1 << (info - 24)
        value, pos = int.from_bytes(data[pos:pos + size], "big"), pos + size
    else:
        raise ValueError(f"unsupported CBOR head {data[pos - 1]:#x}")
    if major == 0:
        return value, pos
    if major == 1:
        return -1 - value, pos
    if major == 2:
        return data[pos:pos + value], pos + value
    if major == 3:
        return data[pos:pos + value].decode("utf-8"), pos + value
    if major == 4:
        items = []
        for _ in range(value):
            item, pos = cbor_decode(data, pos)
            items.append(item)
        return items, pos
    if major == 5:
        entries = {}
        for _ in range(value):
            key, pos = cbor_decode(data, pos)
            entries[key if not isinstance(key, list) else repr(key)], pos = cbor_decode(data, pos)
        return entries, pos
    if major == 6:
        return cbor_decode(data, pos)
    return {20: False, 21: True, 22: None}.get(value, value), pos


def fmt_and_auth_data(attestation_object: bytes) -> tuple[str, bytes]:
    decoded, _ = cbor_decode(attestation_object)
    if not isinstance(decoded, dict) or not isinstance(decoded.get("fmt"), str) \
            or not isinstance(decoded.get("authData"), bytes):
        raise ValueError("attestation object lacks fmt or authData")
    return decoded["fmt"], decoded["authData"]


# ---------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------

def record_file(driver: WebDriver, origin: str, attestation: str, alg: int, alg_name: str,
                recorded_at: str) -> Optional[dict]:
    stem = f"{attestation}-{alg_name}"
    authenticator = driver.add_authenticator()
    try:
        user_id = derived(stem, "user", length=16)
        registration_options = {
            "rp": {"id": RP_ID, "name": RP_NAME},
            "user": {"id": user_id, "name": f"{stem}@localhost", "displayName": stem},
            "challenge": derived(stem, "register"),
            "pubKeyCredParams": [{"type": "public-key", "alg": alg}],
            "timeout": 60000,
            "excludeCredentials": [],
            "authenticatorSelection": {"residentKey": "required", "requireResidentKey": True,
                                       "userVerification": "preferred"},
            "attestation": attestation,
        }
        created = driver.run_ceremony("create", registration_options)
        if "error" in created:
            print(f"  {stem}: create failed in the browser ({created['error']}); not recorded")
            return None
        reg = created["ok"]["json"]
        via = "toJSON()" if created["ok"]["viaToJSON"] else "base64url of each ArrayBuffer"
        fmt, auth_data = fmt_and_auth_data(unb64u(reg["response"]["attestationObject"]))
        cred_id = reg["rawId"]
        ceremonies = [{
            "name": "register",
            "kind": "registration",
            "options": registration_options,
            "response": reg,
            "expect": {"outcome": "accept", "attestationFormat": fmt, "credentialId": cred_id,
                       "algorithm": alg, **auth_data_fields(auth_data)},
        }]
        logins = [
            ("login-allow-credentials", [{"type": "public-key", "id": cred_id}], "preferred"),
            ("login-discoverable", [], "preferred"),
            ("login-uv-required", [{"type": "public-key", "id": cred_id}], "required"),
        ]
        for name, allow, uv in logins:
            options = {"challenge": derived(stem, name), "timeout": 60000, "rpId": RP_ID,
                       "allowCredentials": allow, "userVerification": uv}
            got = driver.run_ceremony("get", options)
            if "error" in got:
                print(f"  {stem}/{name}: get failed in the browser ({got['error']}); file not recorded")
                return None
            response = got["ok"]["json"]
            fields = auth_data_fields(unb64u(response["response"]["authenticatorData"]))
            ceremonies.append({
                "name": name,
                "kind": "authentication",
                "options": options,
                "response": response,
                "expect": {"outcome": "accept", "credentialId": response["rawId"], **fields},
            })
        return {
            "format": FORMAT,
            "description": (f"Chromium {driver.browser_version} (headless), virtual CTAP2 authenticator "
                            f"(internal transport, resident keys, user verification): attestation "
                            f"{attestation!r}, {alg_name.upper()} credential; a registration and three logins "
                            f"recorded as the browser returned them ({via})"),
            "source": "Recorded by Tests/Scripts/record_chromium.py on " + recorded_at,
            "relyingParty": {"id": RP_ID, "name": RP_NAME, "origins": [origin]},
            "policy": {"verificationTime": recorded_at, "trustAnchors": [],
                       "requireTrustedAttestation": False, "allowCounterRegression": False},
            "ceremonies": ceremonies,
        }
    finally:
        driver.remove_authenticator(authenticator)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(REPO_ROOT / "Fixtures" / "recorded" / "chromium"))
    parser.add_argument("--port", type=int, default=8443,
                        help="port of the page on http://localhost (part of the recorded origin)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    args = parser.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    origin = f"http://localhost:{args.port}"
    server = serve_page(args.port)
    driver = WebDriver(args.chromedriver, args.chromium)
    written = 0
    try:
        print(f"Chromium {driver.browser_version}, page {origin}/")
        driver.navigate(origin + "/")
        recorded_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        for attestation in ATTESTATIONS:
            for alg, alg_name in ALGORITHMS:
                doc = record_file(driver, origin, attestation, alg, alg_name, recorded_at)
                if doc is None:
                    continue
                path = out / f"{attestation}-{alg_name}.json"
                path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
                print(f"  wrote {path} ({len(doc['ceremonies'])} ceremonies, "
                      f"fmt {doc['ceremonies'][0]['expect']['attestationFormat']})")
                written += 1
    finally:
        driver.close()
        server.shutdown()
    print(f"{written} files written")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
