import Crypto
import Foundation
import SoftwarePasskey

/// One registered account as the generator drives it: its passkey, and every byte of its
/// requests that does not change from one login to the next, made once. An assertion is then
/// the client data (the challenge spliced in), one SHA-256, one ES256 signature (swift-crypto,
/// BoringSSL's P-256 underneath) and three base64url encodings into a prepared JSON frame.
final class LoadUser: @unchecked Sendable {
    let name: String
    let key: P256.Signing.PrivateKey
    let credentialId: [UInt8]
    let userHandle: [UInt8]
    let rpIdHash: [UInt8]
    var counter: UInt32
    /// Set by the native flow: the refresh token the last token answer carried.
    var refreshToken: [UInt8]?

    private let clientDataHead: [UInt8]
    private let clientDataTail: [UInt8]
    private let credentialHead: [UInt8]
    private let userHandleTail: [UInt8]
    /// `{"username":"…"}`: the options requests' body.
    let optionsBody: [UInt8]

    init(
        name: String, key: P256.Signing.PrivateKey, credentialId: [UInt8], userHandle: [UInt8], rpId: String, origin: String,
        counter: UInt32
    ) {
        self.name = name
        self.key = key
        self.credentialId = credentialId
        self.userHandle = userHandle
        self.counter = counter
        rpIdHash = Array(SHA256.hash(data: Array(rpId.utf8)))
        clientDataHead = Array(#"{"type":"webauthn.get","challenge":""#.utf8)
        clientDataTail = Array(#"","origin":"\#(origin)","crossOrigin":false}"#.utf8)
        let id = base64URL(credentialId)
        credentialHead = Array(
            #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","authenticatorAttachment":"platform","clientExtensionResults":{},"response":{"clientDataJSON":""#
                .utf8)
        userHandleTail = Array(#"","userHandle":"\#(base64URL(userHandle))"}}"#.utf8)
        optionsBody = Array(#"{"username":"\#(name)"}"#.utf8)
    }

    convenience init(name: String, passkey: SoftwarePasskey, rpId: String, origin: String) {
        self.init(
            name: name, key: passkey.key, credentialId: passkey.credentialId, userHandle: passkey.userHandle, rpId: rpId,
            origin: origin, counter: passkey.counter)
    }

    /// `AuthenticationResponseJSON` for a challenge (its base64url text, as the options carry it),
    /// appended to `out`.
    func assertion(challenge: [UInt8], into out: inout [UInt8]) throws {
        counter &+= 1
        var clientData = clientDataHead
        clientData += challenge
        clientData += clientDataTail
        var authData = rpIdHash
        authData += [0x05, UInt8(counter >> 24), UInt8((counter >> 16) & 0xFF), UInt8((counter >> 8) & 0xFF), UInt8(counter & 0xFF)]
        var signed = authData
        signed += SHA256.hash(data: clientData)
        let signature = try key.signature(for: signed).derRepresentation
        out += credentialHead
        appendBase64URL(clientData, to: &out)
        out += Self.authenticatorDataKey
        appendBase64URL(authData, to: &out)
        out += Self.signatureKey
        appendBase64URL(signature, to: &out)
        out += userHandleTail
    }

    static let authenticatorDataKey = Array(#"","authenticatorData":""#.utf8)
    static let signatureKey = Array(#"","signature":""#.utf8)

    /// A line of the users file: name, private key, credential id, user handle, counter.
    var line: String {
        [name, hex(key.rawRepresentation), hex(credentialId), hex(userHandle), String(counter)].joined(separator: " ")
    }

    static func parse(_ line: Substring, rpId: String, origin: String) -> LoadUser? {
        let parts = line.split(separator: " ")
        guard parts.count == 5, let raw = unhex(parts[1]), let key = try? P256.Signing.PrivateKey(rawRepresentation: raw),
            let id = unhex(parts[2]), let handle = unhex(parts[3]), let counter = UInt32(parts[4])
        else { return nil }
        return LoadUser(
            name: String(parts[0]), key: key, credentialId: id, userHandle: handle, rpId: rpId, origin: origin, counter: counter)
    }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

func unhex(_ text: Substring) -> [UInt8]? {
    let chars = Array(text.utf8)
    guard chars.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var index = 0
    while index < chars.count {
        guard let byte = UInt8(String(decoding: chars[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        out.append(byte)
        index += 2
    }
    return out
}

private let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

/// Base64url without padding, appended to `out`.
func appendBase64URL(_ input: some Collection<UInt8>, to out: inout [UInt8]) {
    let bytes = Array(input)
    var index = 0
    while index + 3 <= bytes.count {
        let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
        out.append(alphabet[Int(value >> 18)])
        out.append(alphabet[Int((value >> 12) & 63)])
        out.append(alphabet[Int((value >> 6) & 63)])
        out.append(alphabet[Int(value & 63)])
        index += 3
    }
    let rest = bytes.count - index
    if rest == 1 {
        let value = UInt32(bytes[index]) << 16
        out.append(alphabet[Int(value >> 18)])
        out.append(alphabet[Int((value >> 12) & 63)])
    } else if rest == 2 {
        let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
        out.append(alphabet[Int(value >> 18)])
        out.append(alphabet[Int((value >> 12) & 63)])
        out.append(alphabet[Int((value >> 6) & 63)])
    }
}

func base64URL(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    appendBase64URL(bytes, to: &out)
    return String(decoding: out, as: UTF8.self)
}
