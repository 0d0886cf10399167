#!/usr/bin/env python3
"""Builds the seed corpora of the libFuzzer harnesses from the project's recorded ceremonies.

    Fuzz/make-seeds.py            # rewrites Fuzz/Seeds/<harness>/ from Fixtures/
    Fuzz/make-seeds.py --check    # exits 1 when Fuzz/Seeds/ differs from what Fixtures/ gives
    Fuzz/make-seeds.py --swift    # also rewrites Sources/WebAuthnFuzzing/RecordedInputs.swift

RecordedInputs.swift holds what the whole-ceremony and attStmt targets verify against: the
fixtures' attestation trust anchors, the authenticator data and client data of one recorded
registration per attestation format (the fixed attestation contexts) and the credential records of every recorded
registration in Fixtures/attestation/ (so recorded logins verify). Regenerate it together with the
seeds whenever Fixtures/ is regenerated, or the seeds stop reaching the deep steps.

Every seed is a file named after a short hash of its content (so a seed found in two
ceremonies is kept once) with a prefix saying where it came from. Sources, per harness:

  cbor                      attestation objects, attStmt maps, COSE keys, extension maps, and a
                            few hand-written items (indefinite lengths, tags, floats, simple values)
  authenticator-data        authData of every attestation object and of every assertion
  attestation-object        every attestationObject
  cose-key                  every credential public key (from authData and fixture credentials)
  client-data               every clientDataJSON
  x509                      every x5c certificate and trust anchor
  response-json             every response (registration and authentication), compact JSON
  registration              every registration response
  authentication            every authentication response
  fixture                   every fixture file
  attstmt-<fmt>             the attStmt of every attestation object with that fmt (for compound: of
                            its components too); a format the fixtures do not record
                            (android-safetynet, and any other that is missing) gets a statement
                            assembled here from the fixtures' certificates and the packed context
                            of WebAuthnFuzzing, so the fuzzer starts from the right shape; compound
                            also gets packed+none and packed+tpm mixes
  appattest-attestation     the attestation of every appAttestation ceremony (also a cbor seed)
  appattest-assertion       the assertion of every appAssertion ceremony (also a cbor seed)
  metadata-blob             the policy.metadata BLOB of every fixture that has one
  metadata-payload          the payload JSON of those BLOBs
  android-key-description   the key description (attestation extension value) of the first certificate of
                            every androidKeyAttestation chain (the chains also as x509 seeds)
  play-integrity-token      assembled here (no fixture records one): 0x00 + a token with the documented
                            JWE header and parts of the right lengths, 0x01 + a JWS of the documented
                            verdict (unsigned: the signature step), 0x02 + that verdict's payload JSON and
                            its variants (a classic request's nonce, numbers for the int64 members)
  extension-outputs         0x00 + every authenticator extensions map, 0x01 + every non-empty
                            clientExtensionResults (compact JSON), and deep or wide hostile maps
  (hostile)                 per parser, inputs that declare 2^63 - 1 or 2^32 - 1 bytes or elements
                            with nothing behind them, and deep nesting: every fuzz run checks them
                            under -malloc_limit_mb

Only the Python standard library is used. The fixture format is specified in
ceremony-fixtures.md (`webauthn-ceremonies/1`).
"""
import base64
import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Fixtures")
SEEDS = os.path.join(ROOT, "Fuzz", "Seeds")

HARNESSES = [
    "cbor", "authenticator-data", "attestation-object", "cose-key", "client-data", "x509",
    "response-json", "registration", "authentication", "fixture",
    "attstmt-packed", "attstmt-fido-u2f", "attstmt-tpm", "attstmt-android-key",
    "attstmt-android-safetynet", "attstmt-apple", "attstmt-compound",
    "appattest-attestation", "appattest-assertion", "metadata-blob", "metadata-payload",
    "extension-outputs", "android-key-description", "play-integrity-token",
]

# The fixed attestation contexts of the attstmt-* harnesses (WebAuthnFuzzing's
# AttestationStatementTargets): per format, the registration of this file and ceremony. A format
# without a recorded registration (android-safetynet) uses the packed one.
CONTEXT_FILES = {
    "packed": os.path.join("attestation", "packed-x5c", "es256.json"),
    "fido-u2f": os.path.join("attestation", "fido-u2f", "es256.json"),
    "tpm": os.path.join("attestation", "tpm", "es256.json"),
    "android-key": os.path.join("attestation", "android-key", "es256.json"),
    "apple": os.path.join("attestation", "apple", "es256.json"),
    "compound": os.path.join("attestation", "compound", "es256.json"),
}
CONTEXT_FILE = CONTEXT_FILES["packed"]
CONTEXT_CEREMONY = "register"


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# The Android key attestation extension (1.3.6.1.4.1.11129.2.1.17) as DER: OID, optional critical, value.
KEY_DESCRIPTION_OID = bytes.fromhex("060a2b06010401d679020111")


def key_description(certificate):
    """The extension value of a certificate's key description, or None."""
    at = certificate.find(KEY_DESCRIPTION_OID)
    if at < 0:
        return None
    pos = at + len(KEY_DESCRIPTION_OID)
    if certificate[pos:pos + 3] == b"\x01\x01\xff":
        pos += 3
    if certificate[pos] != 0x04:
        return None
    length, pos = certificate[pos + 1], pos + 2
    if length & 0x80:
        size = length & 0x7F
        length, pos = int.from_bytes(certificate[pos:pos + size], "big"), pos + size
    return certificate[pos:pos + length]


# --- A minimal CBOR reader: enough to find items and their exact byte spans. ---------------

class Item:
    def __init__(self, major, value, raw):
        self.major, self.value, self.raw = major, value, raw

    def get(self, key):
        if self.major != 5:
            return None
        for k, v in self.value:
            if k.value == key:
                return v
        return None


def decode_prefix(data, pos=0, depth=0):
    if depth > 64:
        raise ValueError("too deep")
    start = pos
    initial = data[pos]
    pos += 1
    major, ai = initial >> 5, initial & 0x1F
    if ai < 24:
        arg = ai
    elif ai in (24, 25, 26, 27):
        n = 1 << (ai - 24)
        arg = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    elif ai == 31:
        arg = None
    else:
        raise ValueError("reserved additional information")
    if major in (0, 1):
        value = arg if major == 0 else -1 - arg
    elif major in (2, 3):
        if arg is None:
            chunks = []
            while data[pos] != 0xFF:
                chunk, pos = decode_prefix(data, pos, depth + 1)
                chunks.append(chunk.value)
            pos += 1
            value = b"".join(chunks) if major == 2 else "".join(chunks)
        else:
            value = data[pos:pos + arg]
            pos += arg
            if major == 3:
                value = value.decode("utf-8")
    elif major == 4:
        value = []
        while (arg is None and data[pos] != 0xFF) or (arg is not None and len(value) < arg):
            element, pos = decode_prefix(data, pos, depth + 1)
            value.append(element)
        if arg is None:
            pos += 1
    elif major == 5:
        value = []
        while (arg is None and data[pos] != 0xFF) or (arg is not None and len(value) < arg):
            key, pos = decode_prefix(data, pos, depth + 1)
            val, pos = decode_prefix(data, pos, depth + 1)
            value.append((key, val))
        if arg is None:
            pos += 1
    elif major == 6:
        value, pos = decode_prefix(data, pos, depth + 1)
    else:
        value = arg
    return Item(major, value, bytes(data[start:pos])), pos


def decode(data):
    item, end = decode_prefix(data)
    if end != len(data):
        raise ValueError("trailing bytes")
    return item


# --- A minimal CBOR writer (CTAP2 canonical for the shapes used here). ---------------------

def head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    for ai, width in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * width):
            return bytes([major << 5 | ai]) + n.to_bytes(width, "big")
    raise ValueError("too large")


def enc(value):
    if isinstance(value, Raw):
        return value.data
    if isinstance(value, bool):
        return b"\xf5" if value else b"\xf4"
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, (bytes, bytearray)):
        return head(2, len(value)) + bytes(value)
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(enc(v) for v in value)
    if isinstance(value, dict):
        entries = sorted(((enc(k), enc(v)) for k, v in value.items()), key=lambda e: (e[0][0] >> 5, len(e[0]), e[0]))
        return head(5, len(entries)) + b"".join(k + v for k, v in entries)
    raise TypeError(type(value))


class Raw:
    """Already encoded CBOR, embedded as is."""

    def __init__(self, data):
        self.data = data


# --- Authenticator data ----------------------------------------------------------------------

def split_auth_data(auth):
    """(credentialPublicKey bytes or None, extensions bytes or None)."""
    flags = auth[32]
    pos = 37
    key = ext = None
    if flags & 0x40 and len(auth) > pos:
        length = int.from_bytes(auth[pos + 16:pos + 18], "big")
        pos += 18 + length
        item, end = decode_prefix(auth, pos)
        key = auth[pos:end]
        pos = end
    if flags & 0x80 and len(auth) > pos:
        item, end = decode_prefix(auth, pos)
        ext = auth[pos:end]
    return key, ext


# --- Collecting ----------------------------------------------------------------------------

class Seeds:
    def __init__(self):
        self.by_harness = {name: {} for name in HARNESSES}

    def add(self, harness, prefix, data):
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        digest = hashlib.sha256(data).hexdigest()[:12]
        bucket = self.by_harness[harness]
        if digest not in {d for d, _ in bucket.values()}:
            bucket[f"{prefix}-{digest}"] = (digest, data)


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def collect_attestation_object(seeds, prefix, att_bytes):
    seeds.add("attestation-object", prefix, att_bytes)
    seeds.add("cbor", prefix + "-attobj", att_bytes)
    try:
        att = decode(att_bytes)
    except Exception:
        return  # a deliberately malformed object: kept whole above
    fmt = att.get("fmt")
    stmt = att.get("attStmt")
    auth = att.get("authData")
    if auth is not None and auth.major == 2:
        collect_auth_data(seeds, prefix, auth.value)
    if fmt is not None and fmt.major == 3 and stmt is not None:
        collect_statement(seeds, prefix, fmt.value, stmt)


def collect_statement(seeds, prefix, fmt, stmt):
    harness = f"attstmt-{fmt}"
    if harness in seeds.by_harness:
        seeds.add(harness, prefix, stmt.raw)
    seeds.add("cbor", prefix + "-attstmt", stmt.raw)
    if stmt.major == 5:
        x5c = stmt.get("x5c")
        if x5c is not None and x5c.major == 4:
            for cert in x5c.value:
                if cert.major == 2:
                    seeds.add("x509", prefix + "-x5c", cert.value)
    if fmt == "compound" and stmt.major == 4:
        for component in stmt.value:
            sub_fmt, sub_stmt = component.get("fmt"), component.get("attStmt")
            if sub_fmt is not None and sub_fmt.major == 3 and sub_stmt is not None:
                collect_statement(seeds, prefix + "-component", sub_fmt.value, sub_stmt)


def collect_auth_data(seeds, prefix, auth):
    seeds.add("authenticator-data", prefix, auth)
    try:
        key, ext = split_auth_data(auth)
    except Exception:
        return
    if key is not None:
        seeds.add("cose-key", prefix, key)
        seeds.add("cbor", prefix + "-cosekey", key)
    if ext is not None:
        seeds.add("cbor", prefix + "-extensions", ext)
        seeds.add("extension-outputs", prefix + "-authenticator", b"\x00" + ext)


def collect(seeds):
    context = None
    anchors = []
    for directory, _, files in sorted(os.walk(FIXTURES)):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, FIXTURES)
            stem = relative[:-5].replace(os.sep, "-")
            raw = open(path, "rb").read()
            seeds.add("fixture", stem, raw)
            fixture = json.loads(raw)
            for anchor in (fixture.get("policy") or {}).get("trustAnchors") or []:
                seeds.add("x509", stem + "-anchor", b64url(anchor))
                anchors.append(b64url(anchor))
            metadata = (fixture.get("policy") or {}).get("metadata")
            if isinstance(metadata, dict) and isinstance(metadata.get("blob"), str):
                blob = metadata["blob"].encode()
                seeds.add("metadata-blob", stem, blob)
                parts = blob.split(b".")
                if len(parts) == 3:
                    seeds.add("metadata-payload", stem, b64url(parts[1].decode()))
            for credential in fixture.get("credentials") or []:
                try:
                    key = b64url(credential["publicKey"])
                except Exception:
                    continue
                seeds.add("cose-key", stem + "-credential", key)
            for ceremony in fixture.get("ceremonies", []):
                prefix = stem + "-" + ceremony.get("name", "ceremony").replace(" ", "_")[:40]
                if ceremony.get("kind") == "androidKeyAttestation":
                    for index, text in enumerate(ceremony.get("certificateChain") or []):
                        try:
                            der = b64url(text)
                        except Exception:
                            continue
                        seeds.add("x509", prefix, der)
                        description = key_description(der) if index == 0 else None
                        if description is not None:
                            seeds.add("android-key-description", prefix, description)
                    continue
                app_member = {"appAttestation": "attestation", "appAssertion": "assertion"}.get(ceremony.get("kind"))
                if app_member is not None:
                    try:
                        data = b64url(ceremony[app_member])
                    except Exception:
                        continue
                    seeds.add("appattest-" + app_member, prefix, data)
                    seeds.add("cbor", prefix, data)
                    continue
                response = ceremony.get("response")
                if not isinstance(response, dict):
                    continue
                text = compact(response)
                seeds.add("response-json", prefix, text)
                outputs = response.get("clientExtensionResults")
                if isinstance(outputs, dict) and outputs:
                    seeds.add("extension-outputs", prefix + "-client", b"\x01" + compact(outputs).encode())
                kind = ceremony.get("kind")
                if kind in ("registration", "authentication"):
                    seeds.add(kind, prefix, text)
                inner = response.get("response")
                if not isinstance(inner, dict):
                    continue

                def member(name):
                    value = inner.get(name)
                    if not isinstance(value, str):
                        return None
                    try:
                        return b64url(value)
                    except Exception:
                        return None

                client_data = member("clientDataJSON")
                if client_data is not None:
                    seeds.add("client-data", prefix, client_data)
                att = member("attestationObject")
                if att is not None:
                    collect_attestation_object(seeds, prefix, att)
                    if relative == CONTEXT_FILE and ceremony.get("name") == CONTEXT_CEREMONY:
                        context = (decode(att), client_data)
                auth = member("authenticatorData")
                if auth is not None and att is None:
                    collect_auth_data(seeds, prefix, auth)
    return context, anchors


# --- RecordedInputs.swift ----------------------------------------------------------------------

SWIFT_OUT = os.path.join(ROOT, "Sources", "WebAuthnFuzzing", "RecordedInputs.swift")


def swift_bytes(data, indent="        "):
    text = base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    lines = [text[i:i + 96] for i in range(0, len(text), 96)] or [""]
    return "\n".join(f'{indent}"{line}"' + (" +" if i < len(lines) - 1 else "") for i, line in enumerate(lines))


def write_swift():
    anchors, contexts, records = [], {}, []
    for directory, _, files in sorted(os.walk(FIXTURES)):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            relative = os.path.relpath(os.path.join(directory, name), FIXTURES)
            fixture = json.load(open(os.path.join(directory, name)))
            for anchor in (fixture.get("policy") or {}).get("trustAnchors") or []:
                if b64url(anchor) not in anchors:
                    anchors.append(b64url(anchor))
            if not relative.startswith("attestation" + os.sep):
                continue
            for ceremony in fixture["ceremonies"]:
                if ceremony["kind"] != "registration" or ceremony["expect"]["outcome"] != "accept":
                    continue
                response = ceremony["response"]
                att = decode(b64url(response["response"]["attestationObject"]))
                auth = att.get("authData").value
                client_data = b64url(response["response"]["clientDataJSON"])
                for fmt, context_file in CONTEXT_FILES.items():
                    if ceremony["name"] == CONTEXT_CEREMONY and relative == context_file:
                        contexts[fmt] = (auth, client_data)
                key_bytes, _ = split_auth_data(auth)
                key = decode(key_bytes)
                records.append((relative, b64url(response["rawId"]), key_bytes, key.get(3).value,
                                b64url(ceremony["options"]["user"]["id"]), bool(auth[32] & 0x08),
                                int.from_bytes(auth[33:37], "big")))
    out = ["// Generated by Fuzz/make-seeds.py --swift from Fixtures/; do not edit by hand.",
           "// What the whole-ceremony and attStmt fuzz targets verify against (see make-seeds.py).",
           "", "enum RecordedInputs {",
           "    /// The fixtures' attestation root (the trust anchor of every attestation policy here).",
           "    static let trustAnchorsBase64URL: [String] = ["]
    out += [swift_bytes(a, "        ") + "," for a in anchors]
    out += ["    ]", ""]
    out += ["    /// Per attestation format: authenticatorData and clientDataJSON of one recorded registration.",
            "    static let contexts: [String: (authenticatorData: String, clientDataJSON: String)] = ["]
    for fmt, (auth, client_data) in sorted(contexts.items()):
        out += [f"        // {CONTEXT_FILES[fmt]}", f"        \"{fmt}\": (", swift_bytes(auth, "            ") + ",",
                swift_bytes(client_data, "            ") + "),"]
    out += ["    ]", ""]
    out += ["    /// One recorded registration's credential record: id, COSE key, alg, user handle, BE, signCount.",
            "    struct Record {", "        let id: String", "        let publicKey: String", "        let algorithm: Int",
            "        let userHandle: String", "        let backupEligible: Bool", "        let signCount: UInt32", "",
            "        /// A line of ``recordLines``; nil when it does not hold the seven fields.",
            "        init?(line: Substring) {",
            "            let fields = line.split(separator: \" \")",
            "            guard fields.count == 7, let algorithm = Int(fields[3]), let backupEligible = Bool(String(fields[5])),",
            "                let signCount = UInt32(fields[6])",
            "            else { return nil }",
            "            id = String(fields[1])",
            "            publicKey = String(fields[2])",
            "            self.algorithm = algorithm",
            "            userHandle = String(fields[4])",
            "            self.backupEligible = backupEligible",
            "            self.signCount = signCount",
            "        }",
            "    }", "",
            "    /// The credential of every accepted registration in Fixtures/attestation/.",
            "    static let records: [Record] = recordLines.split(separator: \"\\n\").compactMap(Record.init(line:))", "",
            "    /// One record a line: the fixture file, then id, COSE key, alg, user handle, BE and signCount.",
            "    static let recordLines = \"\"\""]
    for relative, cred_id, key_bytes, alg, user, be, count in records:
        fields = [relative, base64.urlsafe_b64encode(cred_id).rstrip(b'=').decode(),
                  base64.urlsafe_b64encode(key_bytes).rstrip(b'=').decode(), str(alg),
                  base64.urlsafe_b64encode(user).rstrip(b'=').decode(), 'true' if be else 'false', str(count)]
        out += ["        " + " ".join(fields)]
    out += ["        \"\"\""]
    out += ["}", ""]
    with open(SWIFT_OUT, "w") as f:
        f.write("\n".join(out))
    print(f"wrote {os.path.relpath(SWIFT_OUT, ROOT)}: {len(anchors)} anchor(s), {len(contexts)} context(s), {len(records)} record(s)")


# --- Statements for formats the fixtures do not record -------------------------------------

def synthesized(seeds, context, anchors):
    """Statements of the right shape, built over the fixed context of the attstmt harnesses."""
    att, client_data = context
    auth = att.get("authData").value
    stmt = att.get("attStmt")
    x5c = [c.value for c in stmt.get("x5c").value]
    leaf = x5c[0]
    sig = stmt.get("sig").value
    client_data_hash = hashlib.sha256(client_data).digest()
    signed = auth + client_data_hash
    key_bytes, _ = split_auth_data(auth)
    key = decode(key_bytes)
    x, y = key.get(-2).value, key.get(-3).value

    # tpm: a pubArea for the credential's P-256 key and a certInfo that certifies it and binds
    # this ceremony; only the AIK signature (and certificate) cannot be right.
    pub_area = (struct.pack(">HHI", 0x0023, 0x000B, 0x00060472) + struct.pack(">H", 0)
                + struct.pack(">HHHH", 0x0010, 0x0010, 0x0003, 0x0010)
                + struct.pack(">H", len(x)) + x + struct.pack(">H", len(y)) + y)
    name = b"\x00\x0b" + hashlib.sha256(pub_area).digest()
    extra = hashlib.sha256(signed).digest()
    cert_info = (struct.pack(">IH", 0xFF544347, 0x8017) + struct.pack(">H", 0)
                 + struct.pack(">H", len(extra)) + extra
                 + struct.pack(">QIIB", 1, 0, 0, 1) + struct.pack(">Q", 0)
                 + struct.pack(">H", len(name)) + name + struct.pack(">H", 0))
    tpm = {"ver": "2.0", "alg": -7, "x5c": x5c, "sig": sig, "certInfo": cert_info, "pubArea": pub_area}

    def unrecorded(fmt):
        return not seeds.by_harness[f"attstmt-{fmt}"]

    if unrecorded("tpm"):
        seeds.add("attstmt-tpm", "assembled", enc(tpm))
        seeds.add("attstmt-tpm", "assembled-rs256", enc(dict(tpm, alg=-257)))
    if unrecorded("android-key"):
        seeds.add("attstmt-android-key", "assembled", enc({"alg": -7, "sig": sig, "x5c": x5c}))
    if unrecorded("apple"):
        seeds.add("attstmt-apple", "assembled", enc({"x5c": x5c}))

    def std64(data):
        return base64.b64encode(data).decode()

    def url64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = compact({"alg": "ES256", "x5c": [std64(c) for c in x5c]}).encode()
    payload = compact({"nonce": std64(hashlib.sha256(signed).digest()), "timestampMs": 1748736000000,
                       "apkPackageName": "com.google.android.gms", "ctsProfileMatch": True,
                       "basicIntegrity": True}).encode()
    jws = ".".join([url64(header), url64(payload), url64(b"\x00" * 64)]).encode()
    seeds.add("attstmt-android-safetynet", "assembled", enc({"ver": "1", "response": jws}))

    packed = Raw(stmt.raw)
    # Compound mixes of recorded statements the recordings may not hold (packed with none or tpm).
    seeds.add("attstmt-compound", "assembled-packed-none",
              enc([{"fmt": "packed", "attStmt": packed}, {"fmt": "none", "attStmt": {}}]))
    seeds.add("attstmt-compound", "assembled-packed-tpm",
              enc([{"fmt": "packed", "attStmt": packed}, {"fmt": "tpm", "attStmt": Raw(enc(tpm))}]))

    # Hostile shapes: huge declared lengths with nothing behind them (run under -malloc_limit_mb,
    # these show that no parser allocates for a length the input did not deliver) and deep nesting.
    huge = [bytes([major]) + b"\x7f" + b"\xff" * 7 for major in (0x5B, 0x7B, 0x9B, 0xBB)]
    huge += [bytes([major]) + b"\xff" * 4 for major in (0x5A, 0x7A, 0x9A, 0xBA)]
    for index, head_bytes in enumerate(huge):
        seeds.add("cbor", f"hostile-huge-length-{index}", head_bytes)
        seeds.add("cose-key", f"hostile-huge-length-{index}", b"\xa4\x01\x02\x03\x26\x20\x01\x21" + head_bytes)
        seeds.add("authenticator-data", f"hostile-huge-length-{index}", auth[:37 + 18 + auth[54]] + head_bytes)
        seeds.add("attestation-object", f"hostile-huge-length-{index}",
                  enc({"fmt": "none", "attStmt": {}}).replace(b"\xa2", b"\xa3", 1) + enc("authData") + head_bytes)
    seeds.add("authenticator-data", "hostile-credential-id-length", auth[:53] + b"\x03\xff\x01")
    seeds.add("cbor", "hostile-deep-nesting", b"\x81" * 2000 + b"\x00")
    for index, der_head in enumerate([b"\x30\x84\x7f\xff\xff\xff", b"\x30\x88\x7f\xff\xff\xff\xff\xff\xff\xff"]):
        seeds.add("x509", f"hostile-huge-length-{index}", der_head + b"\x02\x01\x00")
    seeds.add("client-data", "hostile-deep-nesting", b'{"type":' + b"[" * 2000)
    seeds.add("extension-outputs", "hostile-deep-map", b"\x00\xa1\x64deep" + b"\x81" * 12 + b"\x01")
    seeds.add("extension-outputs", "hostile-wide-map", b"\x00\xb8\x28" + b"".join(bytes([0x63, 0x65, 0x30 + i // 10, 0x30 + i % 10, 0xf5]) for i in range(40)))
    seeds.add("extension-outputs", "hostile-deep-json", b'\x01{"prf":' + b'{"a":' * 300 + b'1' + b'}' * 301)
    seeds.add("response-json", "hostile-deep-nesting", b'{"id":"AQ","clientExtensionResults":' + b'{"a":' * 1000)
    seeds.add("attstmt-packed", "hostile-huge-x5c-length", enc({"alg": -7, "sig": sig, "x5c": [b"\x30\x84\x7f\xff\xff\xff"]}))

    # Play Integrity: no fixture records a token (its keys are the developer's), so the seeds are
    # the documented shapes, each reaching one layer: the JWE (stops at the key unwrap), a JWS
    # sealed by the target under its fixed keys (stops at the signature), the payload reader.
    def b64url(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=")
    digest = b64url(hashlib.sha256(b"release").digest()).decode()
    verdict = {
        "requestDetails": {"requestPackageName": "com.example.app", "requestHash": "r7Rx-the-request-hash",
                           "timestampMillis": "1735689600000"},
        "appIntegrity": {"appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": "com.example.app",
                         "certificateSha256Digest": [digest], "versionCode": "42"},
        "deviceIntegrity": {"deviceRecognitionVerdict": ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY"],
                            "recentDeviceActivity": {"deviceActivityLevel": "LEVEL_1"}},
        "accountDetails": {"appLicensingVerdict": "LICENSED"},
        "environmentDetails": {"appAccessRiskVerdict": {"appsDetected": ["KNOWN_INSTALLED"]}},
    }
    classic = json.loads(json.dumps(verdict))
    classic["requestDetails"] = {"requestPackageName": "com.example.app", "nonce": "bm9uY2UtZnJvbS10aGUtc2VydmVy",
                                 "timestampMillis": 1735689600000}
    classic["appIntegrity"]["versionCode"] = 42
    for label, payload in [("standard", verdict), ("classic", classic)]:
        text = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        seeds.add("play-integrity-token", "assembled-payload-" + label, b"\x02" + text)
        jws = b64url(b'{"alg":"ES256"}') + b"." + b64url(text) + b"." + b64url(bytes(64))
        seeds.add("play-integrity-token", "assembled-jws-" + label, b"\x01" + jws)
    header = b64url(b'{"alg":"A256KW","enc":"A256GCM"}')
    parts = [header, b64url(bytes(range(40))), b64url(bytes(12)), b64url(bytes(range(200))), b64url(bytes(16))]
    seeds.add("play-integrity-token", "assembled-jwe", b"\x00" + b".".join(parts))

    # Hand-written CBOR for shapes the recordings never use.
    for label, data in [
        ("indefinite-bytes", bytes.fromhex("5f42010243030405ff")),
        ("indefinite-text", bytes.fromhex("7f657374726561646d696e67ff")),
        ("indefinite-array-map", bytes.fromhex("9f01bf616101ff820203ff")),
        ("tags", bytes.fromhex("c11a514b67b0d82076687474703a2f2f7777772e6578616d706c652e636f6d")),
        ("floats", bytes.fromhex("84f93c00fa47c35000fb3ff199999999999af97e00")),
        ("simple", bytes.fromhex("84f4f5f6f7")),
        ("simple-two-byte", bytes.fromhex("82f820f8ff")),
        ("bignum-ints", bytes.fromhex("831bffffffffffffffff3bffffffffffffffff20")),
        ("nested", bytes.fromhex("a1018181a10282030405")),
    ]:
        seeds.add("cbor", "handwritten-" + label, data)


def write(seeds, target):
    for harness, bucket in seeds.by_harness.items():
        folder = os.path.join(target, harness)
        os.makedirs(folder, exist_ok=True)
        for name, (_, data) in sorted(bucket.items()):
            with open(os.path.join(folder, name), "wb") as out:
                out.write(data)


def main():
    seeds = Seeds()
    context, anchors = collect(seeds)
    if context is None:
        sys.exit(f"make-seeds: {CONTEXT_FILE} has no ceremony named {CONTEXT_CEREMONY}")
    synthesized(seeds, context, anchors)
    if "--swift" in sys.argv[1:]:
        write_swift()
    if "--check" in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as scratch:
            write(seeds, scratch)
            same = all(
                sorted(os.listdir(os.path.join(scratch, h))) == sorted(os.listdir(os.path.join(SEEDS, h)))
                if os.path.isdir(os.path.join(SEEDS, h)) else False
                for h in HARNESSES)
        print("seeds are up to date" if same else "seeds differ from Fixtures/: run Fuzz/make-seeds.py")
        sys.exit(0 if same else 1)
    if os.path.isdir(SEEDS):
        shutil.rmtree(SEEDS)
    write(seeds, SEEDS)
    total = sum(len(b) for b in seeds.by_harness.values())
    size = sum(len(d) for b in seeds.by_harness.values() for _, d in b.values())
    for harness in HARNESSES:
        print(f"{harness:28} {len(seeds.by_harness[harness]):4} seed(s)")
    print(f"{total} seeds, {size} bytes in {os.path.relpath(SEEDS, ROOT)}/")


if __name__ == "__main__":
    main()
