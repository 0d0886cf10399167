// The DER the library writes: an `ECDSA-Sig-Value` from JOSE's `r || s` (ECDSASignature).
// The rest of the writer (strings, OIDs, sets, tags), which only tests and the test
// authenticator use, extends it in WebAuthnTestSupport (Crypto/DEREncoder+Building.swift).

/// Builds DER encodings from parts. Every function returns the complete TLV.
package enum DEREncoder {
    /// A TLV with the given tag and content, with a minimal definite length.
    package static func tlv(_ tag: DERTag, _ content: [UInt8]) -> [UInt8] {
        tag.encoded + length(content.count) + content
    }

    /// The DER length octets for `count`.
    package static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var octets: [UInt8] = []
        var rest = count
        while rest > 0 {
            octets.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }

    /// A SEQUENCE of already encoded elements.
    package static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        tlv(.sequence, elements.flatMap { $0 })
    }

    /// A non-negative INTEGER whose magnitude is `magnitude` (big-endian).
    package static func unsignedInteger(_ magnitude: [UInt8], tag: DERTag = .integer) -> [UInt8] {
        var octets = Array(magnitude.drop(while: { $0 == 0 }))
        if octets.isEmpty { octets = [0] }
        if let first = octets.first, first & 0x80 != 0 { octets.insert(0, at: 0) }
        return tlv(tag, octets)
    }
}
