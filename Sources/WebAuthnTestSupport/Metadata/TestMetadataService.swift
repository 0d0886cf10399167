package import Foundation
import WebAuthnCoding
package import WebAuthnCrypto
import WebAuthnRP

/// A stand-in for the FIDO Metadata Service: a test root, an intermediate and a BLOB signing
/// certificate (all derived from a seed, so the same seed gives the same bytes), and builders
/// for MDS3 BLOBs (compact JWS), metadata entries and CRLs. For tests, fixtures and the
/// benchmark only.
package struct TestMetadataService: Sendable {
    /// A key and its certificate.
    package struct Authority: Sendable {
        package let key: PrivateKey
        package let certificate: Certificate
    }

    /// The root the BLOB's chain ends in (the caller's trust anchor).
    package let root: Authority
    /// The intermediate CA under the root.
    package let intermediate: Authority
    /// The BLOB signing certificate, issued by the intermediate.
    package let signer: Authority

    /// 2025-01-01T00:00:00Z, the reference time of every test certificate.
    package static let reference = Date(timeIntervalSince1970: 1_735_689_600)

    /// Makes the PKI.
    /// - Parameters:
    ///   - seed: derives every key.
    ///   - signerKind: the signing key's kind (P-256 for ES256, RSA for RS256/PS256).
    ///   - signerNotAfter: end of the signing certificate's validity (default: ten years on).
    package static func make(
        seed: String, signerKind: PrivateKey.Kind = .p256,
        signerNotAfter: Date? = nil
    ) throws -> TestMetadataService {
        let year: TimeInterval = 86_400 * 365
        let rootKey = try PrivateKey.derive(.p256, seed: "\(seed) MDS root")
        var rootBuilder = CertificateBuilder(
            subject: try name("Test MDS Root"), publicKey: rootKey.publicKey,
            notBefore: reference.addingTimeInterval(-year),
            notAfter: reference.addingTimeInterval(10 * year))
        rootBuilder.basicConstraints = .init(isCA: true)
        rootBuilder.keyUsage = [.keyCertSign, .cRLSign]
        let root = Authority(key: rootKey, certificate: try rootBuilder.sign(with: rootKey))

        let intermediateKey = try PrivateKey.derive(.p256, seed: "\(seed) MDS intermediate")
        var intermediateBuilder = CertificateBuilder(
            subject: try name("Test MDS Intermediate"),
            publicKey: intermediateKey.publicKey,
            notBefore: reference.addingTimeInterval(-year),
            notAfter: reference.addingTimeInterval(10 * year))
        intermediateBuilder.issued(by: root.certificate)
        intermediateBuilder.serialNumber = [0x02]
        intermediateBuilder.basicConstraints = .init(isCA: true, pathLength: 0)
        intermediateBuilder.keyUsage = [.keyCertSign, .cRLSign]
        let intermediate = Authority(key: intermediateKey, certificate: try intermediateBuilder.sign(with: rootKey))

        let signerKey = try PrivateKey.derive(signerKind, seed: "\(seed) MDS signer")
        var signerBuilder = CertificateBuilder(
            subject: try name("Test MDS BLOB Signer"), publicKey: signerKey.publicKey,
            notBefore: reference.addingTimeInterval(-year),
            notAfter: signerNotAfter ?? reference.addingTimeInterval(10 * year))
        signerBuilder.issued(by: intermediate.certificate)
        signerBuilder.serialNumber = [0x03]
        signerBuilder.basicConstraints = .init(isCA: false, isCritical: true)
        signerBuilder.keyUsage = [.digitalSignature]
        let signer = Authority(key: signerKey, certificate: try signerBuilder.sign(with: intermediateKey))
        return TestMetadataService(root: root, intermediate: intermediate, signer: signer)
    }

    private static func name(_ commonName: String) throws -> DistinguishedName {
        try DistinguishedName([.commonName(commonName), .organization("Test MDS"), .country("AA")])
    }

    // MARK: Entries

    /// One status report.
    package struct Status: Sendable {
        package var status: String
        package var effectiveDate: String?
        /// The certificate the report concerns (`certificate`: for a key compromise, the leaked key's).
        package var certificate: Certificate?
        package init(_ status: String, effectiveDate: String? = nil, certificate: Certificate? = nil) {
            self.status = status
            self.effectiveDate = effectiveDate
            self.certificate = certificate
        }
    }

    /// A metadata BLOB entry with a metadata statement, in the MDS3 shape.
    package struct Entry: Sendable {
        package var aaguid: String?
        package var keyIdentifiers: [String] = []
        package var description: String
        package var attestationTypes: [String] = ["basic_full"]
        package var roots: [Certificate] = []
        package var statuses: [Status] = [Status("FIDO_CERTIFIED_L1", effectiveDate: "2024-01-01")]
        package var protocolFamily = "fido2"

        package init(aaguid: String?, description: String) {
            self.aaguid = aaguid
            self.description = description
        }

        /// The entry as a JSON object.
        package var json: [String: Any] {
            var statement: [String: Any] = [
                "legalHeader": "Test metadata, no legal meaning.",
                "description": description,
                "authenticatorVersion": 2,
                "protocolFamily": protocolFamily,
                "schema": 3,
                "upv": [["major": 1, "minor": 1]],
                "authenticationAlgorithms": ["secp256r1_ecdsa_sha256_raw"],
                "publicKeyAlgAndEncodings": ["cose"],
                "attestationTypes": attestationTypes,
                "userVerificationDetails": [
                    [["userVerificationMethod": "presence_internal"]],
                    [
                        ["userVerificationMethod": "passcode_external"],
                        ["userVerificationMethod": "presence_internal"],
                    ],
                ],
                "keyProtection": ["hardware", "secure_element"],
                "matcherProtection": ["on_chip"],
                "tcDisplay": [],
                "attestationRootCertificates": roots.map { Data($0.derBytes).base64EncodedString() },
                "icon": "data:image/png;base64,iVBORw0KGgo=",
            ]
            var entry: [String: Any] = [
                "statusReports": statuses.map { report -> [String: Any] in
                    var object: [String: Any] = ["status": report.status]
                    if let date = report.effectiveDate { object["effectiveDate"] = date }
                    if let certificate = report.certificate { object["certificate"] = Data(certificate.derBytes).base64EncodedString() }
                    return object
                },
                "timeOfLastStatusChange": statuses.last?.effectiveDate ?? "2024-01-01",
            ]
            if let aaguid {
                entry["aaguid"] = aaguid
                statement["aaguid"] = aaguid
            }
            if !keyIdentifiers.isEmpty {
                entry["attestationCertificateKeyIdentifiers"] = keyIdentifiers
                statement["attestationCertificateKeyIdentifiers"] = keyIdentifiers
            }
            entry["metadataStatement"] = statement
            return entry
        }
    }

    /// The payload JSON of a BLOB (sorted keys, so the same entries give the same bytes).
    package static func payload(entries: [[String: Any]], number: Int = 7, nextUpdate: String = "2025-07-01") throws -> [UInt8] {
        let object: [String: Any] = [
            "legalHeader": "Test metadata, no legal meaning.", "no": number,
            "nextUpdate": nextUpdate, "entries": entries,
        ]
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    // MARK: The BLOB

    /// Signs a payload as a compact JWS with the signing key.
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - alg: `ES256` (P-256 signer), `RS256` or `PS256` (RSA signer).
    ///   - x5c: the header's chain (default: signer, intermediate); nil leaves `x5c` out.
    ///   - signingKey: the key that signs (default: the signer's).
    /// - Returns: the JWS text.
    package func blob(
        payload: [UInt8], alg: String = "ES256", x5c: [Certificate]? = nil,
        signingKey: PrivateKey? = nil
    ) throws -> String {
        var header: [String: Any] = ["alg": alg, "typ": "JWT"]
        let chain = x5c ?? [signer.certificate, intermediate.certificate]
        if x5c == nil || !(x5c ?? []).isEmpty {
            header["x5c"] = chain.map { Data($0.derBytes).base64EncodedString() }
        }
        let headerBytes = Array(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let signingInput = Base64URL.encode(headerBytes) + "." + Base64URL.encode(payload)
        let key = signingKey ?? signer.key
        let signature: [UInt8]
        switch alg {
        case "ES256": signature = try Self.rawECDSA(try key.sign(Array(signingInput.utf8), algorithm: .es256), coordinate: 32)
        case "RS256": signature = try key.sign(Array(signingInput.utf8), algorithm: .rs256)
        case "PS256": signature = try key.sign(Array(signingInput.utf8), algorithm: .ps256)
        default: throw CryptoError(.unsupportedAlgorithm, "test BLOB alg \(alg)")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// DER `ECDSA-Sig-Value` to JOSE `r || s`.
    static func rawECDSA(_ der: [UInt8], coordinate: Int) throws -> [UInt8] {
        let parts = try DER.parseSequence(der)
        guard parts.count == 2 else { throw CryptoError(.malformedSignature, "not two integers") }
        var out: [UInt8] = []
        for part in parts {
            // libcrypto's own signature: each INTEGER is minimal and non-negative.
            guard part.tag == .integer else { throw CryptoError(.malformedSignature, "not an INTEGER") }
            let magnitude = Array(part.content.drop(while: { $0 == 0 }))
            guard magnitude.count <= coordinate else { throw CryptoError(.malformedSignature, "integer too long") }
            out += [UInt8](repeating: 0, count: coordinate - magnitude.count) + magnitude
        }
        return out
    }

    // MARK: CRLs

    /// A CRL issued by `issuer` listing `revokedSerials` (unsigned magnitudes), signed ES256.
    package static func crl(
        issuer: Authority, revokedSerials: [[UInt8]], thisUpdate: Date, nextUpdate: Date
    ) throws -> CertificateRevocationList {
        let algorithm = DEREncoder.sequence([try DEREncoder.objectIdentifier("1.2.840.10045.4.3.2")])
        var tbs: [[UInt8]] = [
            DEREncoder.integer(1), algorithm, issuer.certificate.subject.derBytes,
            utcTime(thisUpdate), utcTime(nextUpdate),
        ]
        if !revokedSerials.isEmpty {
            tbs.append(
                DEREncoder.sequence(
                    revokedSerials.map {
                        DEREncoder.sequence([DEREncoder.unsignedInteger($0), utcTime(thisUpdate)])
                    }))
        }
        let tbsBytes = DEREncoder.sequence(tbs)
        let signature = try issuer.key.sign(tbsBytes, algorithm: .es256)
        return try CertificateRevocationList(derEncoded: DEREncoder.sequence([tbsBytes, algorithm, DEREncoder.bitString(signature)]))
    }

    private static func utcTime(_ date: Date) -> [UInt8] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyMMddHHmmss'Z'"
        return DEREncoder.utcTime(formatter.string(from: date))
    }
}
