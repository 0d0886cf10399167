"""Our own re-implementation of the FIDO2 server conformance tool's server test groups, played
against `CONFORMANCE=1 … PasskeyServer` over HTTP (the FIDO2 Server Conformance Test API).

    python3 conformance.py setup DIR            # a test root, attestation certificates, PEM and statements
    python3 conformance.py run BASE_URL DIR [FILE]   # every case; exit 1 when one fails; FILE: the
                                                     # run recorded as a webauthn-ceremonies/1 file

`setup` writes DIR/anchors/root.pem (the test root), DIR/metadata/*.json (metadata statements
naming it: a packed authenticator by AAGUID, a fido-u2f one by key identifier, and packed ones
whose statements report a status or declare other attestation types) and DIR/keys.json.
The server is started with TRUST_ANCHORS_DIR=DIR/anchors METADATA_DIR=DIR/metadata.
A case that reproduces one of the conformance tool's server checks carries that check's ID (group,
then P-n for a positive case, F-n for a negative one; the IDs and what each checks are those of the
tool's server test scripts, as listed in the FIDO Alliance's conformance-test-tools-resources
repository, docs/FIDO2/Server); a case of ours the tool does not have has an ID starting `X-`.
Each case checks what its line says. Needs `cryptography` (PyPI)."""
import base64
import datetime
import hashlib
import json
import os
import struct
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import NameOID

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from softauth import b64url, b64url_decode, cbor, post_json  # noqa: E402

PACKED_AAGUID = bytes.fromhex("4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e")
PACKED_AAGUID_TEXT = "4e4e4e4e-4e4e-4e4e-4e4e-4e4e4e4e4e4e"
ZERO_AAGUID = bytes(16)
# The library's verdict categories a failed result's errorMessage starts with.
CATEGORIES = {"malformed", "type", "challenge", "origin", "rpIdHash", "userPresence", "userVerification",
              "algorithm", "attestation", "trust", "metadata", "signature", "signCount", "unknownCredential",
              "userHandle", "extension", "backupFlags", "topOrigin"}
# Packed authenticators whose metadata statements carry a status or declare other attestation types.
METADATA_AUTHENTICATORS = {
    "certified": (bytes.fromhex("54" * 16), {"statusReports": [
        {"status": "FIDO_CERTIFIED_L1", "effectiveDate": "2020-01-01"}]}),
    "revoked": (bytes.fromhex("52" * 16), {"statusReports": [
        {"status": "FIDO_CERTIFIED_L1", "effectiveDate": "2020-01-01"},
        {"status": "REVOKED", "effectiveDate": "2021-01-01"}]}),
    "uvbypass": (bytes.fromhex("55" * 16), {"statusReports": [
        {"status": "USER_VERIFICATION_BYPASS", "effectiveDate": "2021-01-01"}]}),
    "selfonly": (bytes.fromhex("53" * 16), {"attestationTypes": ["basic_surrogate"]}),
}


def _uuid(aaguid):
    h = aaguid.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

RP_ID = "localhost"


def _name(cn, ou="Authenticator Attestation"):
    return x509.Name([
        x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "PasskeyServer conformance harness"),
        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou),
        x509.NameAttribute(NameOID.COMMON_NAME, cn),
    ])


def _cert(subject, key, issuer, issuer_key, ca, aaguid=None):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    if aaguid is not None:
        # id-fido-gen-ce-aaguid: an OCTET STRING of the AAGUID (L3 §8.2.1).
        builder = builder.add_extension(
            x509.UnrecognizedExtension(x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4"), b"\x04\x10" + aaguid),
            critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


def setup(directory):
    os.makedirs(directory + "/anchors", exist_ok=True)
    os.makedirs(directory + "/metadata", exist_ok=True)
    root_key = ec.generate_private_key(ec.SECP256R1())
    root = _cert(_name("Harness Root", "Root"), root_key, _name("Harness Root", "Root"), root_key, ca=True)
    packed_key = ec.generate_private_key(ec.SECP256R1())
    packed = _cert(_name("Harness Packed"), packed_key, root.subject, root_key, ca=False, aaguid=PACKED_AAGUID)
    u2f_key = ec.generate_private_key(ec.SECP256R1())
    u2f = _cert(_name("Harness U2F"), u2f_key, root.subject, root_key, ca=False)
    # A second root no statement names: chains under it must be refused.
    rogue_key = ec.generate_private_key(ec.SECP256R1())
    rogue = _cert(_name("Rogue Root", "Root"), rogue_key, _name("Rogue Root", "Root"), rogue_key, ca=True)
    rogue_leaf_key = ec.generate_private_key(ec.SECP256R1())
    rogue_leaf = _cert(_name("Rogue Packed"), rogue_leaf_key, rogue.subject, rogue_key, ca=False, aaguid=PACKED_AAGUID)
    with open(directory + "/anchors/root.pem", "wb") as f:
        f.write(root.public_bytes(serialization.Encoding.PEM))
    root_b64 = base64.b64encode(_der(root)).decode()
    common = {"schema": 3, "protocolFamily": "fido2", "authenticatorVersion": 1, "upv": [{"major": 1, "minor": 0}],
              "attestationRootCertificates": [root_b64]}
    with open(directory + "/metadata/packed.json", "w") as f:
        json.dump({**common, "aaguid": PACKED_AAGUID_TEXT, "description": "Harness packed authenticator",
                   "attestationTypes": ["basic_full", "basic_surrogate"]}, f)
    u2f_ski = u2f.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest.hex()
    with open(directory + "/metadata/u2f.json", "w") as f:
        json.dump({**common, "protocolFamily": "u2f", "attestationCertificateKeyIdentifiers": [u2f_ski],
                   "description": "Harness fido-u2f authenticator", "attestationTypes": ["basic_full"]}, f)
    # Metadata cases: one packed authenticator per statement, each with its own AAGUID.
    extra = {}
    for name, (aaguid, fields) in METADATA_AUTHENTICATORS.items():
        key = ec.generate_private_key(ec.SECP256R1())
        extra[name] = (key, _cert(_name("Harness " + name), key, root.subject, root_key, ca=False, aaguid=aaguid))
        with open(f"{directory}/metadata/{name}.json", "w") as f:
            json.dump({**common, "aaguid": _uuid(aaguid), "description": "Harness " + name,
                       "attestationTypes": ["basic_full"], **fields}, f)
    keys = {}
    for name, (key, cert) in extra.items():
        keys[name] = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()).decode()
        keys[name + "_cert"] = base64.b64encode(_der(cert)).decode()
    for name, key in (("packed", packed_key), ("u2f", u2f_key), ("rogue_leaf", rogue_leaf_key)):
        keys[name] = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()).decode()
    for name, cert in (("packed", packed), ("u2f", u2f), ("rogue_leaf", rogue_leaf), ("root", root), ("rogue", rogue)):
        keys[name + "_cert"] = base64.b64encode(_der(cert)).decode()
    with open(directory + "/keys.json", "w") as f:
        json.dump(keys, f)


class Material:
    def __init__(self, directory):
        with open(directory + "/keys.json") as f:
            data = json.load(f)
        named = ("packed", "u2f", "rogue_leaf", *METADATA_AUTHENTICATORS)
        self.keys = {n: serialization.load_pem_private_key(data[n].encode(), None) for n in named}
        self.certs = {n: base64.b64decode(data[n + "_cert"]) for n in (*named, "root", "rogue")}


def cose_ec2(key):
    numbers = key.public_key().public_numbers()
    return {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}


def cose_rsa(key, alg):
    numbers = key.public_key().public_numbers()
    return {1: 3, 3: alg, -1: numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big"), -2: numbers.e.to_bytes(3, "big")}


def sign(key, data, alg=-7):
    """An EC key signs ES256 whatever `alg` claims (a mislabeled statement); RSA by `alg`."""
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return key.sign(data, ec.ECDSA(hashes.SHA256()))
    return key.sign(data, padding.PKCS1v15(), hashes.SHA1() if alg == -65535 else hashes.SHA256())


class Authenticator:
    """One credential, made the way a conformance tool's virtual authenticator makes it."""

    def __init__(self, alg=-7, aaguid=ZERO_AAGUID):
        self.alg = alg
        self.key = ec.generate_private_key(ec.SECP256R1()) if alg == -7 else rsa.generate_private_key(65537, 2048)
        self.cred_id = os.urandom(32)
        self.aaguid = aaguid
        self.count = 0

    def cose(self):
        return cose_ec2(self.key) if self.alg == -7 else cose_rsa(self.key, self.alg)


def client_data(kind, challenge, origin, edit=None, **extra):
    data = {"type": kind, "challenge": challenge, "origin": origin, **extra}
    if edit is not None:
        edit(data)
    return json.dumps(data).encode()


def auth_data(rp_id, flags, count, attested=None):
    data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count)
    if attested is not None:
        aaguid, cred_id, cose = attested
        data += aaguid + struct.pack(">H", len(cred_id)) + cred_id + cbor(cose)
    return data


class Harness:
    def __init__(self, base, material):
        self.base = base.rstrip("/")
        self.origin = os.environ.get("ORIGIN", self.base.replace("127.0.0.1", "localhost"))
        self.m = material
        self.results = []
        self.users = {}
        # Recording (webauthn-ceremonies/1): the last options of each kind, results not yet judged, ceremonies.
        self.issued = {}
        self.pending = []
        self.ceremonies = []
        self.user_handles = {}

    def post(self, path, body, cookies=None, record=True):
        status, answer, jar = post_json(self.base + path, body, cookies=cookies)
        if path.endswith("/options") and isinstance(answer, dict) and answer.get("status") == "ok":
            options = {k: v for k, v in answer.items() if k not in ("status", "errorMessage")}
            self.issued[path.split("/")[1]] = (options, dict(cookies or {}, **jar))
        elif path.endswith("/result") and record and isinstance(body, dict):
            kind = path.split("/")[1]
            options, jar_then = self.issued.get(kind, (None, None))
            # Only a result answered within its ceremony (its cookie) is a ceremony a replay can repeat.
            if options is not None and cookies and cookies == {k: v for k, v in jar_then.items() if k in cookies}:
                self.pending.append((kind, options, body, status, answer))
        return status, answer, jar

    def case(self, case_id, title, passed, detail=""):
        self.results.append((case_id, title, passed))
        # The results this case posted, with the verdict the server gave (the case checked it).
        for index, (kind, options, body, status, answer) in enumerate(self.pending if passed else []):
            ceremony = {"name": f"{case_id} #{index + 1}",
                        "kind": "registration" if kind == "attestation" else "authentication",
                        "options": options, "response": body}
            # A login is username-first: the user the options were for is the one whose credentials they allow.
            allowed = [c.get("id") for c in options.get("allowCredentials") or [] if isinstance(c, dict)]
            if kind == "assertion" and allowed and allowed[0] in self.user_handles:
                ceremony["user"] = self.user_handles[allowed[0]]
            if self.ok(status, answer):
                ceremony["expect"] = {"outcome": "accept"}
            else:
                category = str(answer.get("errorMessage", "")).split(":", 1)[0] if isinstance(answer, dict) else ""
                if category not in CATEGORIES:
                    continue
                ceremony["expect"] = {"outcome": "reject", "error": category}
            if kind == "attestation" and self.ok(status, answer):
                self.user_handles[body.get("id")] = options["user"]["id"]
            self.ceremonies.append(ceremony)
        self.pending = []
        print(f"{'PASS' if passed else 'FAIL'} {case_id}: {title}" + ("" if passed else f" ({detail})"), flush=True)

    @staticmethod
    def ok(status, body):
        return status == 200 and isinstance(body, dict) and body.get("status") == "ok" and body.get("errorMessage") == ""

    @staticmethod
    def failed(status, body, why=None):
        """A failed ServerResponse; with `why`, its errorMessage names that verdict category."""
        return (status == 400 and isinstance(body, dict) and body.get("status") == "failed"
                and isinstance(body.get("errorMessage"), str) and body["errorMessage"] != ""
                and (why is None or body["errorMessage"].startswith(why + ":")))

    def new_user(self):
        return "user-" + b64url(os.urandom(9))

    # --- registration ---

    def attestation_options(self, username, **extra):
        body = {"username": username, "displayName": "Display " + username, **extra}
        return self.post("/attestation/options", body)

    def make_credential(self, auth, options, fmt="none", flags=0x45, rp_id=RP_ID, kind="webauthn.create",
                        challenge=None, origin=None, cd_extra=None, statement=None, raw_id=None, cose=None,
                        u2f_key="u2f", u2f_cert="u2f", packed_key="packed", cd_edit=None, ad_edit=None,
                        obj_edit=None):
        """The ServerPublicKeyCredential the tool would post for `options`; `cd_edit`, `ad_edit` and
        `obj_edit` change the client data (a dict), the authenticator data (bytes, before signing) and
        the attestation object (a dict) the way a negative case needs."""
        cdj = client_data(kind, challenge or options["challenge"], origin or self.origin, cd_edit, **(cd_extra or {}))
        ad = auth_data(rp_id, flags, auth.count, (auth.aaguid, auth.cred_id, cose or auth.cose()))
        if ad_edit is not None:
            ad = ad_edit(ad)
        cdh = hashlib.sha256(cdj).digest()
        if statement is not None:
            att_stmt = statement(ad, cdh)
        elif fmt == "none":
            att_stmt = {}
        elif fmt == "packed-self":
            fmt, att_stmt = "packed", {"alg": auth.alg, "sig": sign(auth.key, ad + cdh, auth.alg)}
        elif fmt == "packed":
            att_stmt = {"alg": -7, "sig": sign(self.m.keys[packed_key], ad + cdh), "x5c": [self.m.certs[packed_key]]}
        elif fmt == "fido-u2f":
            att_stmt = self.u2f_statement(auth, cdh, u2f_key, u2f_cert)
        else:
            raise ValueError(fmt)
        obj = {"fmt": fmt, "attStmt": att_stmt, "authData": ad}
        if obj_edit is not None:
            obj_edit(obj)
        obj = cbor(obj)
        cid = b64url(auth.cred_id)
        return {"id": cid, "rawId": raw_id or cid, "type": "public-key",
                "response": {"clientDataJSON": b64url(cdj), "attestationObject": b64url(obj)},
                "getClientExtensionResults": {}}

    def u2f_statement(self, auth, cdh, key, cert):
        numbers = auth.key.public_key().public_numbers()
        point = b"\x04" + numbers.x.to_bytes(32, "big") + numbers.y.to_bytes(32, "big")
        base = b"\x00" + hashlib.sha256(RP_ID.encode()).digest() + cdh + auth.cred_id + point
        return {"sig": sign(self.m.keys[key], base), "x5c": [self.m.certs[cert]]}

    def register(self, auth=None, fmt="none", username=None, **make):
        """options then result; (status, body of the result, username, authenticator)."""
        auth = auth or Authenticator()
        username = username or self.new_user()
        status, options, jar = self.attestation_options(username)
        if not self.ok(status, options):
            return status, options, username, auth
        credential = self.make_credential(auth, options, fmt=fmt, **make)
        status, body, _ = self.post("/attestation/result", credential, cookies=jar)
        return status, body, username, auth

    # --- authentication ---

    def assertion_options(self, username, **extra):
        return self.post("/assertion/options", {"username": username, **extra})

    def get_assertion(self, auth, options, flags=0x05, rp_id=RP_ID, kind="webauthn.get", challenge=None,
                      origin=None, cd_extra=None, user_handle=None, count=None, corrupt=False, cred_id=None,
                      cd_edit=None, ad_suffix=b"", signed_client_data=None):
        """`ad_suffix`: bytes left over after the authenticator data; `signed_client_data`: the client
        data the signature covers when it is not the one sent."""
        auth.count = auth.count + 1 if count is None else count
        cdj = client_data(kind, challenge or options["challenge"], origin or self.origin, cd_edit, **(cd_extra or {}))
        ad = auth_data(rp_id, flags, auth.count) + ad_suffix
        sig = sign(auth.key, ad + hashlib.sha256(signed_client_data or cdj).digest(), auth.alg)
        if corrupt:
            sig = sig[:-1] + bytes([sig[-1] ^ 1])
        cid = b64url(cred_id or auth.cred_id)
        response = {"authenticatorData": b64url(ad), "signature": b64url(sig), "clientDataJSON": b64url(cdj),
                    "userHandle": user_handle if user_handle is not None else ""}
        return {"id": cid, "rawId": cid, "type": "public-key", "response": response, "getClientExtensionResults": {}}

    def login(self, username, auth, options_extra=None, **make):
        status, options, jar = self.assertion_options(username, **(options_extra or {}))
        if not self.ok(status, options):
            return status, options
        status, body, _ = self.post("/assertion/result", self.get_assertion(auth, options, **make), cookies=jar)
        return status, body

    # --- the groups ---
    # A case's ID is the conformance tool's own when the case reproduces one of that tool's checks:
    # its group, then P-n (must succeed) or F-n (must fail); a tool P-1 made of lettered checks is
    # split, the letter (or the member it compares) in parentheses. An ID starting `X-` is a case of
    # ours the tool does not have.

    def creation_options(self):
        group = "Server-ServerPublicKeyCredentialCreationOptions-Req-1"
        ours = "X-CreationOptions"
        selection = {"residentKey": "discouraged", "requireResidentKey": False,
                     "authenticatorAttachment": "cross-platform", "userVerification": "preferred"}
        username = self.new_user()
        status, body, _ = self.attestation_options(username, authenticatorSelection=selection, attestation="direct")
        good = self.ok(status, body)
        self.case(f"{group} P-1 (a,b)", "options: status ok, errorMessage empty", good, f"{status} {body}")
        if not good:
            return
        challenge = b64url_decode(body.get("challenge", ""))
        user = body.get("user", {})
        algs = [p.get("alg") for p in body.get("pubKeyCredParams", []) if p.get("type") == "public-key"]
        self.case(f"{group} P-1 (c)", "user: name and displayName as requested, id base64url of 1 to 64 bytes",
                  user.get("name") == username and user.get("displayName") == "Display " + username
                  and 1 <= len(b64url_decode(user.get("id", ""))) <= 64, str(user))
        self.case(f"{group} P-1 (d)", "rp: name present, id the RP ID",
                  body.get("rp", {}).get("id") == RP_ID and bool(body.get("rp", {}).get("name")), str(body.get("rp")))
        self.case(f"{group} P-1 (e)", "challenge base64url, at least 16 bytes", len(challenge) >= 16)
        self.case(f"{group} P-1 (f)", "pubKeyCredParams: public-key entries for ES256, RS256 and RS1 (-65535)",
                  all(a in algs for a in (-7, -257, -65535)), str(algs))
        self.case(f"{group} P-1 (g)", "timeout a positive number (ours too: excludeCredentials an array)",
                  isinstance(body.get("timeout"), (int, float)) and body["timeout"] > 0
                  and isinstance(body.get("excludeCredentials"), list))
        self.case(f"{group} P-1 (authenticatorSelection)", "authenticatorSelection equal to the one requested",
                  body.get("authenticatorSelection") == selection, str(body.get("authenticatorSelection")))
        self.case(f"{group} P-1 (attestation)", "attestation as requested (direct)", body.get("attestation") == "direct",
                  str(body.get("attestation")))
        extensions = {"example.extension": True, "credProps": True}
        status, body2, _ = self.attestation_options(self.new_user(), extensions=extensions)
        self.case(f"{group} P-1 (h)", "extensions as requested, example.extension (unknown) included",
                  self.ok(status, body2) and body2.get("extensions") == extensions, str(body2))
        self.case(f"{group} P-3", "two options calls, two different challenges",
                  self.ok(status, body2) and body2.get("challenge") != body.get("challenge"))
        status, body3, _ = self.attestation_options(self.new_user(), attestation="none")
        self.case(f"{group} P-2", "attestation none requested: attestation none",
                  self.ok(status, body3) and body3.get("attestation") == "none", str(body3))
        status, body3, _ = self.attestation_options(self.new_user())
        self.case(f"{ours}-1", "no attestation requested: attestation none",
                  self.ok(status, body3) and body3.get("attestation") == "none", str(body3))
        status, body5, _ = self.post("/attestation/options", {"displayName": "no name"})
        self.case(f"{ours}-2", "no username: failed", self.failed(status, body5), f"{status} {body5}")
        status, body6, _ = self.post("/attestation/options", b"{not json")
        self.case(f"{ours}-3", "a body that is not JSON: failed", self.failed(status, body6), f"{status} {body6}")
        status, body7, _ = self.post("/attestation/options", {"username": 5})
        self.case(f"{ours}-4", "username not a string: failed", self.failed(status, body7), f"{status} {body7}")
        status, body8, _ = self.attestation_options(self.new_user(), authenticatorSelection="required")
        self.case(f"{ours}-5", "authenticatorSelection not an object: failed", self.failed(status, body8),
                  f"{status} {body8}")

    def attestation_responses(self):
        g = "Server-ServerAuthenticatorAttestationResponse"
        ours = "X-AttestationResponse"

        def expect(case_id, title, want_ok, why=None, **kwargs):
            status, body, _, _ = self.register(**kwargs)
            self.case(case_id, title, self.ok(status, body) if want_ok else self.failed(status, body, why),
                      f"{status} {body}")

        # A registered user's credential comes back in excludeCredentials.
        status, result, name, auth = self.register(auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed")
        status2, again, _ = self.attestation_options(name)
        excluded = again.get("excludeCredentials") if isinstance(again, dict) else None
        self.case(f"{g}-Resp-1 P-1", "packed registration, then options for the same user: excludeCredentials "
                  "a non-empty array of public-key descriptors holding the credential",
                  self.ok(status, result) and self.ok(status2, again) and isinstance(excluded, list) and bool(excluded)
                  and all(isinstance(c, dict) and c.get("type") == "public-key" and isinstance(c.get("id"), str)
                          for c in excluded)
                  and b64url(auth.cred_id) in [c.get("id") for c in excluded], f"{result} {again}")
        self._structure(g, ours)
        expect(f"{ours}-1", "getClientExtensionResults instead of clientExtensionResults: ok", True)
        expect(f"{ours}-2", "rawId that differs from id: failed", False, why="malformed", raw_id=b64url(os.urandom(32)))
        self._no_session(f"{ours}-3")
        self._replay(f"{ours}-4")
        self._client_data(f"{g}-Resp-2", "webauthn.get",
                          lambda edit: self.register(cd_edit=edit)[:2])
        expect(f"{ours}-6", "clientData tokenBinding status supported: ok", True,
               cd_extra={"tokenBinding": {"status": "supported"}})
        expect(f"{ours}-7", "rpIdHash of another RP ID: failed", False, why="rpIdHash", rp_id="evil.example")
        expect(f"{ours}-8", "UP flag clear: failed", False, why="userPresence", flags=0x44)
        self._attestation_object(f"{g}-Resp-3")
        expect(f"{g}-Resp-4 P-5", "packed self attestation, RS256: ok", True, auth=Authenticator(-257), fmt="packed-self")
        expect(f"{g}-Resp-4 P-8", "packed self attestation, RS1 (-65535): ok", True,
               auth=Authenticator(-65535), fmt="packed-self")
        expect(f"{g}-Resp-4 P-9", "packed self attestation, ES256: ok", True, fmt="packed-self")
        expect(f"{ours}-9", "an algorithm not offered (credential key alg -999): failed", False, why="algorithm",
               cose={1: 2, 3: -999, -1: 1, -2: bytes(32), -3: bytes(32)})
        full = {"auth": Authenticator(aaguid=PACKED_AAGUID), "fmt": "packed"}
        expect(f"{g}-Resp-5 P-1", "packed full attestation under the metadata root: ok", True, **full)

        def packed(sig=None, x5c=None, key="packed"):
            """A packed full statement: signed by `key` unless `sig`, the packed certificate unless `x5c`."""
            def statement(ad, cdh):
                return {"alg": -7, "sig": sig if sig is not None else sign(self.m.keys[key], ad + cdh),
                        "x5c": x5c if x5c is not None else [self.m.certs["packed"]]}
            return statement

        bad_sig = b"\x30\x06\x02\x01\x01\x02\x01\x01"
        expect(f"{g}-Resp-5 F-2", "packed full attestation, a signature that does not verify: failed", False,
               why="attestation", auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed", statement=packed(sig=bad_sig))
        expect(f"{g}-Resp-5 F-3", "packed full attestation without x5c (signed by the batch key): failed", False,
               why="attestation", auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed",
               statement=lambda ad, cdh: {"alg": -7, "sig": sign(self.m.keys["packed"], ad + cdh)})
        expect(f"{g}-Resp-5 F-4", "packed full attestation, x5c not an array: failed", False, why="attestation",
               auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed", statement=packed(x5c=self.m.certs["packed"]))
        expect(f"{g}-Resp-5 F-5", "packed full attestation, x5c an empty array: failed", False, why="attestation",
               auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed", statement=packed(x5c=[]))
        expect(f"{g}-Resp-5 F-9", "packed full attestation whose chain reaches no metadata root: failed", False,
               why="trust", auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed",
               statement=lambda ad, cdh: {"alg": -7, "sig": sign(self.m.keys["rogue_leaf"], ad + cdh),
                                          "x5c": [self.m.certs["rogue_leaf"]]})
        expect(f"{g}-Resp-5 F-10", "packed full attestation whose x5c carries its root: failed", False, why="trust",
               auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed",
               statement=packed(x5c=[self.m.certs["packed"], self.m.certs["root"]]))
        expect(f"{g}-Resp-5 F-13", "packed full attestation signed by a key not the leaf certificate's: failed", False,
               why="attestation", auth=Authenticator(aaguid=PACKED_AAGUID), fmt="packed", statement=packed(key="u2f"))
        cred = Authenticator(aaguid=PACKED_AAGUID)
        expect(f"{g}-Resp-5 F-14", "packed full attestation signed by the credential key, not the batch key: failed",
               False, why="attestation", auth=cred, fmt="packed",
               statement=lambda ad, cdh: {"alg": -7, "sig": sign(cred.key, ad + cdh), "x5c": [self.m.certs["packed"]]})
        expect(f"{ours}-10", "packed full attestation, AAGUID not the certificate's: failed", False, why="attestation",
               auth=Authenticator(aaguid=bytes.fromhex("11" * 16)), fmt="packed")
        expect(f"{g}-Resp-6 P-1", "packed self attestation, ES256: ok", True, fmt="packed-self")
        expect(f"{g}-Resp-6 F-1", "packed self attestation, a signature that does not verify: failed", False,
               why="attestation", fmt="packed", statement=lambda ad, cdh: {"alg": -7, "sig": bad_sig})
        self._unknown_format(f"{g}-Resp-6 F-3")
        expect(f"{ours}-11", "packed self statement alg not the credential's (-257 for an EC key): failed", False,
               why="attestation", fmt="packed-self", auth=_MislabeledAlg())
        expect(f"{g}-Resp-7 P-1", "none attestation, ES256: ok", True, fmt="none")
        expect(f"{g}-Resp-7 F-1", "fmt none carrying a packed full statement: failed", False, why="attestation",
               auth=Authenticator(aaguid=PACKED_AAGUID), fmt="none", statement=packed())
        expect(f"{g}-Resp-8 P-1", "fido-u2f under the metadata root: ok", True, fmt="fido-u2f")
        expect(f"{g}-Resp-8 F-1", "fido-u2f with a non-zero AAGUID: failed", False, why="attestation",
               auth=Authenticator(aaguid=PACKED_AAGUID), fmt="fido-u2f")
        expect(f"{g}-Resp-8 F-2", "fido-u2f signed by a key not the certificate's: failed", False, why="attestation",
               fmt="fido-u2f", u2f_key="packed")
        expect(f"{ours}-12", "fido-u2f with an RSA credential key: failed", False, why="attestation",
               auth=Authenticator(-257), fmt="fido-u2f",
               statement=lambda ad, cdh: {"sig": b"\x00", "x5c": [self.m.certs["u2f"]]})
        expect(f"{ours}-13", "fido-u2f under a root no statement names: failed", False, why="trust",
               fmt="fido-u2f", u2f_key="rogue_leaf", u2f_cert="rogue_leaf")

    def metadata(self):
        """Registrations judged by what the metadata statements say of the authenticator (ours: the
        tool's metadata group works on a signed BLOB)."""
        g = "X-MDS"

        def expect(case_id, title, want_ok, name, why=None):
            status, body, _, _ = self.register(
                auth=Authenticator(aaguid=METADATA_AUTHENTICATORS[name][0]), fmt="packed", packed_key=name)
            self.case(case_id, title, self.ok(status, body) if want_ok else self.failed(status, body, why),
                      f"{status} {body}")

        expect(f"{g}-1", "packed full, statement FIDO_CERTIFIED_L1: ok", True, "certified")
        expect(f"{g}-2", "packed full, statement REVOKED after its certification: failed", False, "revoked",
               why="metadata")
        expect(f"{g}-3", "packed full, statement USER_VERIFICATION_BYPASS: failed", False, "uvbypass",
               why="metadata")
        expect(f"{g}-4", "packed full (basic), statement declares basic_surrogate only: failed", False,
               "selfonly", why="metadata")
        status, body, _, _ = self.register(auth=Authenticator(aaguid=METADATA_AUTHENTICATORS["selfonly"][0]),
                                           fmt="packed-self")
        self.case(f"{g}-5", "packed self (basic_surrogate), statement declares basic_surrogate: ok",
                  self.ok(status, body), f"{status} {body}")
        status, body, _, _ = self.register(auth=Authenticator(aaguid=METADATA_AUTHENTICATORS["revoked"][0]),
                                           fmt="packed-self")
        self.case(f"{g}-6", "packed self, statement REVOKED (and no basic_surrogate): failed",
                  self.failed(status, body, "metadata"), f"{status} {body}")

    @staticmethod
    def _drop(*path):
        def change(c):
            for part in path[:-1]:
                c = c[part]
            c.pop(path[-1])
        return change

    @staticmethod
    def _put(path, value):
        def change(c):
            for part in path[:-1]:
                c = c[part]
            c[path[-1]] = value
        return change

    def _structure(self, g, ours):
        """The credential's own structure: members missing or of the wrong kind."""
        drop, put = self._drop, self._put
        r1 = f"{g}-Resp-1"
        cases = [
            (f"{r1} F-1", "no id", drop("id")),
            (f"{r1} F-2", "id not a string", put(["id"], 5)),
            (f"{r1} F-3", "id not base64url", put(["id"], "*")),
            (f"{r1} F-4", "no type", drop("type")),
            (f"{r1} F-5", "type not a string", put(["type"], 5)),
            (f"{r1} F-6", "type not public-key", put(["type"], "private-key")),
            (f"{r1} F-7", "no response", drop("response")),
            (f"{r1} F-8", "response not an object", put(["response"], "response")),
            (f"{r1} F-9", "response without clientDataJSON", drop("response", "clientDataJSON")),
            (f"{r1} F-10", "clientDataJSON not a string", put(["response", "clientDataJSON"], 5)),
            (f"{r1} F-11", "clientDataJSON empty", put(["response", "clientDataJSON"], "")),
            (f"{r1} F-12", "response without attestationObject", drop("response", "attestationObject")),
            (f"{r1} F-13", "attestationObject not a string", put(["response", "attestationObject"], 5)),
            (f"{r1} F-14", "attestationObject empty", put(["response", "attestationObject"], "")),
            (f"{ours}-5", "clientDataJSON not base64url", put(["response", "clientDataJSON"], "*not base64url*")),
            (f"{g}-Resp-3 F-1", "attestationObject not CBOR", put(["response", "attestationObject"], b64url(b"\xff\x00"))),
        ]
        for case_id, title, change in cases:
            auth = Authenticator()
            status, options, jar = self.attestation_options(self.new_user())
            credential = self.make_credential(auth, options)
            change(credential)
            status, body, _ = self.post("/attestation/result", credential, cookies=jar)
            self.case(case_id, title + ": failed", self.failed(status, body, "malformed"), f"{status} {body}")

    def _client_data(self, r2, other_type, send):
        """The tool's CollectClientData group (Resp-2, for registrations and authentications alike):
        `send(edit)` posts a result whose client data `edit` changed, and answers (status, body)."""
        drop, put = self._drop, self._put
        cases = [
            ("F-1", "clientData without type", drop("type"), "malformed"),
            ("F-2", "clientData type not a string", put(["type"], 5), "malformed"),
            ("F-3", "clientData type empty", put(["type"], ""), "type"),
            ("F-4", "clientData type another string", put(["type"], "example.type"), "type"),
            ("F-5", f"clientData type {other_type}", put(["type"], other_type), "type"),
            ("F-6", "clientData without challenge", drop("challenge"), "malformed"),
            ("F-7", "clientData challenge not a string", put(["challenge"], 5), "malformed"),
            ("F-8", "clientData challenge empty", put(["challenge"], ""), "challenge"),
            ("F-9", "clientData challenge not base64url", put(["challenge"], "*not base64url*"), "challenge"),
            ("F-10", "clientData challenge not the one issued", put(["challenge"], b64url(os.urandom(32))), "challenge"),
            ("F-11", "clientData without origin", drop("origin"), "malformed"),
            ("F-12", "clientData origin not a string", put(["origin"], 5), "malformed"),
            ("F-13", "clientData origin empty", put(["origin"], ""), "origin"),
            ("F-14", "clientData origin not the RP's", put(["origin"], "https://evil.example"), "origin"),
            ("F-15", "clientData tokenBinding not an object", put(["tokenBinding"], "present"), "malformed"),
            ("F-16", "clientData tokenBinding without status", put(["tokenBinding"], {}), "malformed"),
            ("F-17", "clientData tokenBinding status unknown", put(["tokenBinding"], {"status": "unknown"}), "malformed"),
        ]
        for number, title, edit, why in cases:
            status, body = send(edit)
            self.case(f"{r2} {number}", title + ": failed", self.failed(status, body, why), f"{status} {body}")

    def _attestation_object(self, r3):
        """The tool's AttestationObject group (Resp-3): its members, authData and a packed statement."""
        drop, put = self._drop, self._put
        cases = [
            ("F-2", "attestationObject without fmt", {"obj_edit": drop("fmt")}, "malformed"),
            ("F-3", "fmt not a string", {"obj_edit": put(["fmt"], 5)}, "malformed"),
            ("F-4", "attestationObject without attStmt", {"obj_edit": drop("attStmt")}, "malformed"),
            ("F-5", "attStmt not a map", {"obj_edit": put(["attStmt"], [])}, "malformed"),
            ("F-6", "attestationObject without authData", {"obj_edit": drop("authData")}, "malformed"),
            ("F-7", "authData not a byte string", {"obj_edit": put(["authData"], "authData")}, "malformed"),
            ("F-8", "authData empty", {"obj_edit": put(["authData"], b"")}, "malformed"),
            ("F-9", "AT flag clear with attested credential data", {"flags": 0x05}, "malformed"),
            ("F-10", "AT flag clear, no attested credential data", {"ad_edit": lambda ad: ad[:32] + b"\x05" + ad[33:37]},
             "malformed"),
            ("F-11", "AT flag set, no attested credential data", {"ad_edit": lambda ad: ad[:37]}, "malformed"),
            ("F-12", "bytes left over after the attested credential data", {"ad_edit": lambda ad: ad + b"\x00\x01"},
             "malformed"),
        ]
        for number, title, make, why in cases:
            status, body, _, _ = self.register(**make)
            self.case(f"{r3} {number}", title + ": failed", self.failed(status, body, why), f"{status} {body}")
        # A packed self statement made wrong one member at a time.
        statements = [
            ("F-13", "packed attStmt an empty map", lambda key, data: {}),
            ("F-14", "packed attStmt without alg", lambda key, data: {"sig": sign(key, data)}),
            ("F-15", "packed attStmt alg not a number", lambda key, data: {"alg": "ES256", "sig": sign(key, data)}),
            ("F-17", "packed attStmt without sig", lambda key, data: {"alg": -7}),
            ("F-18", "packed attStmt sig not a byte string", lambda key, data: {"alg": -7, "sig": "sig"}),
            ("F-19", "packed attStmt sig empty", lambda key, data: {"alg": -7, "sig": b""}),
        ]
        for number, title, statement in statements:
            auth = Authenticator()
            status, body, _, _ = self.register(
                auth=auth, fmt="packed", statement=lambda ad, cdh, s=statement, k=auth.key: s(k, ad + cdh))
            self.case(f"{r3} {number}", title + ": failed", self.failed(status, body, "attestation"),
                      f"{status} {body}")

    def _no_session(self, case_id):
        auth = Authenticator()
        status, options, _ = self.attestation_options(self.new_user())
        status, body, _ = self.post("/attestation/result", self.make_credential(auth, options))
        self.case(case_id, "a result without its options (no ceremony cookie): failed", self.failed(status, body),
                  f"{status} {body}")

    def _replay(self, case_id):
        auth = Authenticator()
        status, options, jar = self.attestation_options(self.new_user())
        credential = self.make_credential(auth, options)
        first, _, _ = self.post("/attestation/result", credential, cookies=jar)
        auth2 = Authenticator()
        again = self.make_credential(auth2, options)
        status, body, _ = self.post("/attestation/result", again, cookies=jar, record=False)
        self.case(case_id, "a second result for one challenge: failed", first == 200 and self.failed(status, body),
                  f"{first}, {status} {body}")

    def _unknown_format(self, case_id):
        auth = Authenticator()
        status, options, jar = self.attestation_options(self.new_user())
        cdj = client_data("webauthn.create", options["challenge"], self.origin)
        ad = auth_data(RP_ID, 0x45, 0, (auth.aaguid, auth.cred_id, auth.cose()))
        obj = cbor({"fmt": "example-format", "attStmt": {}, "authData": ad})
        cid = b64url(auth.cred_id)
        credential = {"id": cid, "rawId": cid, "type": "public-key",
                      "response": {"clientDataJSON": b64url(cdj), "attestationObject": b64url(obj)}}
        status, body, _ = self.post("/attestation/result", credential, cookies=jar)
        self.case(case_id, "an unknown attestation format: failed", self.failed(status, body), f"{status} {body}")

    def request_options(self):
        group = "Server-ServerPublicKeyCredentialGetOptionsResponse-Req-1"
        ours = "X-GetOptions"
        status, body, username, auth = self.register()
        extensions = {"example.extension": True}
        status, options, _ = self.assertion_options(username, userVerification="required", extensions=extensions)
        good = self.ok(status, options)
        self.case(f"{group} P-1 (a,b)", "options for a registered user: status ok, errorMessage empty", good,
                  f"{status} {options}")
        if not good:
            return
        allowed = options.get("allowCredentials") or []
        self.case(f"{group} P-1 (c)", "challenge base64url, at least 16 bytes",
                  len(b64url_decode(options.get("challenge", ""))) >= 16)
        self.case(f"{group} P-1 (d)", "extensions as requested, example.extension (unknown) included",
                  options.get("extensions") == extensions, str(options.get("extensions")))
        self.case(f"{group} P-1 (e)", "rpId the RP ID", options.get("rpId") == RP_ID)
        self.case(f"{group} P-1 (f)", "allowCredentials exactly the user's credential, type public-key",
                  [c.get("id") for c in allowed] == [b64url(auth.cred_id)]
                  and all(c.get("type") == "public-key" for c in allowed), str(allowed))
        self.case(f"{group} P-1 (g)", "userVerification as requested", options.get("userVerification") == "required")
        _, again, _ = self.assertion_options(username)
        self.case(f"{group} P-2", "two options calls, two different challenges",
                  again.get("challenge") != options.get("challenge"))
        _, _, _, second = self.register(username=username)
        _, both, _ = self.assertion_options(username)
        ids = sorted(c.get("id") for c in both.get("allowCredentials") or [])
        logins = [self.login(username, a) for a in (auth, second)]
        self.case(f"{ours}-1", "a user registered twice: both credentials allowed, each asserts",
                  ids == sorted([b64url(auth.cred_id), b64url(second.cred_id)])
                  and all(self.ok(*result) for result in logins), f"{ids} {logins}")
        status, body, _ = self.assertion_options(self.new_user())
        self.case(f"{ours}-2", "an unknown user: failed", self.failed(status, body), f"{status} {body}")
        status, body, _ = self.post("/assertion/options", {})
        self.case(f"{ours}-3", "no username: failed", self.failed(status, body), f"{status} {body}")

    def assertion_responses(self):
        g = "Server-ServerAuthenticatorAssertionResponse"
        ours = "X-AssertionResponse"
        _, _, username, auth = self.register()
        _, _, username_rsa, auth_rsa = self.register(auth=Authenticator(-257), fmt="packed-self")

        def expect(case_id, title, want_ok, why=None, name=None, a=None, **kwargs):
            status, body = self.login(name or username, a or auth, **kwargs)
            self.case(case_id, title, self.ok(status, body) if want_ok else self.failed(status, body, why),
                      f"{status} {body}")

        def uv(preference):
            return {"options_extra": {"userVerification": preference}}

        expect(f"{g}-Resp-1 P-1", "a valid ES256 assertion: ok", True)
        expect(f"{ours}-1", "a valid RS256 assertion: ok", True, name=username_rsa, a=auth_rsa)
        expect(f"{ours}-2", "userHandle empty: ok", True, user_handle=None)
        expect(f"{ours}-3", "a credential id the user does not have: failed", False, why="unknownCredential",
               cred_id=os.urandom(32))
        self._client_data(f"{g}-Resp-2", "webauthn.create", lambda edit: self.login(username, auth, cd_edit=edit))
        # An authenticator without a counter: 0 at registration and in every assertion.
        _, _, username_zero, auth_zero = self.register()
        logins = [self.login(username_zero, auth_zero, count=0) for _ in range(2)]
        self.case(f"{g}-Resp-3 P-1", "two assertions of a counter that stays 0: ok",
                  all(self.ok(*result) for result in logins), str(logins))
        expect(f"{g}-Resp-3 P-2", "UV required, UV set, UP clear: ok (the profile's departure)", True, flags=0x04,
               **uv("required"))
        expect(f"{g}-Resp-3 P-3", "UV required, UV and UP set: ok", True, flags=0x05, **uv("required"))
        expect(f"{g}-Resp-3 P-4", "UV preferred, UV and UP clear: ok (the profile's departure)", True, flags=0x00,
               **uv("preferred"))
        expect(f"{g}-Resp-3 P-5", "UV discouraged, UP set: ok", True, flags=0x01, **uv("discouraged"))
        expect(f"{g}-Resp-3 P-6", "UV discouraged, UV set, UP clear: ok (the profile's departure)", True, flags=0x04,
               **uv("discouraged"))
        expect(f"{g}-Resp-3 P-7", "UV discouraged, UV and UP clear: ok (the profile's departure)", True, flags=0x00,
               **uv("discouraged"))
        expect(f"{ours}-4", "UV set, UP clear, no UV asked: ok (the profile's departure)", True, flags=0x04)
        expect(f"{g}-Resp-3 F-1", "bytes left over after the authenticator data: failed", False, why="malformed",
               ad_suffix=b"\x00\x01")
        expect(f"{g}-Resp-3 F-2", "rpIdHash of another RP ID: failed", False, why="rpIdHash", rp_id="evil.example")
        expect(f"{g}-Resp-3 F-3", "signature over another client data hash: failed", False, why="signature",
               signed_client_data=b"{}")
        expect(f"{g}-Resp-3 F-4", "a counter that did not grow: failed", False, why="signCount", count=1)
        expect(f"{g}-Resp-3 F-5", "UV required, only UP set: failed", False, why="userVerification", flags=0x01,
               **uv("required"))
        expect(f"{g}-Resp-1 F-20", "a signature that does not verify: failed", False, why="signature", corrupt=True)
        expect(f"{ours}-5", "userHandle of another user: failed", False, why="userHandle",
               user_handle=b64url(os.urandom(16)))
        drop, put = self._drop, self._put
        for number, title, change in (
            ("F-1", "no id", drop("id")),
            ("F-2", "id not a string", put(["id"], 5)),
            ("F-3", "id not base64url", put(["id"], "*")),
            ("F-4", "no type", drop("type")),
            ("F-5", "type not a string", put(["type"], 5)),
            ("F-6", "type not public-key", put(["type"], "private-key")),
            ("F-7", "no response", drop("response")),
            ("F-8", "response not an object", put(["response"], "response")),
            ("F-9", "response without clientDataJSON", drop("response", "clientDataJSON")),
            ("F-10", "clientDataJSON not a string", put(["response", "clientDataJSON"], 5)),
            ("F-11", "clientDataJSON empty", put(["response", "clientDataJSON"], "")),
            ("F-12", "response without authenticatorData", drop("response", "authenticatorData")),
            ("F-13", "authenticatorData not a string", put(["response", "authenticatorData"], 5)),
            ("F-14", "authenticatorData not base64url", put(["response", "authenticatorData"], "*")),
            ("F-15", "authenticatorData empty", put(["response", "authenticatorData"], "")),
            ("F-16", "response without signature", drop("response", "signature")),
            ("F-17", "signature not a string", put(["response", "signature"], 5)),
            ("F-18", "signature not base64url", put(["response", "signature"], "*")),
            ("F-19", "signature empty (read as a signature that does not verify)", put(["response", "signature"], "")),
            ("F-21", "userHandle not a string", put(["response", "userHandle"], 5)),
        ):
            why = "signature" if number == "F-19" else "malformed"
            status, options, jar = self.assertion_options(username)
            assertion = self.get_assertion(auth, options)
            change(assertion)
            status, body, _ = self.post("/assertion/result", assertion, cookies=jar)
            self.case(f"{g}-Resp-1 {number}", title + ": failed", self.failed(status, body, why),
                      f"{status} {body}")
        status, options, _ = self.assertion_options(username)
        status, body, _ = self.post("/assertion/result", self.get_assertion(auth, options))
        self.case(f"{ours}-6", "a result without its options (no ceremony cookie): failed",
                  self.failed(status, body), f"{status} {body}")

    def recording(self, material_dir):
        """The run as one webauthn-ceremonies/1 document, judged by the profile's policy members."""
        statements = []
        for name in sorted(os.listdir(material_dir + "/metadata")):
            with open(f"{material_dir}/metadata/{name}") as f:
                statements.append(json.load(f))
        with open(material_dir + "/anchors/root.pem", "rb") as f:
            root = x509.load_pem_x509_certificate(f.read())
        return {
            "format": "webauthn-ceremonies/1",
            "description": "Our own FIDO2 server conformance groups against CONFORMANCE=1 PasskeyServer "
                           "(Tests/conformance.py), each result as the server judged it",
            "source": "Recorded by Examples/PasskeyServer/Tests/conformance.py",
            "relyingParty": {"id": RP_ID, "name": "Passkey Server Example", "origins": [self.origin]},
            "policy": {
                "verificationTime": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "trustAnchors": [b64url(_der(root))], "metadataStatements": statements,
                "requireTrustedAttestation": True, "allowCounterRegression": False, "unattested": "accepted",
                "userPresenceOptionalInAssertions": True, "tpmNameMayUseItsOwnAlgorithm": True,
                "refuseAnchorInPath": True, "fidoU2FRequiresZeroAAGUID": True, "checkTokenBindingShape": True,
            },
            "ceremonies": self.ceremonies,
        }

    def run(self):
        self.creation_options()
        self.attestation_responses()
        self.metadata()
        self.request_options()
        self.assertion_responses()
        failed = [r for r in self.results if not r[2]]
        print(f"{len(self.results)} cases, {len(self.results) - len(failed)} as expected, {len(failed)} not", flush=True)
        return not failed


class _MislabeledAlg(Authenticator):
    """An EC key whose packed self statement claims RS256."""

    def __init__(self):
        super().__init__(-7)
        self.alg = -257

    def cose(self):
        return cose_ec2(self.key)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "setup":
        setup(sys.argv[2])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "run":
        harness = Harness(sys.argv[2], Material(sys.argv[3]))
        passed = harness.run()
        if len(sys.argv) == 5:
            with open(sys.argv[4], "w") as f:
                json.dump(harness.recording(sys.argv[3]), f, indent=1)
            print(f"recorded {len(harness.ceremonies)} ceremonies in {sys.argv[4]}", flush=True)
        sys.exit(0 if passed else 1)
    else:
        sys.exit(__doc__)
