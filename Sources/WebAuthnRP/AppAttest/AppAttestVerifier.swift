import Foundation
import WebAuthnCoding
public import WebAuthnCrypto

/// Verifies Apple App Attest (DeviceCheck `DCAppAttestService`) key attestations and
/// assertions, following Apple's "Validating apps that connect to your server" step by step.
///
/// Stateless: it neither stores keys nor tracks counters (``AppAttestService`` does, through an
/// ``AppAttestKeyStore``). Every rejection is a ``WebAuthnError`` whose step names Apple's step
/// (`App Attest attestation step 4`), and the `…Report` forms return the step trace (package-only: the replay's `--explain` reads it).
public struct AppAttestVerifier: Sendable {
    /// The app whose instances attest (its App ID gives the `rpIdHash`).
    public let app: AppAttestApp
    /// The environment whose AAGUID attestations must carry.
    public let environment: AppAttestEnvironment
    /// The roots an attestation's `x5c` chain must end in: ``AppAttestRootCA`` by default.
    public let trustAnchors: [Certificate]

    /// Creates a verifier.
    /// - Parameters:
    ///   - app: Team ID and bundle identifier.
    ///   - environment: `production` for distributed builds, `development` for builds with the
    ///     development entitlement.
    ///   - trustAnchors: the roots to trust (default: Apple's App Attestation Root CA alone).
    public init(app: AppAttestApp, environment: AppAttestEnvironment,
                trustAnchors: [Certificate] = AppAttestRootCA.trustAnchors) {
        self.app = app
        self.environment = environment
        self.trustAnchors = trustAnchors
    }
}

/// A verified App Attest key attestation.
public struct VerifiedAppAttestation: Sendable {
    /// The key to store: id, public key, counter 0, receipt, environment.
    public let key: AttestedAppKey
    /// The attestation's authenticator data.
    package let authenticatorData: AuthenticatorData
    /// The verified chain: credCert, then the intermediate, then the trust anchor.
    public let certificateChain: [Certificate]
    /// The receipt (`attStmt.receipt`) to keep for Apple's fraud-metric exchange.
    public var receipt: [UInt8] { key.receipt }
    /// The environment the attestation came from.
    public var environment: AppAttestEnvironment { key.environment }
}

/// A verified App Attest assertion.
public struct VerifiedAppAssertion: Sendable {
    /// The key with its counter advanced to the assertion's.
    public let updatedKey: AttestedAppKey
    /// The assertion's authenticator data.
    package let authenticatorData: AppAttestAssertionAuthenticatorData
    /// The assertion's counter.
    public var signCount: UInt32 { authenticatorData.signCount }
}

/// The authenticator data of an App Attest assertion: `rpIdHash` (32) ‖ flags (1) ‖ counter (4,
/// big-endian) ‖ what the device adds.
///
/// Read leniently after the first 37 bytes, unlike WebAuthn authenticator data: devices set the
/// AT flag in assertions without attested credential data and append an extensions map
/// (`apple_bundle_version_01`, …). Apple's steps use only `rpIdHash` and the counter, and the
/// signature covers every byte, so the rest is kept (``rawBytes``) but not interpreted.
package struct AppAttestAssertionAuthenticatorData: Sendable {
    /// Exactly the bytes received (signed through the nonce).
    package let rawBytes: ArraySlice<UInt8>
    /// SHA-256 of the App ID.
    package let rpIdHash: ArraySlice<UInt8>
    /// The flags byte (not interpreted).
    package let flags: UInt8
    /// The counter.
    package let signCount: UInt32

    /// Reads the fixed 37-byte head.
    /// - Parameter bytes: the received bytes.
    /// - Throws: `malformed` when fewer than 37 bytes arrive.
    package init(bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        guard bytes.count >= AuthenticatorData.minimumLength else {
            throw WebAuthnError(.malformed, "assertion authenticatorData: \(bytes.count) byte(s); at least \(AuthenticatorData.minimumLength) are required")
        }
        let start = bytes.startIndex
        rawBytes = bytes
        rpIdHash = bytes[start..<start + 32]
        flags = bytes[start + 32]
        signCount = bytes[start + 33..<start + 37].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// The parts of an App Attest attestation object (`fmt` `apple-appattest`): the CBOR map
/// `{fmt, attStmt: {x5c: [credCert, intermediate, …], receipt}, authData}`.
///
/// Package access: the fuzz targets parse hostile objects through it.
package struct AppAttestAttestationObject: Sendable {
    /// The whole object, parsed strictly (`AttestationObject`).
    package let object: AttestationObject
    /// `attStmt.x5c`, leaf first, parsed.
    package let certificates: [Certificate]
    /// `attStmt.receipt`.
    package let receipt: [UInt8]
    /// The attested credential data of ``object``'s authenticator data (nil when the AT flag is
    /// clear: Apple's steps 8 and 9 then fail with `attestation`).
    package let attested: AttestedCredentialData?

    static let format = "apple-appattest"
    /// The largest receipt kept with a key (not Apple's rule; Apple's receipts are about 4 KB).
    static let maximumReceiptBytes = 65_536

    /// Parses an attestation object.
    /// - Throws: `malformed` for bytes that do not parse (CBOR, authenticator data, a
    ///   certificate), `attestation` for another `fmt` or an
    ///   `attStmt` without a two-certificate `x5c` (or with more than 16) or a byte-string `receipt`
    ///   of at most 64 KiB.
    package init(bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        // Recent devices (Apple's published sample: iOS 27) append a map (apple_bundle_version_01, …)
        // to the attestation's authData without setting ED; Apple's steps do not read it, and the
        // nonce covers it. Anything else left over is still malformed.
        let object = try AttestationObject(bytes: bytes, unannouncedExtensions: .acceptedAsOneMap)
        guard object.format == Self.format else {
            throw WebAuthnError(.attestation, "fmt is \"\(object.format.prefix(40))\", expected \"\(Self.format)\"")
        }
        let statement = object.statement
        guard let x5c = statement[textKey: "x5c"]?.array else {
            throw WebAuthnError(.attestation, "attStmt.x5c is missing or not an array")
        }
        guard x5c.count >= 2 else {
            throw WebAuthnError(.attestation, "attStmt.x5c holds \(x5c.count) certificate(s); credCert and the intermediate are required")
        }
        guard x5c.count <= AttestationContext.maximumChainCertificates else {
            throw WebAuthnError(.attestation, "attStmt.x5c holds \(x5c.count) certificates, more than \(AttestationContext.maximumChainCertificates)")
        }
        var certificates: [Certificate] = []
        for (index, element) in x5c.enumerated() {
            guard let der = element.bytes else {
                throw WebAuthnError(.attestation, "attStmt.x5c[\(index)] is not a byte string")
            }
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                throw WebAuthnError(.malformed, "attStmt.x5c[\(index)] does not parse: \(error)")
            }
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
        self.certificates = certificates
        self.receipt = Array(receipt)
        self.attested = object.authenticatorData.attestedCredentialData
    }
}

/// The parts of an App Attest assertion: the CBOR map `{signature, authenticatorData}`.
///
/// Package access: the fuzz targets parse hostile assertions through it.
package struct AppAttestAssertionObject: Sendable {
    /// The DER ECDSA signature.
    package let signature: ArraySlice<UInt8>
    /// The authenticator data.
    package let authenticatorData: AppAttestAssertionAuthenticatorData

    /// Parses an assertion.
    /// - Throws: `malformed`: not one CBOR map, a key other than the two text keys, a member
    ///   missing or not a byte string, authenticator data shorter than 37 bytes.
    package init(bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        let item: CBORItem
        do {
            item = try CBOR.decode(bytes)
        } catch {
            throw WebAuthnError(.malformed, "assertion: \(error)")
        }
        guard let entries = item.mapEntries else {
            throw WebAuthnError(.malformed, "assertion: the top-level item is not a CBOR map")
        }
        var signature: ArraySlice<UInt8>?
        var authData: ArraySlice<UInt8>?
        for entry in entries {
            switch entry.key.text {
            case "signature":
                guard signature == nil, let value = entry.value.bytes else {
                    throw WebAuthnError(.malformed, "assertion: signature is repeated or not a byte string")
                }
                signature = value
            case "authenticatorData":
                guard authData == nil, let value = entry.value.bytes else {
                    throw WebAuthnError(.malformed, "assertion: authenticatorData is repeated or not a byte string")
                }
                authData = value
            default:
                throw WebAuthnError(.malformed, "assertion: unexpected key (only signature and authenticatorData are allowed)")
            }
        }
        guard let signature else { throw WebAuthnError(.malformed, "assertion: signature is missing") }
        guard let authData else { throw WebAuthnError(.malformed, "assertion: authenticatorData is missing") }
        self.signature = signature
        self.authenticatorData = try AppAttestAssertionAuthenticatorData(bytes: authData)
    }
}
