#!/usr/bin/env python3
"""Cross-check the verdicts of `webauthn-ceremonies/1` fixtures with py_webauthn.

Usage:
    crosscheck_py_webauthn.py [--clock fixture|now] [--verbose] [paths...]

Each path is a fixture file or a folder searched recursively for *.json; the
default is the repository's Fixtures/. Every ceremony of every file is replayed,
in order, through Python's `webauthn` package (py_webauthn, from PyPI), with the
relying-party state the fixture specification describes (issued challenges,
credential records with public key, sign count, user handle and backup flags).
py_webauthn's accept/reject is compared with the fixture's `expect.outcome`.

Every ceremony ends in one of three results:

  agree           py_webauthn reached the fixture's verdict.
  disagree        it did not, and nothing py_webauthn is known not to check
                  explains the difference.
  not comparable  py_webauthn cannot judge the ceremony (a format, algorithm or
                  policy it does not implement), or the verdicts differ because
                  of a rule py_webauthn leaves to its caller or does not check;
                  the reason is printed ("py_webauthn does not check X").

The script is a development tool: it is not part of the Swift package and no
test depends on it. It needs `pip install webauthn` in a virtual environment
outside the repository. Exit status: 0 when nothing disagrees, 1 when some
ceremony disagrees, 2 when a fixture file is unusable or py_webauthn is missing.

py_webauthn checks certificate validity against the current time; with the
default `--clock fixture` the script sets the certificate store's time to each
file's `policy.verificationTime` (py_webauthn's own hook for that,
`_generate_new_cert_store`), with `--clock now` it leaves the current time.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import datetime as dt
import hashlib
import importlib
import io
import json
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

try:
    import cbor2
    import webauthn
    from cryptography import x509
    from cryptography.x509.oid import ExtensionOID, NameOID
    from OpenSSL import crypto as ossl_crypto
    from webauthn import verify_authentication_response, verify_registration_response
    from webauthn.helpers.structs import AttestationFormat
except ImportError as exc:  # pragma: no cover - environment problem
    sys.stderr.write(
        f"crosscheck: cannot import py_webauthn ({exc}).\n"
        "Install it outside the repository, e.g.\n"
        "  python3 -m venv /work/venv-xcheck && /work/venv-xcheck/bin/pip install webauthn\n"
        "and run this script with /work/venv-xcheck/bin/python.\n"
    )
    sys.exit(2)

FORMAT = "webauthn-ceremonies/1"
REPO_ROOT = Path(__file__).resolve().parents[2]

# Credential algorithms py_webauthn can verify signatures for (helpers/algorithms.py and
# decoded_public_key_to_cryptography.py). EdDSA only with Ed25519 (OKP crv 6).
PY_SIGNATURE_ALGS = {-7, -36, -37, -38, -39, -257, -258, -259, -65535, -48, -49, -50}
ALG_NAMES = {
    -7: "ES256", -35: "ES384", -36: "ES512", -8: "EdDSA", -47: "ES256K", -19: "Ed25519",
    -53: "Ed448", -9: "ESP256", -51: "ESP384", -52: "ESP512", -37: "PS256", -38: "PS384",
    -39: "PS512", -257: "RS256", -258: "RS384", -259: "RS512", -65535: "RS1",
    -48: "ML-DSA-44", -49: "ML-DSA-65", -50: "ML-DSA-87",
}
OKP_CURVES = {6: "Ed25519", 7: "Ed448", 4: "X25519", 5: "X448"}
# Attestation formats of the WebAuthn registry that py_webauthn does not implement.
PY_MISSING_FORMATS = {"compound"}
# Formats whose certificate path py_webauthn validates only when it is given roots.
CHAIN_IF_ROOTS = {"packed", "fido-u2f", "tpm"}
# Formats for which py_webauthn always requires a path to its built-in roots (or ours).
ALWAYS_ROOTED = {"apple", "android-key", "android-safetynet"}
AAGUID_EXTENSION_OID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")

B64URL_RE = re.compile(r"^[A-Za-z0-9_-]*$")


# ---------------------------------------------------------------------------
# Independent, strict parsing used only to set up state and explain differences.
# ---------------------------------------------------------------------------

def b64url_strict(value: Any) -> Optional[bytes]:
    """Base64url without padding, or None when `value` is not exactly that."""
    if not isinstance(value, str) or not B64URL_RE.match(value) or len(value) % 4 == 1:
        return None
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def cbor_prefix(data: bytes) -> tuple[Any, int]:
    """Decode the first CBOR item of `data`; returns (item, bytes used)."""
    stream = io.BytesIO(data)
    item = cbor2.CBORDecoder(stream).decode()
    return item, stream.tell()


@dataclass
class AuthData:
    rp_id_hash: bytes
    flags: int
    sign_count: int
    aaguid: Optional[bytes] = None
    credential_id: Optional[bytes] = None
    cose_key: Optional[bytes] = None
    trailing: bool = False

    @property
    def up(self) -> bool: return bool(self.flags & 0x01)
    @property
    def uv(self) -> bool: return bool(self.flags & 0x04)
    @property
    def be(self) -> bool: return bool(self.flags & 0x08)
    @property
    def bs(self) -> bool: return bool(self.flags & 0x10)


def parse_auth_data(data: bytes) -> Optional[AuthData]:
    if len(data) < 37:
        return None
    ad = AuthData(data[:32], data[32], int.from_bytes(data[33:37], "big"))
    rest = data[37:]
    try:
        if ad.flags & 0x40:
            if len(rest) < 18:
                return None
            ad.aaguid = rest[:16]
            length = int.from_bytes(rest[16:18], "big")
            if len(rest) < 18 + length:
                return None
            ad.credential_id = rest[18:18 + length]
            rest = rest[18 + length:]
            _, used = cbor_prefix(rest)
            ad.cose_key = rest[:used]
            rest = rest[used:]
        if ad.flags & 0x80:
            _, used = cbor_prefix(rest)
            rest = rest[used:]
    except Exception:
        return None
    ad.trailing = len(rest) > 0
    return ad


def cose_alg(cose_key: Optional[bytes]) -> tuple[Optional[int], Optional[int], Optional[int]]:
    """(alg, kty, crv) of a COSE_Key, Nones where unknown."""
    if not cose_key:
        return None, None, None
    try:
        key, _ = cbor_prefix(cose_key)
    except Exception:
        return None, None, None
    if not isinstance(key, dict):
        return None, None, None
    def as_int(v: Any) -> Optional[int]:
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    return as_int(key.get(3)), as_int(key.get(1)), as_int(key.get(-1))


def alg_label(alg: Optional[int], kty: Optional[int], crv: Optional[int]) -> str:
    name = ALG_NAMES.get(alg, f"alg {alg}") if alg is not None else "no alg"
    if alg == -8 and kty == 1:
        name += f" with {OKP_CURVES.get(crv, f'crv {crv}')}"
    return name


def py_supports_key(alg: Optional[int], kty: Optional[int], crv: Optional[int]) -> bool:
    if alg == -8:
        return kty == 1 and crv == 6
    return alg in PY_SIGNATURE_ALGS


def der_to_pem(der: bytes) -> bytes:
    # The same PEM text pyOpenSSL writes, so that py_webauthn's byte comparisons of
    # PEM roots (android-key) see equal strings.
    return ossl_crypto.dump_certificate(
        ossl_crypto.FILETYPE_PEM, ossl_crypto.load_certificate(ossl_crypto.FILETYPE_ASN1, der))


def packed_leaf_problems(der: bytes, aaguid: Optional[bytes]) -> list[str]:
    """The W3C L3 §8.2.1 requirements a packed attestation leaf breaks."""
    try:
        cert = x509.load_der_x509_certificate(der)
    except Exception:
        return []
    problems = []
    if cert.version != x509.Version.v3:
        problems.append("leaf is not X.509 v3")
    subject = cert.subject
    for oid, label in ((NameOID.COUNTRY_NAME, "C"), (NameOID.ORGANIZATION_NAME, "O"),
                       (NameOID.COMMON_NAME, "CN")):
        if not subject.get_attributes_for_oid(oid):
            problems.append(f"subject has no {label}")
    ou = [a.value for a in subject.get_attributes_for_oid(NameOID.ORGANIZATIONAL_UNIT_NAME)]
    if ou != ["Authenticator Attestation"]:
        problems.append(f"subject OU is {ou!r}, not 'Authenticator Attestation'")
    try:
        extensions = cert.extensions
    except ValueError as exc:
        problems.append(f"leaf extensions are not valid DER: {exc}")
        return problems
    try:
        bc = extensions.get_extension_for_oid(ExtensionOID.BASIC_CONSTRAINTS)
        if bc.value.ca:
            problems.append("basicConstraints CA is true")
    except x509.ExtensionNotFound:
        problems.append("no basicConstraints extension")
    try:
        ext = extensions.get_extension_for_oid(AAGUID_EXTENSION_OID)
        if ext.critical:
            problems.append("AAGUID extension is critical")
        raw = ext.value.value  # UnrecognizedExtension: DER of the extnValue contents
        inner = raw[2:] if len(raw) == 18 and raw[0] == 0x04 and raw[1] == 16 else None
        if aaguid is not None and inner != aaguid:
            problems.append("AAGUID extension differs from authData's AAGUID")
    except x509.ExtensionNotFound:
        pass
    return problems


def is_self_issued(der: bytes) -> bool:
    try:
        cert = x509.load_der_x509_certificate(der)
        return cert.issuer == cert.subject
    except Exception:
        return False


# ---------------------------------------------------------------------------
# Replay state and results
# ---------------------------------------------------------------------------

@dataclass
class Record:
    public_key: bytes
    sign_count: int
    user_handle: Optional[bytes]
    backup_eligible: bool
    backup_state: bool


@dataclass
class Limit:
    """Something py_webauthn does not do that bears on one ceremony.

    kind: "unsupported" (py_webauthn cannot judge the ceremony at all),
          "lenient" (py_webauthn accepts what the fixture may reject for `category`),
          "strict" (py_webauthn rejects what the fixture may accept).
    """
    kind: str
    category: Optional[str]
    text: str
    # For "strict" limits: texts of py_webauthn's error that show this rule rejected; a
    # strict limit explains a difference only when one of them is in the error.
    needles: tuple[str, ...] = ()
    detail: str = ""  # ceremony-specific detail, printed per ceremony but not grouped on


@dataclass
class Result:
    file: str
    name: str
    kind: str
    expected: str
    py_verdict: str          # "accept", "reject" or "-" when not run
    py_error: str
    result: str              # "agree", "disagree", "not comparable"
    reason: str = ""
    py_category: str = ""
    detail: str = ""


# Rough mapping of py_webauthn's error text to the fixture categories, to show when both
# reject for different reasons. Informational only: verdicts are compared, not reasons.
PY_ERROR_CATEGORIES = [
    ("malformed", "malformed"),
    ("JSON", "malformed"),
    ("CBOR", "malformed"),
    ("Leftover bytes", "malformed"),
    ("Could not parse", "malformed"),
    ("missing required", "malformed"),
    ("id and raw_id", "malformed"),
    ("Unexpected credential type", "malformed"),
    ("did not provide", "malformed"),
    ("Unexpected client data type", "type"),
    ("challenge", "challenge"),
    ("origin", "origin"),
    ("RP ID hash", "rpIdHash"),
    ("User presence", "userPresence"),
    ("not present", "userPresence"),
    ("User verification", "userVerification"),
    ("Single-device credential indicated", "backupFlags"),
    ("Unsupported credential public key alg", "algorithm"),
    ("sign count", "signCount"),
    ("authentication signature", "signature"),
    ("Certificate chain could not be validated", "trust"),
    ("not a known root", "trust"),
    ("Attestation", "attestation"),
    ("attestation", "attestation"),
    ("(Packed", "attestation"),
    ("(FIDO-U2F)", "attestation"),
]


def py_category(error: str) -> str:
    for needle, category in PY_ERROR_CATEGORIES:
        if needle in error:
            return category
    return "?"


def describe_exception(exc: BaseException) -> str:
    parts = []
    seen = 0
    current: Optional[BaseException] = exc
    while current is not None and seen < 4:
        parts.append(f"{type(current).__name__}: {current}")
        current = current.__cause__ or current.__context__
        seen += 1
    return " <- ".join(parts)


class FixtureError(Exception):
    pass


class Replayer:
    def __init__(self, path: Path, doc: dict, clock: str):
        self.path = path
        self.doc = doc
        self.clock = clock
        rp = doc.get("relyingParty")
        if not isinstance(rp, dict) or not isinstance(rp.get("id"), str):
            raise FixtureError("relyingParty.id is missing")
        origins = rp.get("origins")
        if not isinstance(origins, list) or not all(isinstance(o, str) for o in origins):
            raise FixtureError("relyingParty.origins is missing")
        self.rp_id: str = rp["id"]
        # relatedOrigins (the /.well-known/webauthn document): its origins are accepted too.
        related = (rp.get("relatedOrigins") or {}).get("origins") if isinstance(rp.get("relatedOrigins"), dict) else None
        self.origins: list[str] = origins + [o for o in related or [] if isinstance(o, str) and o not in origins]
        policy = doc.get("policy") or {}
        self.require_trust = bool(policy.get("requireTrustedAttestation", False))
        self.allow_regression = bool(policy.get("allowCounterRegression", False))
        self.verification_time = self._parse_time(policy.get("verificationTime"))
        lifetime = policy.get("challengeLifetime", 300)
        if isinstance(lifetime, bool) or not isinstance(lifetime, (int, float)) or not lifetime >= 0 \
                or lifetime == float("inf"):
            raise FixtureError("policy.challengeLifetime is not a finite number of seconds, 0 or more")
        self.challenge_lifetime = float(lifetime)
        self.anchor_pems: list[bytes] = []
        for index, anchor in enumerate(policy.get("trustAnchors") or []):
            der = b64url_strict(anchor)
            if der is None:
                raise FixtureError(f"policy.trustAnchors[{index}] is not base64url")
            try:
                self.anchor_pems.append(der_to_pem(der))
            except Exception as exc:
                raise FixtureError(f"policy.trustAnchors[{index}] is not a certificate: {exc}")
        self.records: dict[bytes, Record] = {}
        for index, cred in enumerate(doc.get("credentials") or []):
            if not isinstance(cred, dict):
                raise FixtureError(f"credentials[{index}] is not an object")
            cred_id = b64url_strict(cred.get("id"))
            key = b64url_strict(cred.get("publicKey"))
            if cred_id is None or key is None:
                raise FixtureError(f"credentials[{index}] has no usable id/publicKey")
            handle = cred.get("userHandle")
            self.records[cred_id] = Record(
                public_key=key,
                sign_count=int(cred.get("signCount", 0)),
                user_handle=b64url_strict(handle) if handle is not None else None,
                backup_eligible=bool(cred.get("backupEligible", False)),
                backup_state=bool(cred.get("backupState", False)),
            )
        self.outstanding: set[bytes] = set()
        ceremonies = doc.get("ceremonies")
        if not isinstance(ceremonies, list):
            raise FixtureError("ceremonies is missing")
        self.ceremonies = ceremonies

    @staticmethod
    def _parse_time(value: Any, member: str = "policy.verificationTime") -> Optional[dt.datetime]:
        if value is None:
            return None
        if not isinstance(value, str):
            raise FixtureError(f"{member} is not a string")
        try:
            return dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise FixtureError(f"{member} {value!r} is not RFC 3339")

    # -- clock ----------------------------------------------------------------

    def install_clock(self) -> None:
        module = importlib.import_module("webauthn.helpers.validate_certificate_chain")
        when = self.verification_time if self.clock == "fixture" else None
        def make_store() -> ossl_crypto.X509Store:
            store = ossl_crypto.X509Store()
            if when is not None:
                store.set_time(when.astimezone(dt.timezone.utc).replace(tzinfo=None))
            return store
        module._generate_new_cert_store = make_store

    # -- one ceremony ---------------------------------------------------------

    def run(self) -> list[Result]:
        self.install_clock()
        results = []
        for index, ceremony in enumerate(self.ceremonies):
            if not isinstance(ceremony, dict):
                raise FixtureError(f"ceremonies[{index}] is not an object")
            for member in ("name", "kind", "options", "response", "expect"):
                if member not in ceremony:
                    raise FixtureError(f"ceremonies[{index}].{member} is missing")
            results.append(self.run_one(ceremony))
        return results

    def run_one(self, ceremony: dict) -> Result:
        name = ceremony["name"]
        kind = ceremony["kind"]
        options = ceremony["options"] if isinstance(ceremony["options"], dict) else {}
        response = ceremony["response"]
        expect = ceremony["expect"]
        if not isinstance(expect, dict):
            raise FixtureError(f"ceremony {name}: expect is not an object")
        outcome = expect.get("outcome")
        if outcome not in ("accept", "reject"):
            raise FixtureError(f"ceremony {name}: expect.outcome is {outcome!r}")
        expected = "accept" if outcome == "accept" else f"reject({expect.get('error', '?')})"

        challenge = b64url_strict(options.get("challenge"))
        if challenge is None:
            raise FixtureError(f"ceremony {name}: options.challenge is not base64url")
        if ceremony.get("issue", True):
            self.outstanding.add(challenge)
        limits: list[Limit] = []
        if challenge not in self.outstanding:
            limits.append(Limit("lenient", "challenge",
                                "py_webauthn does not track issued challenges (single use is the caller's job)"))
        self.outstanding.discard(challenge)  # every verdict consumes the challenge
        self.note_issue_time(name, ceremony, limits)
        responds_as = self.response_kind(kind, response)
        if responds_as != kind:
            limits.append(Limit("lenient", "challenge",
                                f"harness: a {kind} challenge answered by a {responds_as} response; py_webauthn does "
                                "not know which ceremony a challenge was issued for (the caller's job)"))
        user = ceremony.get("user")
        if user is not None:
            user = b64url_strict(user)
            if user is None:
                raise FixtureError(f"ceremony {name}: user is not base64url")

        parsed = self.inspect_response(response, limits)
        if kind == "registration":
            verdict, error, new_record = self.registration(options, response, parsed, limits)
        elif kind == "authentication":
            verdict, error, new_record = self.authentication(options, response, parsed, limits, user)
        else:
            raise FixtureError(f"ceremony {name}: kind {kind!r}")

        result = classify(expected, outcome, expect.get("error"), verdict, error, limits)
        result.file, result.name, result.kind = str(self.path), name, kind

        # The fixture's verdict drives the state, so that a difference in one ceremony does
        # not change the setup of the ones after it.
        if outcome == "accept" and new_record is not None:
            key, record = new_record
            self.records[key] = record
        return result

    def note_issue_time(self, name: str, ceremony: dict, limits: list[Limit]) -> None:
        """issuedAt / receivedAt / challengeLifetime: expiry is the caller's job in py_webauthn."""
        issued = self._parse_time(ceremony.get("issuedAt"), f"ceremony {name}: issuedAt") or self.verification_time
        received = self._parse_time(ceremony.get("receivedAt"), f"ceremony {name}: receivedAt") or self.verification_time
        if issued is None or received is None:
            return  # both default to the wall clock: no difference
        elapsed = (received - issued).total_seconds()
        if elapsed < 0:
            limits.append(Limit("lenient", "challenge",
                                "harness: received before the challenge was issued; py_webauthn does not know "
                                "when a challenge was issued (the caller's job)"))
        elif elapsed > self.challenge_lifetime:
            limits.append(Limit("lenient", "challenge",
                                "harness: received after the challenge lifetime; py_webauthn does not track "
                                "challenge expiry (the caller's job)"))

    @staticmethod
    def response_kind(kind: str, response: Any) -> str:
        """The ceremony a response's JSON shape belongs to (kind when it is neither)."""
        inner = response.get("response") if isinstance(response, dict) else None
        if not isinstance(inner, dict):
            return kind
        if "attestationObject" not in inner and "signature" in inner and "authenticatorData" in inner:
            return "authentication"
        if "attestationObject" in inner and "signature" not in inner:
            return "registration"
        return kind

    def inspect_response(self, response: Any, limits: list[Limit]) -> dict:
        """Strictly decode what the harness needs; note what py_webauthn decodes leniently."""
        info: dict[str, Any] = {}
        if not isinstance(response, dict):
            return info
        inner = response.get("response")
        inner = inner if isinstance(inner, dict) else {}
        info["raw_id"] = b64url_strict(response.get("rawId"))
        fields = [("rawId", response.get("rawId"))] + [
            (k, inner.get(k)) for k in ("clientDataJSON", "attestationObject",
                                         "authenticatorData", "signature", "userHandle")]
        for label, value in fields:
            if isinstance(value, str) and b64url_strict(value) is None:
                limits.append(Limit("lenient", "malformed",
                                    f"py_webauthn's base64url decoder accepts {label} "
                                    "(it tolerates padding and drops characters outside the alphabet)"))
        cdj = b64url_strict(inner.get("clientDataJSON"))
        if cdj is not None:
            try:
                client_data = json.loads(cdj.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                client_data = None
            if isinstance(client_data, dict):
                info["client_data"] = client_data
                if client_data.get("crossOrigin") is True or "topOrigin" in client_data:
                    detail = f"crossOrigin={client_data.get('crossOrigin')!r}"
                    if "topOrigin" in client_data:
                        detail += f", topOrigin={client_data['topOrigin']!r}"
                    limits.append(Limit("unsupported", None,
                                        "py_webauthn does not check crossOrigin/topOrigin", detail=detail))
                token_binding = client_data.get("tokenBinding")
                if isinstance(token_binding, dict) and token_binding.get("status") not in ("present", "supported"):
                    limits.append(Limit("strict", None,
                                        "py_webauthn rejects a tokenBinding status other than present/supported "
                                        "(W3C L3 no longer verifies tokenBinding)", needles=("token_binding",)))
        info["user_handle_present"] = "userHandle" in inner and inner.get("userHandle") is not None
        info["user_handle"] = b64url_strict(inner.get("userHandle"))
        ao = b64url_strict(inner.get("attestationObject"))
        if ao is not None:
            try:
                obj, used = cbor_prefix(ao)
            except Exception:
                obj, used = None, 0
            if obj is not None and used < len(ao):
                limits.append(Limit("lenient", "malformed",
                                    "py_webauthn ignores bytes after the attestation object's CBOR map"))
            if isinstance(obj, dict):
                info["fmt"] = obj.get("fmt")
                info["att_stmt"] = obj.get("attStmt") if isinstance(obj.get("attStmt"), dict) else {}
                auth_data = obj.get("authData")
                if isinstance(auth_data, bytes):
                    info["auth_data"] = parse_auth_data(auth_data)
        ad = b64url_strict(inner.get("authenticatorData"))
        if ad is not None:
            info["auth_data"] = parse_auth_data(ad)
        return info

    def registration(self, options: dict, response: Any, info: dict, limits: list[Limit]):
        fmt = info.get("fmt")
        att_stmt: dict = info.get("att_stmt") or {}
        auth_data: Optional[AuthData] = info.get("auth_data")
        offered = [p.get("alg") for p in options.get("pubKeyCredParams") or [] if isinstance(p, dict)]
        if not offered:
            offered = [-7, -257]  # WebAuthn L3 §5.4.3: the client's default when the list is empty
        selection = options.get("authenticatorSelection")
        require_uv = isinstance(selection, dict) and selection.get("userVerification") == "required"

        alg, kty, crv = cose_alg(auth_data.cose_key if auth_data else None)
        if isinstance(fmt, str) and fmt in PY_MISSING_FORMATS:
            limits.append(Limit("unsupported", None, f"py_webauthn does not implement the {fmt!r} attestation format"))
        if alg is not None and alg in offered and not py_supports_key(alg, kty, crv):
            limits.append(Limit("unsupported", None, f"py_webauthn does not support {alg_label(alg, kty, crv)} credentials"))
        x5c = att_stmt.get("x5c") if isinstance(att_stmt.get("x5c"), list) else None
        stmt_alg = att_stmt.get("alg")
        if fmt in ("packed", "android-key") and x5c and isinstance(stmt_alg, int) \
                and stmt_alg in ALG_NAMES and stmt_alg not in PY_SIGNATURE_ALGS | {-8}:
            limits.append(Limit("unsupported", None,
                                f"py_webauthn cannot verify {ALG_NAMES[stmt_alg]} attestation signatures"))

        if auth_data and auth_data.credential_id is not None:
            if auth_data.credential_id in self.records:
                limits.append(Limit("lenient", "credentialExists",
                                    "py_webauthn does not look up existing credential ids (the caller's job)"))
            if info.get("raw_id") is not None and info["raw_id"] != auth_data.credential_id:
                limits.append(Limit("lenient", "malformed",
                                    "py_webauthn does not compare rawId with authData's credentialId"))
        if auth_data and auth_data.trailing:
            limits.append(Limit("lenient", "malformed", "harness: authData has trailing bytes"))

        # Trust: py_webauthn validates a path only when given roots, and then requires it.
        roots_by_fmt: dict = {}
        if self.anchor_pems:
            for known in AttestationFormat:
                if known.value in ALWAYS_ROOTED or self.require_trust:
                    roots_by_fmt[known] = list(self.anchor_pems)
        if self.require_trust and (fmt == "none" or (fmt == "packed" and not x5c)):
            limits.append(Limit("lenient", "trust",
                                "py_webauthn accepts none/self attestation; requiring a trusted path is the caller's job"))
        if not self.require_trust and fmt in ALWAYS_ROOTED:
            limits.append(Limit("strict", "trust",
                                f"py_webauthn always requires a path to a known root for {fmt} attestation",
                                needles=("Certificate chain could not be validated", "not a known root")))
        if fmt == "android-key" and x5c and isinstance(x5c[-1], bytes) and not is_self_issued(x5c[-1]):
            limits.append(Limit("strict", None,
                                "py_webauthn expects an android-key x5c to end with its root certificate",
                                needles=("not a known root", "Could not parse x5c root", "x5c was empty",
                                         "Certificate chain could not be validated")))
        if fmt == "tpm":
            limits.append(Limit("strict", None,
                                "py_webauthn accepts only the TPM manufacturer ids of its own table "
                                "(W3C L3 §8.3.1 asks for the SAN fields, not for a registry lookup)",
                                needles=("Unrecognized TPM Manufacturer",)))
        if fmt == "android-safetynet":
            limits.append(Limit("strict", None,
                                "py_webauthn requires the SafetyNet timestampMs within 10 s of the current "
                                "time (not of policy.verificationTime)", needles=("Payload",)))
        if x5c:
            limits.append(Limit("strict", None,
                                "py_webauthn (through the cryptography package) rejects attestation "
                                "certificates whose extensions are not strict DER",
                                needles=("error parsing asn1 value",)))
        if fmt == "packed" and x5c and isinstance(x5c[0], bytes):
            for problem in packed_leaf_problems(x5c[0], auth_data.aaguid if auth_data else None):
                limits.append(Limit("lenient", "attestation",
                                    "py_webauthn does not check the §8.2.1 packed leaf requirements",
                                    detail=problem))
        if fmt == "fido-u2f" and auth_data and auth_data.aaguid not in (None, bytes(16)):
            limits.append(Limit("strict", None,
                                "py_webauthn requires a zero AAGUID in fido-u2f registrations "
                                "(W3C L3 §8.6 does not)", needles=("AAGUID",)))
        if fmt == "fido-u2f" and alg is not None and (kty != 2 or crv != 1):
            limits.append(Limit("lenient", "attestation",
                                "py_webauthn does not check that a fido-u2f credential is a P-256 key"))

        new_record = None
        if auth_data and auth_data.credential_id is not None and auth_data.cose_key:
            new_record = (auth_data.credential_id, Record(
                public_key=auth_data.cose_key,
                sign_count=auth_data.sign_count,
                user_handle=b64url_strict(options["user"].get("id")) if isinstance(options.get("user"), dict) else None,
                backup_eligible=auth_data.be,
                backup_state=auth_data.bs,
            ))

        try:
            verify_registration_response(
                credential=response,
                expected_challenge=b64url_strict(options.get("challenge")) or b"",
                expected_rp_id=self.rp_id,
                expected_origin=self.origins,
                require_user_verification=require_uv,
                supported_pub_key_algs=offered,
                pem_root_certs_bytes_by_fmt=roots_by_fmt or None,
            )
            return "accept", "", new_record
        except Exception as exc:  # py_webauthn raises many types; every one is a rejection
            return "reject", describe_exception(exc), new_record

    def authentication(self, options: dict, response: Any, info: dict, limits: list[Limit],
                       user: Optional[bytes] = None):
        raw_id = info.get("raw_id")
        record = self.records.get(raw_id) if raw_id is not None else None
        auth_data: Optional[AuthData] = info.get("auth_data")
        if record is None:
            limits.append(Limit("unsupported", "unknownCredential",
                                "no credential record for this rawId; py_webauthn needs the caller to supply the "
                                "public key (credential lookup is the caller's job)"))
            return "-", "", None
        alg, kty, crv = cose_alg(record.public_key)
        if not py_supports_key(alg, kty, crv):
            limits.append(Limit("unsupported", None, f"py_webauthn does not support {alg_label(alg, kty, crv)} credentials"))

        allowed = options.get("allowCredentials") if isinstance(options.get("allowCredentials"), list) else []
        allowed_ids = {b64url_strict(c.get("id")) for c in allowed if isinstance(c, dict)}
        if allowed and raw_id not in allowed_ids:
            limits.append(Limit("lenient", "unknownCredential",
                                "py_webauthn does not check allowCredentials (the caller's job)"))
        if user is not None:
            # Username-first login (§7.2 step 6, first branch).
            if record.user_handle != user:
                limits.append(Limit("lenient", "unknownCredential",
                                    "py_webauthn does not check that the credential belongs to the identified user "
                                    "(the caller's job)"))
            elif info.get("user_handle") and info["user_handle"] != user:
                limits.append(Limit("lenient", "userHandle",
                                    "py_webauthn does not compare the user handle with the identified user "
                                    "(the caller's job)"))
        elif info.get("user_handle_present"):
            if info.get("user_handle") is not None and info["user_handle"] != record.user_handle:
                limits.append(Limit("lenient", "userHandle",
                                    "py_webauthn does not compare the user handle with the record (the caller's job)"))
        elif not allowed:
            limits.append(Limit("lenient", "userHandle",
                                "py_webauthn does not require a user handle in a discoverable login (the caller's job)"))
        if auth_data is not None:
            if auth_data.be != record.backup_eligible:
                limits.append(Limit("lenient", "backupFlags",
                                    "py_webauthn does not compare BE with the stored credential record"))
            regressed = (auth_data.sign_count > 0 or record.sign_count > 0) and \
                auth_data.sign_count <= record.sign_count
            if self.allow_regression and regressed:
                limits.append(Limit("unsupported", None,
                                    "py_webauthn has no option to accept a non-increasing signCount "
                                    "(policy.allowCounterRegression)"))
            if auth_data.trailing:
                limits.append(Limit("lenient", "malformed", "harness: authData has trailing bytes"))

        new_record = None
        if auth_data is not None:
            new_record = (raw_id, Record(
                public_key=record.public_key,
                sign_count=auth_data.sign_count,
                user_handle=record.user_handle,
                backup_eligible=record.backup_eligible,
                backup_state=auth_data.bs,
            ))
        try:
            verify_authentication_response(
                credential=response,
                expected_challenge=b64url_strict(options.get("challenge")) or b"",
                expected_rp_id=self.rp_id,
                expected_origin=self.origins,
                credential_public_key=record.public_key,
                credential_current_sign_count=record.sign_count,
                require_user_verification=options.get("userVerification") == "required",
            )
            return "accept", "", new_record
        except Exception as exc:
            return "reject", describe_exception(exc), new_record


def join_limits(limits: list[Limit]) -> tuple[str, str]:
    reasons: list[str] = []
    for l in limits:
        if l.text not in reasons:
            reasons.append(l.text)
    details = [l.detail for l in limits if l.detail]
    return "; ".join(reasons), "; ".join(details)


def classify(expected: str, outcome: str, error: Optional[str], verdict: str, py_error: str,
             limits: list[Limit]) -> Result:
    result = Result("", "", "", expected, verdict, py_error, "", "", py_category(py_error) if py_error else "")
    unsupported = [l for l in limits if l.kind == "unsupported"]
    if unsupported:
        result.result = "not comparable"
        result.reason, result.detail = join_limits(unsupported)
        return result
    fixture_accepts = outcome == "accept"
    py_accepts = verdict == "accept"
    own_rule = [l for l in limits if l.kind == "strict" and any(n in py_error for n in l.needles)]
    if not fixture_accepts and not py_accepts and own_rule:
        # Both reject, but py_webauthn stopped at a rule of its own before reaching the
        # check the fixture is about: that check was not compared.
        result.result = "not comparable"
        result.reason, result.detail = join_limits(own_rule)
        result.reason += ", and it rejected for that before the check the fixture is about"
        return result
    if fixture_accepts == py_accepts:
        result.result = "agree"
        if not fixture_accepts and error and result.py_category not in (error, "?"):
            result.reason = f"both reject, py_webauthn for another reason ({result.py_category})"
        return result
    if not fixture_accepts:
        explaining = [l for l in limits if l.kind == "lenient" and l.category in (error, None)]
    else:
        explaining = own_rule
    if explaining:
        result.result = "not comparable"
        result.reason, result.detail = join_limits(explaining)
    else:
        result.result = "disagree"
        other = [l.text for l in limits if l.kind == "lenient"]
        if other:
            result.reason = "noted but not matching the fixture's category: " + "; ".join(other)
    return result


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def fixture_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        else:
            files.append(path)
    return files


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def main(argv: list[str]) -> int:
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="fixture files or folders (default: the repository's Fixtures/)")
    parser.add_argument("--clock", choices=("fixture", "now"), default="fixture",
                        help="certificate validity time: the file's policy.verificationTime (default) or now")
    parser.add_argument("--verbose", action="store_true", help="print py_webauthn's error for every rejection")
    args = parser.parse_args(argv)
    paths = args.paths or [str(REPO_ROOT / "Fixtures")]

    results: list[Result] = []
    unusable: list[str] = []
    print(f"py_webauthn {getattr(webauthn, '__version__', '?')}, clock: {args.clock}")
    for path in fixture_files(paths):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            unusable.append(f"{path}: {exc}")
            continue
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            unusable.append(f"{path}: format is not {FORMAT!r}")
            continue
        try:
            file_results = Replayer(path, doc, args.clock).run()
        except FixtureError as exc:
            unusable.append(f"{path}: {exc}")
            continue
        results.extend(file_results)
        print(f"\n{path}")
        print(f"  {'ceremony':<44} {'fixture':<26} {'py_webauthn':<22} result")
        for r in file_results:
            py = r.py_verdict if r.py_verdict != "reject" else f"reject({r.py_category})"
            print(f"  {shorten(r.name, 44):<44} {shorten(r.expected, 26):<26} {shorten(py, 22):<22} {r.result}")
            if r.reason and (r.result != "agree" or args.verbose):
                print(f"      {r.reason}" + (f" ({r.detail})" if r.detail else ""))
            if args.verbose and r.py_error:
                print(f"      py_webauthn: {r.py_error}")

    agree = [r for r in results if r.result == "agree"]
    disagree = [r for r in results if r.result == "disagree"]
    not_comparable = [r for r in results if r.result == "not comparable"]
    print("\nSummary")
    print(f"  agree:          {len(agree)}")
    print(f"  disagree:       {len(disagree)}")
    print(f"  not comparable: {len(not_comparable)}")
    reasons: dict[str, int] = {}
    for r in not_comparable:
        reasons[r.reason] = reasons.get(r.reason, 0) + 1
    for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"    {count:4d}  {reason}")
    other_reason = [r for r in agree if r.reason]
    if other_reason:
        print(f"  agreements where py_webauthn rejected for another reason: {len(other_reason)}")
        for r in other_reason:
            print(f"    {r.file} {r.name}: fixture {r.expected}; py_webauthn: {r.py_error}")
    if disagree:
        print("\nDisagreements")
        for r in disagree:
            print(f"  {r.file} :: {r.name} ({r.kind})")
            print(f"    fixture:     {r.expected}")
            print(f"    py_webauthn: {r.py_verdict}" + (f" — {r.py_error}" if r.py_error else ""))
            if r.reason:
                print(f"    {r.reason}")
    if unusable:
        print("\nUnusable fixture files")
        for line in unusable:
            print(f"  {line}")
    print(f"\n{len(agree)} agree, {len(disagree)} disagree, {len(not_comparable)} not comparable")
    if disagree:
        return 1
    return 2 if unusable else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
