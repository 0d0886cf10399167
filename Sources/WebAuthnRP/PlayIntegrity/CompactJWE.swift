import WebAuthnCoding

/// A JWE in compact serialization (RFC 7516 §7.1), as a Play Integrity token arrives:
/// `BASE64URL(header) . BASE64URL(encrypted key) . BASE64URL(iv) . BASE64URL(ciphertext) . BASE64URL(tag)`.
/// Only the split and the strict base64url of each part; what the header must say and the
/// decryption are the verifier's steps.
struct CompactJWE: Sendable {
    /// The protected header, a JSON object.
    let header: [String: JSONValue]
    /// The content-encryption key, wrapped under the recipient's key.
    let encryptedKey: [UInt8]
    /// The initialization vector.
    let iv: [UInt8]
    /// The ciphertext.
    let ciphertext: [UInt8]
    /// The authentication tag.
    let tag: [UInt8]
    /// `ASCII(BASE64URL(header))`, the additional authenticated data (RFC 7516 §5.1 step 14).
    let additionalData: [UInt8]

    /// Splits and decodes a compact JWE and parses its header.
    /// - Throws: ``WebAuthnError`` `malformed` for anything but five non-empty strict base64url
    ///   parts whose first decodes to a JSON object.
    init(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 5 else {
            throw WebAuthnError(.malformed, "the token has \(parts.count) part(s), a compact JWE has 5")
        }
        var decoded: [[UInt8]] = []
        for (part, name) in zip(parts, ["header", "encrypted key", "iv", "ciphertext", "tag"]) {
            guard !part.isEmpty else { throw WebAuthnError(.malformed, "the JWE \(name) is empty") }
            do {
                decoded.append(try Base64URL.decode(String(decoding: part, as: UTF8.self)))
            } catch {
                throw WebAuthnError(.malformed, "the JWE \(name) is not base64url: \(error)")
            }
        }
        let json: JSONValue
        do {
            json = try JSONReader.parse(decoded[0][...])
        } catch {
            throw WebAuthnError(.malformed, "the JWE header is not JSON: \(error)")
        }
        guard let object = json.objectValue else { throw WebAuthnError(.malformed, "the JWE header is not a JSON object") }
        header = object
        (encryptedKey, iv, ciphertext, tag) = (decoded[1], decoded[2], decoded[3], decoded[4])
        additionalData = Array(parts[0])
    }
}
