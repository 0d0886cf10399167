import Crypto
import Foundation
import SwiftASN1
import X509

/// A software stand-in for an iPhone's `DCAppAttestService`, for the in-process tests: a test
/// App Attestation CA (root → intermediate → credCert, as Apple issues them), a P-256 key whose
/// id is SHA-256 of its uncompressed point, `attestKey` (the attestation object Apple's server
/// would return) and `generateAssertion` with a counter.
struct SoftwareAppAttestDevice {
    /// A test root and the intermediate that issues credCerts.
    struct Authority {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let root: X509.Certificate
        let intermediate: X509.Certificate

        init() throws {
            let rootName = try DistinguishedName {
                CommonName("Test App Attestation Root CA"); OrganizationName("Test")
            }
            let intermediateName = try DistinguishedName {
                CommonName("Test App Attestation CA 1"); OrganizationName("Test")
            }
            let now = Date()
            root = try X509.Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
                notValidBefore: now - 86_400, notValidAfter: now + 86_400 * 365, issuer: rootName, subject: rootName,
                extensions: try .init {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(rootKey))
            intermediate = try X509.Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: now - 86_400, notValidAfter: now + 86_400 * 365, issuer: rootName, subject: intermediateName,
                extensions: try .init {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(rootKey))
        }

        /// The root as PEM, for `APP_ATTEST_ROOT_PEM` (or `ANDROID_KEY_ATTESTATION_ROOT_PEM`).
        func rootPEM() throws -> String { try root.serializeAsPEM().pemString }
    }

    static let productionAAGUID = Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
    static let developmentAAGUID = Array("appattestdevelop".utf8)

    let authority: Authority
    /// `teamId.bundleId`.
    let appId: String
    let aaguid: [UInt8]
    let key = P256.Signing.PrivateKey()
    var counter: UInt32 = 0

    init(authority: Authority, appId: String, development: Bool = false) {
        self.authority = authority
        self.appId = appId
        aaguid = development ? Self.developmentAAGUID : Self.productionAAGUID
    }

    var point: [UInt8] { Array(key.publicKey.x963Representation) }
    var keyId: [UInt8] { Array(SHA256.hash(data: point)) }
    var keyIdBase64: String { Data(keyId).base64EncodedString() }

    /// `attestKey(keyId, clientDataHash: SHA-256(challenge as UTF-8))`.
    func attest(challenge: String) throws -> [UInt8] {
        let rpIdHash = Array(SHA256.hash(data: Array(appId.utf8)))
        let x = Array(point[1..<33]), y = Array(point[33..<65])
        let coseKey = CBOR.map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(x)), (.int(-3), .bytes(y))])
        let authData = rpIdHash + [0x40] + [0, 0, 0, 0] + aaguid + [0, 32] + keyId + coseKey.encoded
        let nonce = Array(SHA256.hash(data: authData + Array(SHA256.hash(data: Array(challenge.utf8)))))
        let now = Date()
        let credCert = try X509.Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 86_400, notValidAfter: now + 86_400 * 30, issuer: authority.intermediate.subject,
            subject: try DistinguishedName { CommonName(keyId.map { String(format: "%02x", $0) }.joined()) },
            extensions: try .init {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                // Apple's nonce extension: SEQUENCE { [1] EXPLICIT OCTET STRING nonce }.
                Certificate.Extension(
                    oid: [1, 2, 840, 113635, 100, 8, 2], critical: false,
                    value: ([0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce)[...])
            },
            issuerPrivateKey: .init(authority.intermediateKey))
        let object = CBOR.map([
            (.text("fmt"), .text("apple-appattest")),
            (
                .text("attStmt"),
                .map([
                    (.text("x5c"), .array([.bytes(try Self.der(credCert)), .bytes(try Self.der(authority.intermediate))])),
                    (.text("receipt"), .bytes(Array("test receipt".utf8))),
                ])
            ),
            (.text("authData"), .bytes(authData)),
        ])
        return object.encoded
    }

    /// `generateAssertion(keyId, clientDataHash: SHA-256(clientData))`, counter advanced;
    /// `counter` repeats a value, `signWith` signs with another key, `appId` names another app.
    mutating func assert(
        clientData: [UInt8], counter fixed: UInt32? = nil, signWith other: P256.Signing.PrivateKey? = nil,
        appId otherApp: String? = nil
    ) throws -> [UInt8] {
        let count = fixed ?? counter + 1
        counter = max(counter, count)
        let authData =
            Array(SHA256.hash(data: Array((otherApp ?? appId).utf8))) + [0x40]
            + [UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
        let nonce = Array(SHA256.hash(data: authData + Array(SHA256.hash(data: clientData))))
        let signature = try (other ?? key).signature(for: nonce).derRepresentation
        return CBOR.map([(.text("signature"), .bytes(Array(signature))), (.text("authenticatorData"), .bytes(authData))]).encoded
    }

    static func der(_ certificate: X509.Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

/// The few CBOR items the device writes (definite lengths, keys in the order given).
indirect enum CBOR {
    case int(Int), bytes([UInt8]), text(String), array([CBOR]), map([(CBOR, CBOR)])

    var encoded: [UInt8] {
        switch self {
        case .int(let value): return value >= 0 ? Self.head(0, UInt64(value)) : Self.head(1, UInt64(-1 - value))
        case .bytes(let bytes): return Self.head(2, UInt64(bytes.count)) + bytes
        case .text(let text): return Self.head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .array(let items): return Self.head(4, UInt64(items.count)) + items.flatMap(\.encoded)
        case .map(let entries): return Self.head(5, UInt64(entries.count)) + entries.flatMap { $0.0.encoded + $0.1.encoded }
        }
    }

    static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        let type = major << 5
        switch value {
        case 0..<24: return [type | UInt8(value)]
        case 24..<256: return [type | 24, UInt8(value)]
        case 256..<65_536: return [type | 25, UInt8(value >> 8), UInt8(value & 0xff)]
        default: return [type | 26] + (0..<4).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xff) }
        }
    }
}
