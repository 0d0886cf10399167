import Foundation
package import WebAuthnCoding
import WebAuthnCrypto
package import WebAuthnRP

extension TestAuthenticator {
    /// The extension outputs one ceremony returns: the authenticator's (a CBOR map appended to
    /// authenticator data with the ED flag) and the client's (`clientExtensionResults`). Right
    /// or wrong: nothing here checks them.
    package struct ExtensionOutputs {
        /// Authenticator extension outputs, in this order (encode canonically ordered keys for
        /// a valid map).
        package var authenticator: [(String, CBORItem)] = []
        /// Raw bytes to append instead of ``authenticator`` (for maps that are not valid CBOR).
        package var authenticatorBytes: [UInt8]?
        /// `clientExtensionResults`.
        package var client: [String: JSONValue] = [:]

        /// No outputs.
        package init(
            authenticator: [(String, CBORItem)] = [], authenticatorBytes: [UInt8]? = nil,
            client: [String: JSONValue] = [:]
        ) {
            self.authenticator = authenticator
            self.authenticatorBytes = authenticatorBytes
            self.client = client
        }

        /// The encoded authenticator extensions map, or nil when there is none.
        package var encodedAuthenticatorOutputs: [UInt8]? {
            if let authenticatorBytes { return authenticatorBytes }
            guard !authenticator.isEmpty else { return nil }
            return CBOREncoder.encode(CBORItem.map(authenticator.map { (CBORItem.text($0.0), $0.1) }))
        }

        /// Appends the authenticator outputs to `authData` and sets ED (flags byte at offset 32).
        func append(to authData: inout [UInt8]) {
            guard let bytes = encodedAuthenticatorOutputs, authData.count > 32 else { return }
            authData[32] |= AuthenticatorFlags.extensionData.rawValue
            authData += bytes
        }
    }

    /// The per-credential secret behind this authenticator's PRF (CTAP `CredRandomWithUV`),
    /// derived from the credential id so fixtures stay deterministic.
    package var prfCredRandom: [UInt8] {
        Digest.sha256.hash(Array("test authenticator CredRandom".utf8) + credentialId)
    }

    /// The PRF output for one input as a client and this authenticator compute it (L3 §10.1.4:
    /// salt = SHA-256("WebAuthn PRF" || 0x00 || input); CTAP hmac-secret: HMAC-SHA-256(CredRandom, salt)).
    /// - Parameters:
    ///   - input: the relying party's evaluation input.
    ///   - credRandom: the credential's secret (default: ``prfCredRandom``).
    /// - Returns: 32 bytes.
    package func prf(_ input: [UInt8], credRandom: [UInt8]? = nil) -> [UInt8] {
        Self.hmacSHA256(key: credRandom ?? prfCredRandom, Self.prfSalt(input))
    }

    /// salt = SHA-256(UTF-8("WebAuthn PRF") || 0x00 || input).
    package static func prfSalt(_ input: [UInt8]) -> [UInt8] {
        Digest.sha256.hash(Array("WebAuthn PRF".utf8) + [0x00] + input)
    }

    /// HMAC-SHA-256 (RFC 2104) over the library's SHA-256.
    package static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var k = key.count > blockSize ? Digest.sha256.hash(key) : key
        k += Array(repeating: 0, count: blockSize - k.count)
        let inner = Digest.sha256.hash(k.map { $0 ^ 0x36 } + message)
        return Digest.sha256.hash(k.map { $0 ^ 0x5c } + inner)
    }
}
