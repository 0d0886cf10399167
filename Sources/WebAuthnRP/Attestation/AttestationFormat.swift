import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Everything an attestation statement format's verification procedure is given
/// (W3C L3 §6.5: attStmt, authenticatorData and clientDataHash), plus the formats' options.
struct AttestationContext: Sendable {
    /// The identifier of the format whose procedure reads this context: every message starts with it.
    var format: String
    /// The `attStmt` item (a map for every format but `compound`).
    var statement: CBORItem
    /// The parsed authenticator data (its `rawBytes` are what was signed).
    let authenticatorData: AuthenticatorData
    /// SHA-256 of the clientDataJSON bytes.
    let clientDataHash: [UInt8]
    /// The credential public key from the attested credential data.
    let credentialKey: COSEKey
    /// The attested credential data (AAGUID, credential id).
    let attestedCredential: AttestedCredentialData
    /// The options of the formats that have any (Android Key lists, SafetyNet window, compound
    /// all/any, TPM rules), each read only by its own format.
    let options: AttestationFormatOptions
    /// Formats the policy accepts at all (nil: every supported format); `compound` holds its
    /// sub-statements to it.
    let allowedFormats: Set<String>?
    /// The clock for certificate and timestamp checks.
    let verificationTime: Date
    /// The format table, for formats that nest others (compound).
    let formats: AttestationFormatTable
    /// Parsed certificates kept across registrations (nil: parse every time).
    var certificateCache: CertificateCache? = nil

    /// authenticatorData || clientDataHash: what most formats sign.
    var signedData: [UInt8] { Array(authenticatorData.rawBytes) + clientDataHash }
}

/// What a format's verification procedure established.
struct AttestationOutcome: Sendable {
    /// The attestation type.
    var type: AttestationType
    /// The attestation trust path, leaf first (empty for none and self).
    var trustPath: [Certificate]
    /// For compound attestation: the outcome of each sub-statement that verified.
    var components: [ComponentOutcome] = []
    /// Facts the format established about the authenticator (e.g. TPM manufacturer).
    var details: [String: String] = [:]

    struct ComponentOutcome: Sendable {
        var format: String
        var outcome: AttestationOutcome
    }
}

/// One attestation statement format's verification procedure (W3C L3 §8).
protocol AttestationFormat: Sendable {
    /// The format identifier as it appears in `fmt` (case-sensitive).
    var identifier: String { get }
    /// Whether a statement of this format that verified vouches for the AAGUID of the
    /// authenticator data: its signature (or the nonce its certificate carries) covers
    /// `authenticatorData`. Only then may the AAGUID choose the metadata entry whose roots judge
    /// the statement's chain; otherwise the attestation certificate's key identifier does
    /// (``MetadataTrust``). Packed and TPM additionally hold the certificate's
    /// id-fido-gen-ce-aaguid extension, when present, to the same AAGUID.
    var attestsAAGUID: Bool { get }
    /// Verifies the statement.
    /// - Throws: ``WebAuthnError`` with category `attestation` when it does not verify.
    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome
}

/// The formats the verifier knows, chosen by `fmt` string. A format not in the table
/// is rejected with category `attestation` (§7.1 step 22).
struct AttestationFormatTable: Sendable {
    private let formats: [String: any AttestationFormat]

    init(_ formats: [any AttestationFormat]) {
        var table: [String: any AttestationFormat] = [:]
        for format in formats { table[format.identifier] = format }
        self.formats = table
    }

    /// Every format of W3C WebAuthn L3 §8 this library verifies.
    static let standard = AttestationFormatTable(AttestationFormatList.all)

    /// The format with this identifier (exact, case-sensitive match).
    func format(_ identifier: String) -> (any AttestationFormat)? { formats[identifier] }
}

extension AttestationContext {
    /// The most certificates an attestation chain (`x5c`, a SafetyNet JWS header's `x5c`, an App
    /// Attest `x5c`) may hold. Not a spec rule: real chains hold 1 to 5 (a Pixel's remotely
    /// provisioned chain is the longest seen), and each certificate costs a DER parse and a
    /// candidate in libcrypto's path building, so 1,500 distinct ones in an 870 KB response cost
    /// 0.2 s of CPU before the cap.
    static let maximumChainCertificates = 16

    /// An `attestation` error for a chain longer than ``maximumChainCertificates``, checked before any
    /// certificate is parsed.
    static func checkChainLength(_ count: Int, _ name: String, format: String) throws(WebAuthnError) {
        guard count <= maximumChainCertificates else {
            throw failure(format, "\(name) holds \(count) certificates, more than \(maximumChainCertificates)")
        }
    }

    /// An `attestation` error for this format.
    static func failure(_ format: String, _ message: String) -> WebAuthnError {
        WebAuthnError(.attestation, step: "§7.1 step 23", "\(format): \(message)")
    }

    /// A required member read as one CBOR type. An absent member and a member of another type are
    /// different faults and get different messages ("… is missing", "… is not …").
    /// - Parameters:
    ///   - item: the member, nil when absent.
    ///   - name: its name in messages (`ver`, `attStmt[1].fmt`).
    ///   - kind: the expected type in words (`a byte string`).
    ///   - format: the attestation format, for the message prefix.
    ///   - read: the typed accessor (`\.bytes`, `\.text`, …).
    static func member<T>(
        _ item: CBORItem?, _ name: String, is kind: String, format: String,
        _ read: (CBORItem) -> T?
    ) throws(WebAuthnError) -> T {
        guard let item else { throw failure(format, "\(name) is missing") }
        guard let value = read(item) else { throw failure(format, "\(name) is not \(kind)") }
        return value
    }

    /// Parses an `x5c` array of DER certificates (leaf first), through `cache` when given.
    static func certificates(
        _ item: CBORItem?, format: String,
        cache certificateCache: CertificateCache?
    ) throws(WebAuthnError) -> [Certificate] {
        let array = try Self.member(item, "x5c", is: "an array", format: format) { $0.array }
        guard !array.isEmpty else { throw Self.failure(format, "x5c is an empty array") }
        try Self.checkChainLength(array.count, "x5c", format: format)
        var certificates: [Certificate] = []
        for (index, element) in array.enumerated() {
            guard let der = element.bytes else { throw Self.failure(format, "x5c[\(index)] is not a byte string") }
            do {
                if let certificateCache {
                    certificates.append(try certificateCache.certificate(derEncoded: der))
                } else {
                    certificates.append(try Certificate(derEncoded: der))
                }
            } catch {
                // A certificate that does not parse is a structure that does not parse: `malformed`.
                throw WebAuthnError(.malformed, step: "§7.1 step 23", "\(format): x5c[\(index)] does not parse: \(error)")
            }
        }
        return certificates
    }
}

// The statement as the running format reads it: every §8 procedure opens with "Verify that attStmt
// is valid CBOR conforming to the syntax defined above and perform CBOR decoding on it to extract the
// contained fields", and these readers are that step, member by member, with the format's name on
// every message.
extension AttestationContext {
    /// An `attestation` error from the running format.
    func failure(_ message: String) -> WebAuthnError { Self.failure(format, message) }

    /// Requires the statement to be a map (every format's syntax but `compound`'s).
    func requireMapStatement() throws(WebAuthnError) {
        guard statement.mapEntries != nil else { throw failure("attStmt is not a map") }
    }

    /// A required statement member read as one CBOR type (see the static form).
    func member<T>(_ name: String, is kind: String, _ read: (CBORItem) -> T?) throws(WebAuthnError) -> T {
        try Self.member(statement[textKey: name], name, is: kind, format: format, read)
    }

    /// The `alg` member as a COSE algorithm.
    func algorithm() throws(WebAuthnError) -> COSEAlgorithm {
        COSEAlgorithm(rawValue: try member("alg", is: "an integer") { $0.int })
    }

    /// The `sig` member's bytes.
    func signature() throws(WebAuthnError) -> ArraySlice<UInt8> {
        try member("sig", is: "a byte string") { $0.bytes }
    }

    /// The `x5c` member through the certificate cache: its first certificate (the one that attests)
    /// and the whole chain, leaf first.
    func certificates() throws(WebAuthnError) -> (leaf: Certificate, chain: [Certificate]) {
        let chain = try Self.certificates(statement[textKey: "x5c"], format: format, cache: certificateCache)
        guard let leaf = chain.first else { throw failure("x5c is an empty array") }
        return (leaf, chain)
    }

    /// Verifies `signature` over `data` with `key` and `algorithm`; false and errors become `attestation`.
    func requireSignature(
        _ signature: ArraySlice<UInt8>, over data: [UInt8], key: PublicKey,
        algorithm: COSEAlgorithm, signer: String,
        options: COSEKeyOptions = .default
    ) throws(WebAuthnError) {
        let valid: Bool
        do {
            valid = try key.verify(signature: signature, over: data[...], algorithm: algorithm, options: options)
        } catch {
            throw failure("\(signer) signature could not be checked: \(error)")
        }
        guard valid else { throw failure("\(signer) signature does not verify") }
    }
}
