import Crypto
import Foundation
import WebAuthnRP

/// A minimal software passkey for the load generator and the in-process tests: ES256, `none`
/// attestation, a counter. It signs exactly what a browser's platform authenticator would
/// (authenticator data ‖ SHA-256(clientDataJSON)). The library's own test authenticator is not a
/// product (a server never links it), so the example carries this small one on swift-crypto.
public struct SoftwarePasskey: Sendable {
    public let key = P256.Signing.PrivateKey()
    public let credentialId: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    public var userHandle: [UInt8]
    public let origin: String
    public let rpIdHash: [UInt8]
    public var counter: UInt32 = 0
    /// The AAGUID its registrations claim (zeros: none, as many synced providers send).
    public var aaguid = [UInt8](repeating: 0, count: 16)

    public init(rpId: String, origin: String, userHandle: [UInt8]) {
        self.origin = origin
        self.userHandle = userHandle
        rpIdHash = Array(SHA256.hash(data: Data(rpId.utf8)))
    }

    public static func b64(_ bytes: some Sequence<UInt8>) -> String { Base64URLBytes(Array(bytes)).base64URL }

    func clientData(_ type: String, challenge: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// The COSE_Key of the public key: {1: 2, 3: -7, -1: 1, -2: x, -3: y}.
    public var coseKey: [UInt8] {
        let raw = Array(key.publicKey.rawRepresentation)  // x ‖ y
        return [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + raw[0..<32] + [0x22, 0x58, 0x20] + raw[32..<64]
    }

    func counterBytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// `RegistrationResponseJSON` for these creation-options' challenge.
    public mutating func register(challenge: String) -> Data {
        counter += 1
        let authData =
            rpIdHash + [0x45] + counterBytes(counter) + aaguid
            + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xFF)] + credentialId + coseKey
        // {"fmt": "none", "attStmt": {}, "authData": bstr}
        let attestation: [UInt8] =
            [0xA3, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x67] + Array("attStmt".utf8)
            + [0xA0, 0x68] + Array("authData".utf8) + [0x59, UInt8(authData.count >> 8), UInt8(authData.count & 0xFF)] + authData
        let clientData = clientData("webauthn.create", challenge: challenge)
        let json: [String: Any] = [
            "id": Self.b64(credentialId), "rawId": Self.b64(credentialId), "type": "public-key",
            "authenticatorAttachment": "platform", "clientExtensionResults": [String: Any](),
            "response": [
                "clientDataJSON": Self.b64(clientData), "attestationObject": Self.b64(attestation),
                "transports": ["internal"],
            ],
        ]
        return (try? JSONSerialization.data(withJSONObject: json)) ?? Data()
    }

    /// `AuthenticationResponseJSON` for these request-options' challenge.
    public mutating func assert(challenge: String) throws -> Data {
        counter += 1
        let authData = rpIdHash + [0x05] + counterBytes(counter)
        let clientData = clientData("webauthn.get", challenge: challenge)
        let signature = try key.signature(for: Data(authData + Array(SHA256.hash(data: Data(clientData))))).derRepresentation
        let json: [String: Any] = [
            "id": Self.b64(credentialId), "rawId": Self.b64(credentialId), "type": "public-key",
            "authenticatorAttachment": "platform", "clientExtensionResults": [String: Any](),
            "response": [
                "clientDataJSON": Self.b64(clientData), "authenticatorData": Self.b64(authData),
                "signature": Self.b64(signature), "userHandle": Self.b64(userHandle),
            ],
        ]
        return try JSONSerialization.data(withJSONObject: json)
    }
}

/// The challenge member of an options document.
public func challenge(in options: Data) -> String? {
    (try? JSONSerialization.jsonObject(with: options) as? [String: Any])?["challenge"] as? String
}
