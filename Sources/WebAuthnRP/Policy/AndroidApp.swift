import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// An Android app whose passkeys belong to the relying party (the
/// `delegate_permission/common.get_login_creds` statement of `assetlinks.json`).
public struct AndroidApp: Sendable, Hashable {
    /// The package name.
    public let packageName: String
    /// The signing certificate's SHA-256 fingerprint as `AB:CD:…` (32 bytes, uppercase hex).
    public let sha256Fingerprint: String
    /// The origin the app's ceremonies carry in client data (`android:apk-key-hash:…`).
    public let origin: String

    /// Creates an app description.
    /// - Parameters:
    ///   - packageName: the package name.
    ///   - sha256Fingerprint: the signing certificate's SHA-256 fingerprint (hex, colons optional).
    /// - Throws: ``WebAuthnError`` `malformed` when the fingerprint is not 32 bytes of hex.
    public init(packageName: String, sha256Fingerprint: String) throws(WebAuthnError) {
        self.packageName = packageName
        self.origin = try RelyingParty.androidOrigin(sha256Fingerprint: sha256Fingerprint)
        let bytes = (try? Base64URL.decode(String(origin.dropFirst("android:apk-key-hash:".count)))) ?? []
        self.sha256Fingerprint = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The signing certificate's SHA-256 digest (32 bytes), as Android key attestation's
    /// `attestationApplicationId` and a Play Integrity verdict's `certificateSha256Digest` list
    /// it: the bytes the app's origin carries.
    var signingCertificateDigest: [UInt8] {
        (try? Base64URL.decode(String(origin.dropFirst("android:apk-key-hash:".count)))) ?? []
    }
}

extension RelyingParty {
    /// The origin an Android app's passkey ceremonies report in client data:
    /// `android:apk-key-hash:` followed by the base64url (unpadded) SHA-256 of the app's signing
    /// certificate. Add it to ``origins`` next to the web origins, or declare the app
    /// (``AndroidApp``) when building the relying party. (An iOS or macOS app using
    /// AuthenticationServices reports `https://<rp id>`, which is the web origin only when the
    /// site is served at the RP ID itself, not at `www.` or `login.` under it.)
    /// - Parameter signingCertificate: the DER bytes of the certificate the APK or app bundle is
    ///   signed with (for Play App Signing, Google's app signing certificate).
    /// - Returns: the origin string.
    public static func androidOrigin(signingCertificate: [UInt8]) -> String {
        "android:apk-key-hash:" + Base64URL.encode(Digest.sha256.hash(signingCertificate))
    }

    /// The Android origin from the SHA-256 fingerprint that `keytool -list -v`, `apksigner` or
    /// the Play Console shows (`AB:CD:…`, 32 bytes in hex, colons optional): what
    /// ``AndroidApp/origin`` holds.
    /// - Parameter sha256Fingerprint: the fingerprint text.
    /// - Returns: the origin string.
    /// - Throws: ``WebAuthnError`` `malformed` when the text is not 32 bytes of hex.
    static func androidOrigin(sha256Fingerprint: String) throws(WebAuthnError) -> String {
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in sha256Fingerprint.unicodeScalars where scalar != ":" && scalar != " " {
            guard let nibble = scalar.hexValue else {
                throw WebAuthnError(.malformed, "SHA-256 fingerprint: \"\(scalar)\" is not a hex digit")
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil, bytes.count == 32 else {
            throw WebAuthnError(.malformed, "SHA-256 fingerprint: expected 32 bytes of hex")
        }
        return "android:apk-key-hash:" + Base64URL.encode(bytes)
    }
}

private extension Unicode.Scalar {
    var hexValue: UInt8? {
        switch value {
        case 0x30...0x39: return UInt8(value - 0x30)
        case 0x41...0x46: return UInt8(value - 0x41 + 10)
        case 0x61...0x66: return UInt8(value - 0x61 + 10)
        default: return nil
        }
    }
}
