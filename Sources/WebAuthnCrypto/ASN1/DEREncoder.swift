// The one piece of DER writing the library keeps: length octets, with which the fuzz targets
// re-encode a node they changed. Everything else the project writes in DER (the test
// authenticator's certificates and extension values) is built in WebAuthnTestSupport
// (Crypto/DEREncoder+Building.swift); the library turns JOSE ECDSA signatures into DER with
// libcrypto (ECDSASignature).

/// Pieces of DER encodings.
package enum DEREncoder {
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
}
