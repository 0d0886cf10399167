import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// One target per parser: CBOR, authenticator data, attestation object, COSE key, client
/// data, X.509/DER and the L3 response JSON.
enum ParserTargets {
    static let all: [FuzzTarget] = [cbor, authenticatorData, attestationObject, coseKey, clientData, x509, responseJSON]

    // MARK: CBOR

    static let cbor = FuzzTarget(
        "cbor",
        checks: """
            CBOR.decode (default and CTAP2 canonical) and CBOR.decodePrefix: a decoded item's encodedBytes \
            are the input; the canonical re-encoding decodes in canonical mode to the same value and \
            re-encodes to the same bytes; a canonical-mode decode re-encodes to exactly the input (floats \
            aside, whose width CTAP2 leaves free); canonical acceptance implies plain acceptance of the same \
            value; decode and decodePrefix agree; decoding twice gives the same value
            """
    ) { bytes, check in
        let plain = decodeResult { () throws(CBORError) in try CBOR.decode(bytes) }
        let again = decodeResult { () throws(CBORError) in try CBOR.decode(bytes) }
        check.requireSame(plain.description, again.description, "decoding twice gives the same verdict")

        let prefix: Result<(item: CBORItem, rest: ArraySlice<UInt8>), CBORError>
        do throws(CBORError) { prefix = .success(try CBOR.decodePrefix(bytes)) } catch { prefix = .failure(error) }
        switch prefix {
        case .success(let decoded):
            let consumed = decoded.item.encodedBytes
            check.require(
                consumed.startIndex == bytes.startIndex && consumed.endIndex == decoded.rest.startIndex
                    && decoded.rest.endIndex == bytes.endIndex,
                "decodePrefix splits the input into the item's bytes and the rest",
                "item \(consumed.startIndex)..<\(consumed.endIndex), rest \(decoded.rest.startIndex)..<\(decoded.rest.endIndex), input \(bytes.startIndex)..<\(bytes.endIndex)"
            )
            if decoded.rest.isEmpty {
                check.require(
                    plain.item == decoded.item, "decode and decodePrefix agree on a whole input",
                    "decode: \(plain.description)")
            } else {
                check.require(
                    plain.error?.code == .trailing, "decode refuses what decodePrefix leaves a rest of as trailing",
                    "decode: \(plain.description)")
            }
        case .failure(let error):
            check.require(
                plain.error?.code == error.code, "decode fails as decodePrefix does",
                "decodePrefix: \(error); decode: \(plain.description)")
        }

        if let item = plain.item {
            check.require(
                item.encodedBytes.elementsEqual(bytes), "a decoded item's encodedBytes are the input",
                "\(item.encodedBytes.count) of \(bytes.count) bytes")
            let encoded = CBOREncoder.encode(item)
            let redecoded = decodeResult { () throws(CBORError) in try CBOR.decode(encoded, options: .ctap2Canonical) }
            check.require(
                redecoded.item.map { sameValue($0.value, item.value) } == true,
                "the canonical re-encoding decodes (canonical mode) to the same value",
                "re-encoding \(encoded.hex): \(redecoded.description)")
            if let value = redecoded.item {
                check.require(
                    CBOREncoder.encode(value) == encoded, "re-encoding is stable",
                    "\(CBOREncoder.encode(value).hex) vs \(encoded.hex)")
            }
        }

        let canonical = decodeResult { () throws(CBORError) in try CBOR.decode(bytes, options: .ctap2Canonical) }
        if let item = canonical.item {
            check.require(
                plain.item.map { sameValue($0.value, item.value) } == true,
                "what canonical mode accepts, the default mode accepts as the same value",
                "default: \(plain.description)")
            if !containsFloat(item.value) {
                let encoded = CBOREncoder.encode(item)
                check.require(
                    encoded.elementsEqual(bytes), "a canonical-mode decode re-encodes to exactly the input",
                    "input \(bytes.hex), re-encoding \(encoded.hex)")
            }
        }
    }

    struct DecodeResult: CustomStringConvertible {
        let item: CBORItem?
        let error: CBORError?
        var description: String {
            if let item { return "accept: \(CBOREncoder.encode(item).hex)" }
            return "reject: \(error.map { "\($0)" } ?? "")"
        }
    }

    static func decodeResult(_ body: () throws(CBORError) -> CBORItem) -> DecodeResult {
        do { return DecodeResult(item: try body(), error: nil) } catch { return DecodeResult(item: nil, error: error) }
    }

    /// Value equality with maps compared as sets of entries (``CBORValue``'s own `==` keeps the
    /// encoded entry order, which canonical re-encoding changes). Keys are unique in a decoded map.
    static func sameValue(_ a: CBORValue, _ b: CBORValue) -> Bool {
        switch (a, b) {
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameValue($0.value, $1.value) }
        case let (.map(x), .map(y)):
            return x.count == y.count
                && x.allSatisfy { entry in
                    y.contains { sameValue($0.key.value, entry.key.value) && sameValue($0.value.value, entry.value.value) }
                }
        case let (.tagged(t, x), .tagged(u, y)):
            return t == u && sameValue(x.value, y.value)
        default:
            return a == b
        }
    }

    /// Whether a float occurs anywhere in the value (its width is not fixed by CTAP2 canonical form).
    static func containsFloat(_ value: CBORValue) -> Bool {
        switch value {
        case .float: return true
        case .array(let items): return items.contains { containsFloat($0.value) }
        case .map(let entries): return entries.contains { containsFloat($0.key.value) || containsFloat($0.value.value) }
        case .tagged(_, let item): return containsFloat(item.value)
        default: return false
        }
    }

    // MARK: Authenticator data

    static let authenticatorData = FuzzTarget(
        "authenticator-data",
        checks: """
            AuthenticatorData(bytes:): the same verdict twice; an accepted parse is exactly its parts \
            (rpIdHash ‖ flags ‖ signCount ‖ AAGUID ‖ length ‖ credentialId ‖ key ‖ extensions = the input), \
            AT and ED agree with what was parsed, the credential id is at most 1023 bytes, and the key and \
            extensions re-decode as the same CBOR maps; the App Attest mode (one map may follow with ED \
            clear) accepts whatever the strict mode accepts, as the same parts, and its own acceptances \
            hold the same properties, ED set only when it announces the map
            """
    ) { bytes, check in
        let (first, parsed) = Verdict.of({ () throws(WebAuthnError) in try AuthenticatorData(bytes: bytes) }, describe: describe)
        let (second, _) = Verdict.of({ () throws(WebAuthnError) in try AuthenticatorData(bytes: bytes) }, describe: describe)
        check.requireSame(first, second, "parsing twice gives the same verdict")
        let (lenient, lenientParsed) = Verdict.of(
            { () throws(WebAuthnError) in
                try AuthenticatorData(bytes: bytes, unannouncedExtensions: .acceptedAsOneMap)
            }, describe: describe)
        if parsed != nil {
            check.requireSame(first, lenient, "the App Attest mode accepts what the strict mode accepts, as the same parts")
        }
        if let data = lenientParsed { checkParts(data, input: bytes, unannouncedExtensions: .acceptedAsOneMap, &check) }
        guard let data = parsed else { return }
        checkParts(data, input: bytes, &check)
    }

    static func describe(_ data: AuthenticatorData) -> String {
        var out = "rpIdHash \(data.rpIdHash.hex) flags \(data.flags) signCount \(data.signCount)"
        if let attested = data.attestedCredentialData {
            out +=
                " aaguid \(attested.aaguid) credentialId \(attested.credentialId.hex) key \(attested.credentialPublicKey.encodedBytes.hex)"
        }
        if let extensions = data.extensions { out += " extensions \(extensions.encodedBytes.hex)" }
        return out
    }

    static func checkParts(
        _ data: AuthenticatorData, input: ArraySlice<UInt8>,
        unannouncedExtensions: AuthenticatorData.UnannouncedExtensions = .refused,
        _ check: inout PropertyCheck
    ) {
        var rebuilt = Array(data.rpIdHash)
        rebuilt.append(data.flags.rawValue)
        rebuilt += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: data.signCount >> $0) }
        if let attested = data.attestedCredentialData {
            rebuilt += attested.aaguid.bytes
            rebuilt += [
                UInt8(truncatingIfNeeded: attested.credentialId.count >> 8), UInt8(truncatingIfNeeded: attested.credentialId.count),
            ]
            rebuilt += attested.credentialId
            rebuilt += attested.credentialPublicKey.encodedBytes
            check.require(
                attested.credentialId.count <= 1023,  // the §7.1 bound, written out rather than read from the parser
                "a credential id is at most 1023 bytes", "\(attested.credentialId.count) bytes")
            let key = try? CBOR.decode(attested.credentialPublicKey.encodedBytes)
            check.require(
                key == attested.credentialPublicKey && key?.mapEntries != nil,
                "the credential key re-decodes as the same CBOR map", attested.credentialPublicKey.encodedBytes.hex)
        }
        if let extensions = data.extensions {
            rebuilt += extensions.encodedBytes
            let decoded = try? CBOR.decode(extensions.encodedBytes)
            check.require(
                decoded == extensions && decoded?.mapEntries != nil,
                "the extensions re-decode as the same CBOR map", extensions.encodedBytes.hex)
        }
        check.require(
            rebuilt.elementsEqual(input) && data.rawBytes.elementsEqual(input),
            "authenticator data is exactly its parsed parts", "input \(input.hex), parts \(rebuilt.hex)")
        check.require(data.rpIdHash.count == 32, "rpIdHash is 32 bytes", "\(data.rpIdHash.count)")
        check.require(
            data.flags.contains(.attestedCredentialData) == (data.attestedCredentialData != nil),
            "AT is set exactly when attested credential data was parsed", describe(data))
        switch unannouncedExtensions {
        case .refused:
            check.require(
                data.flags.contains(.extensionData) == (data.extensions != nil),
                "ED is set exactly when extensions were parsed", describe(data))
        case .acceptedAsOneMap:
            check.require(
                !data.flags.contains(.extensionData) || data.extensions != nil,
                "ED set means extensions were parsed (App Attest mode)", describe(data))
        }
    }

    // MARK: Attestation object

    static let attestationObject = FuzzTarget(
        "attestation-object",
        checks: """
            AttestationObject(bytes:): the same verdict twice; an accepted object's raw bytes are the input, \
            its fmt, attStmt and authData are the members a plain CBOR decode finds, and its authData parses \
            on its own to the same authenticator data (whose parts add up, as in authenticator-data)
            """
    ) { bytes, check in
        let first = AttestationObjectReading.read(bytes)
        let second = AttestationObjectReading.read(bytes)
        check.requireSame(describe(first.reading), describe(second.reading), "parsing twice gives the same verdict")
        guard case .success(let object) = first.reading else { return }
        for broken in first.broken { check.require(false, broken.property, broken.detail) }
        let alone = Verdict.of(
            { () throws(WebAuthnError) in try AuthenticatorData(bytes: Array(object.authenticatorData.rawBytes)) },
            describe: describe
        ).0
        check.requireSame(alone, "accept: " + describe(object.authenticatorData), "authData parses alone to the same value")
        checkParts(object.authenticatorData, input: object.authenticatorData.rawBytes, &check)
    }

    /// `accept: fmt … attStmt … authData { … }` or `reject: <error>`, as ``Verdict`` writes them.
    static func describe(
        _ reading: Result<(format: String, statement: [UInt8], authenticatorData: AuthenticatorData), WebAuthnError>
    ) -> String {
        switch reading {
        case .success(let object):
            return "accept: fmt \(object.format) attStmt \(object.statement.hex) authData { \(describe(object.authenticatorData)) }"
        case .failure(let error): return "reject: \(error)"
        }
    }

    // MARK: COSE key

    static let coseKey = FuzzTarget(
        "cose-key",
        checks: """
            COSEKey(cbor:) and COSEKey(item:) on the decoded item: the same verdict twice and from both \
            entry points; an accepted key keeps exactly the input as cborBytes, its parameters are the \
            map's, and its libcrypto key is the same key when built again from cborBytes
            """
    ) { bytes, check in
        let (first, parsed) = Verdict.of({ () throws(CryptoError) in try COSEKey(cbor: bytes) }, describe: describe)
        let (second, _) = Verdict.of({ () throws(CryptoError) in try COSEKey(cbor: bytes) }, describe: describe)
        check.requireSame(first, second, "parsing twice gives the same verdict")
        if let item = try? CBOR.decode(bytes) {
            let (viaItem, _) = Verdict.of({ () throws(CryptoError) in try COSEKey(item: item) }, describe: describe)
            check.requireSame(first, viaItem, "COSEKey(cbor:) and COSEKey(item:) agree")
        }
        guard let key = parsed else { return }
        check.require(key.cborBytes.elementsEqual(bytes), "cborBytes are the input", key.cborBytes.hex)
        if let again = try? COSEKey(cbor: key.cborBytes[...]) {
            check.require(
                again.publicKey.isEqual(to: key.publicKey), "rebuilding from cborBytes gives the same libcrypto key",
                describe(key))
        } else {
            check.require(false, "cborBytes of an accepted key parse again", describe(key))
        }
        let map = try? CBOR.decode(bytes)
        if let (x, y) = key.ec2Coordinates {
            check.require(
                map?[intKey: -2]?.bytes?.elementsEqual(x) == true && map?[intKey: -3]?.bytes?.elementsEqual(y) == true,
                "EC2 coordinates are the map's x and y", describe(key))
        }
    }

    static func describe(_ key: COSEKey) -> String {
        var out = "kty \(key.keyType) alg \(key.algorithm) crv \(key.curve.map { "\($0)" } ?? "-") kind \(key.publicKey.keyKind)"
        out += " spki \(key.publicKey.subjectPublicKeyInfoDER.hex) cbor \(key.cborBytes.hex)"
        return out
    }

    // MARK: Client data

    static let clientData = FuzzTarget(
        "client-data",
        checks: """
            CollectedClientData(jsonBytes:): the same verdict twice, and with a UTF-8 byte order mark in \
            front; an accepted parse keeps the input as rawBytes, and its members, serialized again by \
            Foundation's JSONEncoder, parse to the same members
            """
    ) { bytes, check in
        let first = CollectedClientDataReading.read(bytes)
        let second = CollectedClientDataReading.read(bytes)
        check.requireSame(verdict(first.reading), verdict(second.reading), "parsing twice gives the same verdict")
        if !bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            let withBOM = CollectedClientDataReading.read(([0xEF, 0xBB, 0xBF] + Array(bytes))[...])
            check.requireSame(verdict(first.reading), verdict(withBOM.reading), "a leading byte order mark changes nothing")
        }
        for broken in first.broken { check.require(false, broken.property, broken.detail) }
    }

    /// `accept: <reading>` or `reject: <error>`, as ``Verdict`` writes them.
    static func verdict(_ reading: Result<String, WebAuthnError>) -> String {
        switch reading {
        case .success(let described): return "accept: " + described
        case .failure(let error): return "reject: \(error)"
        }
    }

    // MARK: X.509 and DER

    /// The time certificate chains are verified at (2025-06-01T00:00:00Z, the fixtures' clock).
    static let verificationTime = Date(timeIntervalSince1970: 1_748_736_000)

    static let x509 = FuzzTarget(
        "x509",
        checks: """
            DER.parse and Certificate(derEncoded:): a parsed DER tree re-serializes (tag, minimal length, \
            children) to exactly the input; a certificate gives the same verdict twice, keeps the input as \
            derBytes, has names that re-parse to themselves, and verifies against the fixtures' root to the \
            same verdict twice
            """
    ) { bytes, check in
        if let node = try? DER.parse(bytes) {
            let rebuilt = reserialize(node)
            check.require(
                rebuilt.elementsEqual(bytes), "a DER tree re-serializes to exactly its input",
                "input \(bytes.hex), rebuilt \(rebuilt.hex)")
        }
        let (first, parsed) = Verdict.of({ () throws(CryptoError) in try Certificate(derEncoded: bytes) }, describe: describe)
        let (second, _) = Verdict.of({ () throws(CryptoError) in try Certificate(derEncoded: bytes) }, describe: describe)
        check.requireSame(first, second, "parsing twice gives the same verdict")
        guard let certificate = parsed else { return }
        check.require(certificate.derBytes.elementsEqual(bytes), "derBytes are the input", "\(certificate.derBytes.count) bytes")
        check.require((try? DER.parse(bytes)) != nil, "a certificate is one DER value", bytes.hex)
        for name in [certificate.subject, certificate.issuer] {
            let again = try? DistinguishedName(derEncoded: name.derBytes[...])
            check.require(again == name, "a name re-parses to itself", name.description)
        }
        let chain = { () -> String in
            Verdict.of(
                { () throws(CryptoError) in
                    try CertificateChain.verify(
                        leaf: certificate, intermediates: [], trustAnchors: AttestationStatementTargets.trustAnchors,
                        at: verificationTime)
                }, describe: { "anchor \($0.anchor.subject) length \($0.certificates.count)" }
            ).0
        }
        check.requireSame(chain(), chain(), "chain verification gives the same verdict twice")
    }

    /// Rebuilds a DER node from its tag, a minimal length and (for a constructed node) its children.
    static func reserialize(_ node: DERNode) -> [UInt8] {
        let content: [UInt8]
        if node.isConstructed, let children = try? node.children() {
            content = children.flatMap(reserialize)
        } else {
            content = Array(node.content)
        }
        return node.tag.encoded + DEREncoder.length(content.count) + content
    }

    static func describe(_ c: Certificate) -> String {
        var out = "v\(c.version) serial \(c.serialNumber.hex) subject \(c.subject) issuer \(c.issuer)"
        out += " validity \(c.notBefore.timeIntervalSince1970)...\(c.notAfter.timeIntervalSince1970)"
        out += " extensions \(c.extensions.map { "\($0.oid)\($0.isCritical ? "!" : "") \($0.value.hex)" })"
        out += " bc \(c.basicConstraints.map { "\($0.isCA) \($0.pathLength.map(String.init) ?? "-")" } ?? "-")"
        out += " ku \(c.keyUsage.map { "\($0.rawValue)" } ?? "-") eku \(c.extendedKeyUsage ?? []) san \(c.subjectAlternativeNames)"
        out += " spki \(c.subjectPublicKeyInfoDER.hex) key \(c.publicKey.keyKind) sigAlg \(c.signatureAlgorithmOID)"
        out += " selfIssued \(c.isSelfIssued) tbs \(c.tbsCertificateBytes.count)"
        return out
    }

    // MARK: Response JSON

    static let responseJSON = FuzzTarget(
        "response-json",
        checks: """
            RegistrationResponseJSON(jsonData:) and AuthenticationResponseJSON(jsonData:) on every input: \
            the same verdict twice; an accepted response encodes (jsonData) to JSON that decodes to an equal \
            response and encodes to the same bytes again
            """
    ) { bytes, check in
        let data = Data(bytes)
        roundTrip(
            data, &check, decode: { (d: Data) throws(WebAuthnError) in try RegistrationResponseJSON(jsonData: d) },
            encode: { (r: RegistrationResponseJSON) throws(WebAuthnError) in try r.jsonData() })
        roundTrip(
            data, &check, decode: { (d: Data) throws(WebAuthnError) in try AuthenticationResponseJSON(jsonData: d) },
            encode: { (r: AuthenticationResponseJSON) throws(WebAuthnError) in try r.jsonData() })
    }

    static func roundTrip<T: Hashable>(
        _ data: Data, _ check: inout PropertyCheck,
        decode: (Data) throws(WebAuthnError) -> T,
        encode: (T) throws(WebAuthnError) -> Data
    ) {
        let name = String(describing: T.self)
        let describeEncoded = { (value: T) -> String in
            do { return String(decoding: try encode(value), as: UTF8.self) } catch { return "unencodable: \(error)" }
        }
        let (first, decoded) = Verdict.of({ () throws(WebAuthnError) in try decode(data) }, describe: describeEncoded)
        let (second, _) = Verdict.of({ () throws(WebAuthnError) in try decode(data) }, describe: describeEncoded)
        check.requireSame(first, second, "\(name): decoding twice gives the same verdict")
        guard let value = decoded else { return }
        let encoded: Data
        do {
            encoded = try encode(value)
        } catch {
            check.require(false, "\(name): an accepted response encodes", "\(error)")
            return
        }
        let (again, reDecoded) = Verdict.of({ () throws(WebAuthnError) in try decode(encoded) }, describe: describeEncoded)
        check.require(
            reDecoded == value, "\(name): the encoding decodes to an equal response",
            "encoding \(String(decoding: encoded, as: UTF8.self)): \(again)")
        check.requireSame(again, "accept: " + String(decoding: encoded, as: UTF8.self), "\(name): encoding is stable")
    }
}
