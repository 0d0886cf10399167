import Foundation
import WebAuthnCrypto

/// Apple's App Attestation Root CA, the anchor of every App Attest attestation's `x5c` chain.
///
/// Published by Apple at https://www.apple.com/certificateauthority/Apple_App_Attestation_Root_CA.pem
/// (subject `CN=Apple App Attestation Root CA, O=Apple Inc., ST=California`, ECDSA P-384, valid
/// 2020-03-18 to 2045-03-15, SHA-256 fingerprint
/// `1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932`). ``AppAttestService``
/// trusts it by default (``KnownAttestationRoots/appleAppAttestationRootCA``); a caller may
/// pass other anchors (tests do).
enum AppAttestRootCA {
    /// The certificate's SHA-256 fingerprint (of its DER), lowercase hexadecimal.
    static let sha256Fingerprint = "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932"

    /// The default trust anchors of App Attest verification: the root alone (empty only if the
    /// embedded bytes failed to parse; the test suite checks that they parse and match the
    /// fingerprint above).
    static var trustAnchors: [Certificate] { parsed.map { [$0] } ?? [] }

    static let parsed: Certificate? = {
        guard let der = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else { return nil }
        return try? Certificate(derEncoded: Array(der))
    }()

    static let base64 = """
        MIICITCCAaegAwIBAgIQC/O+DvHN0uD7jG5yH2IXmDAKBggqhkjOPQQDAzBSMSYw
        JAYDVQQDDB1BcHBsZSBBcHAgQXR0ZXN0YXRpb24gUm9vdCBDQTETMBEGA1UECgwK
        QXBwbGUgSW5jLjETMBEGA1UECAwKQ2FsaWZvcm5pYTAeFw0yMDAzMTgxODMyNTNa
        Fw00NTAzMTUwMDAwMDBaMFIxJjAkBgNVBAMMHUFwcGxlIEFwcCBBdHRlc3RhdGlv
        biBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJbmMuMRMwEQYDVQQIDApDYWxpZm9y
        bmlhMHYwEAYHKoZIzj0CAQYFK4EEACIDYgAERTHhmLW07ATaFQIEVwTtT4dyctdh
        NbJhFs/Ii2FdCgAHGbpphY3+d8qjuDngIN3WVhQUBHAoMeQ/cLiP1sOUtgjqK9au
        Yen1mMEvRq9Sk3Jm5X8U62H+xTD3FE9TgS41o0IwQDAPBgNVHRMBAf8EBTADAQH/
        MB0GA1UdDgQWBBSskRBTM72+aEH/pwyp5frq5eWKoTAOBgNVHQ8BAf8EBAMCAQYw
        CgYIKoZIzj0EAwMDaAAwZQIwQgFGnByvsiVbpTKwSga0kP0e8EeDS4+sQmTvb7vn
        53O5+FRXgeLhpJ06ysC5PrOyAjEAp5U4xDgEgllF7En3VcE3iexZZtKeYnpqtijV
        oyFraWVIyd/dganmrduC1bmTBGwD
        """
}
