import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Verifies Apple App Attest (DeviceCheck `DCAppAttestService`) key attestations and
/// assertions, following Apple's "Validating apps that connect to your server" step by step.
///
/// The stateless core behind ``AppAttestService`` (the front door, which stores keys and advances
/// counters); package access for the fuzz targets. Every rejection is a ``WebAuthnError`` whose
/// step names Apple's step (`App Attest attestation step 4`).
package struct AppAttestVerifier: Sendable {
    /// The app whose instances attest (its App ID gives the `rpIdHash`).
    let app: AppleApp
    /// The environment whose AAGUID attestations must carry.
    let environment: AppAttestEnvironment
    /// The roots an attestation's `x5c` chain must end in.
    let trustAnchors: [Certificate]
    /// Parsed certificates and built keys kept between ceremonies (nil: keep nothing).
    let cache: VerificationCache?

    /// Creates a verifier.
    /// - Parameters:
    ///   - app: Team ID and bundle identifier.
    ///   - environment: `production` for distributed builds, `development` for builds with the
    ///     development entitlement.
    ///   - trustAnchors: the roots to trust.
    ///   - cache: what to keep between ceremonies, or nil.
    package init(
        app: AppleApp, environment: AppAttestEnvironment, trustAnchors: [Certificate],
        cache: VerificationCache? = nil
    ) {
        self.app = app
        self.environment = environment
        self.trustAnchors = trustAnchors
        self.cache = cache
    }
}

/// A verified App Attest key attestation.
public struct VerifiedAppAttestation: Sendable {
    /// The key to store: id, public key, counter 0, receipt (for Apple's fraud-metric
    /// exchange), environment.
    public let key: AttestedAppKey
    /// The attestation's authenticator data.
    package let authenticatorData: AuthenticatorData
    /// The verified chain: credCert, then the intermediate, then the trust anchor.
    package let certificateChain: [Certificate]
}

/// A verified App Attest assertion.
public struct VerifiedAppAssertion: Sendable {
    /// The key with its counter advanced to the assertion's.
    public let updatedKey: AttestedAppKey
    /// The assertion's authenticator data: its 37-byte head read, the rest kept uninterpreted
    /// (`AuthenticatorData(headOf:)`).
    package let authenticatorData: AuthenticatorData
}

/// The parts of an App Attest attestation object (`fmt` `apple-appattest`): the CBOR map
/// `{fmt, attStmt: {x5c: [credCert, intermediate, …], receipt}, authData}`.
struct AppAttestAttestationObject: Sendable {
    /// The whole object, parsed strictly (`AttestationObject`).
    let object: AttestationObject
    /// `attStmt.x5c`, leaf first, parsed.
    let certificates: [Certificate]
    /// `attStmt.receipt`.
    let receipt: [UInt8]
    /// The attested credential data of ``object``'s authenticator data (nil when the AT flag is
    /// clear: Apple's steps 8 and 9 then fail with `attestation`).
    let attested: AttestedCredentialData?

    static let format = "apple-appattest"
    /// The largest receipt kept with a key (not Apple's rule; Apple's receipts are about 4 KB).
    static let maximumReceiptBytes = 65_536

    /// Parses an attestation object.
    /// - Parameters:
    ///   - bytes: the object.
    ///   - certificateCache: parsed certificates to reuse, or nil.
    /// - Throws: `malformed` for bytes that do not parse (CBOR, authenticator data, a
    ///   certificate), `attestation` for another `fmt` or an
    ///   `attStmt` without a two-certificate `x5c` (or with more than 16) or a byte-string `receipt`
    ///   of at most 64 KiB.
    init(bytes: ArraySlice<UInt8>, certificateCache: CertificateCache?) throws(WebAuthnError) {
        // Recent devices (Apple's published sample: iOS 27) append a map (apple_bundle_version_01, …)
        // to the attestation's authData without setting ED; Apple's steps do not read it, and the
        // nonce covers it. Anything else left over is still malformed.
        let object = try AttestationObject(bytes: bytes, unannouncedExtensions: .acceptedAsOneMap)
        guard object.format == Self.format else {
            throw WebAuthnError(.attestation, "fmt is \"\(object.format.prefix(40))\", expected \"\(Self.format)\"")
        }
        let statement = object.statement
        let x5c = statement[textKey: "x5c"]
        if let count = x5c?.array?.count, count < 2 {
            throw WebAuthnError(.attestation, "attStmt.x5c holds \(count) certificate(s); credCert and the intermediate are required")
        }
        // The formats' x5c reader: the same 16-certificate bound, and certificates parsed once per process.
        do {
            certificates = try AttestationContext.certificates(x5c, format: Self.format, cache: certificateCache)
        } catch {
            throw WebAuthnError(error.category, error.message)  // the step is Apple's, not §7.1's
        }
        guard let receipt = statement[textKey: "receipt"]?.bytes else {
            throw WebAuthnError(.attestation, "attStmt.receipt is missing or not a byte string")
        }
        // The receipt is not covered by the nonce and is stored with the key: bounded (Apple's are
        // about 4 KB).
        guard receipt.count <= Self.maximumReceiptBytes else {
            throw WebAuthnError(.attestation, "attStmt.receipt has \(receipt.count) bytes, more than \(Self.maximumReceiptBytes)")
        }
        self.object = object
        self.receipt = Array(receipt)
        self.attested = object.authenticatorData.attestedCredentialData
    }
}

/// The parts of an App Attest assertion: the CBOR map `{signature, authenticatorData}`.
struct AppAttestAssertionObject: Sendable {
    /// The DER ECDSA signature.
    let signature: ArraySlice<UInt8>
    /// The authenticator data, its head read by the WebAuthn reader and the rest uninterpreted:
    /// devices set the AT flag in assertions without attested credential data and append an
    /// extensions map (`apple_bundle_version_01`, …). Apple's steps use only `rpIdHash` and the
    /// counter, and the signature covers every byte.
    let authenticatorData: AuthenticatorData

    /// Parses an assertion.
    /// - Throws: `malformed`: not one CBOR map, a key other than the two text keys, a member
    ///   missing or not a byte string, authenticator data shorter than 37 bytes.
    init(bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        let map = try TextKeyedMap(bytes, keys: ["signature", "authenticatorData"], in: "assertion")
        self.signature = try map.byteString("signature")
        self.authenticatorData = try AuthenticatorData(headOf: map.byteString("authenticatorData"))
    }
}
