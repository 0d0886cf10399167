// TEMPORARY: stands in for WebAuthnTestSupport's TestAuthenticator until that module
// lands on main; same calls, so the cases switch over by deleting this file.
import Foundation
import WebAuthnCoding
@_spi(Testing) import WebAuthnCrypto
import WebAuthnRP

struct TestAuthenticator {
    struct KeySpec {
        var kind: PrivateKey.Kind
        var algorithm: COSEAlgorithm
        static let es256 = KeySpec(kind: .p256, algorithm: .es256)
        static let edDSA = KeySpec(kind: .ed25519, algorithm: .edDSA)
        static let rs256 = KeySpec(kind: .rsa(bits: 2048), algorithm: .rs256)
    }

    var rpId = "example.org"
    var origin = "https://example.org"
    var credentialId: [UInt8]
    var userHandle: [UInt8] = Array("user-a".utf8)
    var signCount: UInt32 = 0
    let privateKey: PrivateKey
    let algorithm: COSEAlgorithm
    let coseKey: [UInt8]

    init(key: KeySpec = .es256, credentialId: [UInt8] = Array(0..<32)) throws {
        privateKey = try PrivateKey.generate(key.kind)
        algorithm = key.algorithm
        coseKey = try privateKey.coseKey(algorithm: key.algorithm)
        self.credentialId = credentialId
    }

    func clientData(_ type: String, _ challenge: [UInt8]) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    func authData(flags: UInt8, attested: Bool) -> [UInt8] {
        var out = Digest.sha256.hash(Array(rpId.utf8))
        out.append(flags | (attested ? 0x40 : 0))
        out += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if attested {
            out += [UInt8](repeating: 0, count: 16)
            out += [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId + coseKey
        }
        return out
    }

    mutating func authenticate(challenge: [UInt8]) throws -> AuthenticationResponse {
        signCount &+= 1
        let cdj = clientData("webauthn.get", challenge)
        let ad = authData(flags: 0x05, attested: false)
        let sig = try privateKey.sign(ad + Digest.sha256.hash(cdj), algorithm: algorithm)
        return AuthenticationResponse(id: Base64URL.encode(credentialId), rawId: credentialId, clientDataJSON: cdj,
                                      authenticatorData: ad, signature: sig, userHandle: userHandle)
    }

    func register(challenge: [UInt8]) throws -> RegistrationResponse {
        let cdj = clientData("webauthn.create", challenge)
        let ad = authData(flags: 0x05, attested: true)
        let object = CBOREncoder.encode(CBORItem.map([
            (.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(ad)),
        ]))
        return RegistrationResponse(id: Base64URL.encode(credentialId), rawId: credentialId, clientDataJSON: cdj,
                                    attestationObject: object, transports: ["internal"])
    }

    static func json(_ response: AuthenticationResponse) -> AuthenticationResponseJSON {
        AuthenticationResponseJSON(
            id: response.id, rawId: Base64URLBytes(response.rawId),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes(response.clientDataJSON),
                authenticatorData: Base64URLBytes(response.authenticatorData),
                signature: Base64URLBytes(response.signature),
                userHandle: response.userHandle.map { Base64URLBytes($0) }),
            type: PublicKeyCredentialType(rawValue: response.type))
    }

    static func json(_ response: RegistrationResponse) -> RegistrationResponseJSON {
        RegistrationResponseJSON(
            id: response.id, rawId: Base64URLBytes(response.rawId),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(response.clientDataJSON),
                transports: response.transports.map { AuthenticatorTransport(rawValue: $0) },
                attestationObject: Base64URLBytes(response.attestationObject)),
            type: PublicKeyCredentialType(rawValue: response.type))
    }

    func record(signCount: UInt32 = 0) -> CredentialRecord {
        CredentialRecord(id: credentialId, publicKey: coseKey, algorithm: algorithm.rawValue, signCount: signCount,
                         userHandle: userHandle)
    }
}
