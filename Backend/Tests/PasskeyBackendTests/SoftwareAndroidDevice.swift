import Crypto
import Foundation
import SwiftASN1
import X509

/// A software stand-in for an Android device's Keystore, for the in-process tests: a test
/// attestation CA (root → intermediate as the batch key → the key's certificate, as devices' chains run), a
/// P-256 app key whose certificate carries the KeyDescription of a locked, verified TEE for the
/// app's package and signing-certificate digest, and request signatures in the layout the
/// article "Android app integrity" defines, written out here as an app would.
struct SoftwareAndroidDevice {
    /// A test root and its intermediate, which certifies app keys as a device's batch key does
    /// (the App Attest device's test CA: only the root matters to the server).
    typealias Authority = SoftwareAppAttestDevice.Authority

    let authority: Authority
    let packageName: String
    /// SHA-256 of the certificate the app is signed with.
    let signingDigest: [UInt8]
    let key = P256.Signing.PrivateKey()
    var counter: UInt32 = 0

    init(authority: Authority, packageName: String, signer: String) {
        self.authority = authority
        self.packageName = packageName
        signingDigest = Array(SHA256.hash(data: Array(signer.utf8)))
    }

    /// The fingerprint a relying party declares for the app (`ANDROID_APPS`).
    var fingerprint: String { signingDigest.map { String(format: "%02X", $0) }.joined(separator: ":") }
    var keyId: [UInt8] { Array(SHA256.hash(data: Array(key.publicKey.x963Representation))) }
    var keyIdBase64: String { Data(keyId).base64EncodedString() }

    /// `KeyStore.getCertificateChain` after generating the key with
    /// `setAttestationChallenge(SHA-256(challenge))`, in base64; `locked: false` for an unlocked bootloader.
    func chain(challenge: String, locked: Bool = true) throws -> [String] {
        let description = Self.keyDescription(
            challenge: Array(SHA256.hash(data: Array(challenge.utf8))), package: packageName, digest: signingDigest, locked: locked)
        let now = Date()
        let leaf = try X509.Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 86_400, notValidAfter: now + 86_400 * 30, issuer: authority.intermediate.subject,
            subject: try DistinguishedName { CommonName("Android Keystore Key") },
            extensions: try .init {
                Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17], critical: false, value: description[...])
            },
            issuerPrivateKey: .init(authority.intermediateKey))
        return try [leaf, authority.intermediate, authority.root].map { Data(try SoftwareAppAttestDevice.der($0)).base64EncodedString() }
    }

    /// The signature over one request, counter advanced (`counter` repeats a value, `signWith`
    /// signs with another key).
    mutating func sign(
        binding: String, method: String = "POST", path: String, body: String, counter fixed: UInt32? = nil,
        signWith other: P256.Signing.PrivateKey? = nil
    ) throws -> (counter: UInt32, signature: String) {
        let count = fixed ?? counter + 1
        counter = max(counter, count)
        func field(_ text: String) -> [UInt8] { Self.bigEndian(UInt32(text.utf8.count)) + Array(text.utf8) }
        let signed =
            Array("android-key-assertion/1".utf8) + [0] + Self.bigEndian(count) + field(binding) + field(method) + field(path)
            + Array(SHA256.hash(data: Array(body.utf8)))
        let signature = try (other ?? key).signature(for: signed).derRepresentation
        return (count, signature.base64EncodedString())
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// The KeyDescription a TEE writes for an EC P-256 signing key of `package` (attestation
    /// version 300), `locked` and verified.
    static func keyDescription(challenge: [UInt8], package: String, digest: [UInt8], locked: Bool) -> [UInt8] {
        let applicationId = DER.sequence([
            DER.set([DER.sequence([DER.octetString(Array(package.utf8)), DER.integer(1)])]), DER.set([DER.octetString(digest)]),
        ])
        let rootOfTrust = DER.sequence([
            DER.octetString([UInt8](repeating: 0xB0, count: 32)), DER.boolean(locked), DER.enumerated(locked ? 0 : 2),
            DER.octetString([UInt8](repeating: 0xB1, count: 32)),
        ])
        let software = [DER.explicit(709, DER.octetString(applicationId))]
        let tee = [
            DER.explicit(1, DER.set([DER.integer(2)])), DER.explicit(2, DER.integer(3)), DER.explicit(3, DER.integer(256)),
            DER.explicit(10, DER.integer(1)), DER.explicit(702, DER.integer(0)), DER.explicit(704, rootOfTrust),
            DER.explicit(705, DER.integer(150_000)), DER.explicit(706, DER.integer(202_510)),
        ]
        return DER.sequence([
            DER.integer(300), DER.enumerated(1), DER.integer(300), DER.enumerated(1), DER.octetString(challenge), DER.octetString([]),
            DER.sequence(software), DER.sequence(tee),
        ])
    }

    /// The few DER items a KeyDescription needs.
    enum DER {
        static func tlv(_ tag: [UInt8], _ value: [UInt8]) -> [UInt8] {
            let count = value.count
            let length: [UInt8] =
                count < 128 ? [UInt8(count)] : count < 256 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
            return tag + length + value
        }
        static func integer(_ value: Int) -> [UInt8] {
            var bytes = withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) }
            while bytes.count > 1, bytes[0] == 0, bytes[1] < 0x80 { bytes.removeFirst() }
            if bytes[0] >= 0x80 { bytes.insert(0, at: 0) }
            return tlv([0x02], bytes)
        }
        static func enumerated(_ value: Int) -> [UInt8] { tlv([0x0A], [UInt8(value)]) }
        static func boolean(_ value: Bool) -> [UInt8] { tlv([0x01], [value ? 0xFF : 0x00]) }
        static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv([0x04], bytes) }
        static func sequence(_ items: [[UInt8]]) -> [UInt8] { tlv([0x30], items.flatMap { $0 }) }
        static func set(_ items: [[UInt8]]) -> [UInt8] { tlv([0x31], items.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 }) }
        /// `[tag] EXPLICIT`, context-specific and constructed, in the high-tag form past 30.
        static func explicit(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] {
            guard tag > 30 else { return tlv([0xA0 | UInt8(tag)], value) }
            var digits = [UInt8(tag & 0x7f)]
            var rest = tag >> 7
            while rest > 0 {
                digits.insert(UInt8(rest & 0x7f) | 0x80, at: 0)
                rest >>= 7
            }
            return tlv([0xBF] + digits, value)
        }
    }
}
