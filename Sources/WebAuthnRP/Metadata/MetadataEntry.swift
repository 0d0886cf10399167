public import Foundation

/// An authenticator status from the FIDO Metadata Service (MDS3 `AuthenticatorStatus`).
///
/// Kept as text so that a status this library does not know yet still reaches the caller;
/// the known values are constants.
public struct AuthenticatorStatus: OpenStringValue {
    /// The status as written in the BLOB, for example `FIDO_CERTIFIED_L1`.
    public let rawValue: String

    /// Wraps a status text.
    /// - Parameter rawValue: the status as written in the BLOB.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Not certified by the FIDO Alliance.
    static let notFIDOCertified = AuthenticatorStatus(rawValue: "NOT_FIDO_CERTIFIED")
    /// Certified (before levels existed; counts as level 1).
    static let fidoCertified = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED")
    /// Malware can bypass user verification.
    static let userVerificationBypass = AuthenticatorStatus(rawValue: "USER_VERIFICATION_BYPASS")
    /// An attestation key of this model is compromised.
    static let attestationKeyCompromise = AuthenticatorStatus(rawValue: "ATTESTATION_KEY_COMPROMISE")
    /// Credential keys can be extracted remotely.
    static let userKeyRemoteCompromise = AuthenticatorStatus(rawValue: "USER_KEY_REMOTE_COMPROMISE")
    /// Credential keys can be extracted with physical access.
    static let userKeyPhysicalCompromise = AuthenticatorStatus(rawValue: "USER_KEY_PHYSICAL_COMPROMISE")
    /// A firmware update is available.
    static let updateAvailable = AuthenticatorStatus(rawValue: "UPDATE_AVAILABLE")
    /// The FIDO Alliance revoked the model's certification.
    static let revoked = AuthenticatorStatus(rawValue: "REVOKED")
    /// The vendor submitted a self-assertion.
    static let selfAssertionSubmitted = AuthenticatorStatus(rawValue: "SELF_ASSERTION_SUBMITTED")
    /// Certified at level 1.
    static let fidoCertifiedL1 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L1")
    /// Certified at level 1+.
    static let fidoCertifiedL1plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L1plus")
    /// Certified at level 2.
    static let fidoCertifiedL2 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L2")
    /// Certified at level 2+.
    static let fidoCertifiedL2plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L2plus")
    /// Certified at level 3.
    static let fidoCertifiedL3 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L3")
    /// Certified at level 3+.
    static let fidoCertifiedL3plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L3plus")

    /// The statuses that mean the authenticator must not be trusted (the default refusal set).
    public static let compromised: Set<AuthenticatorStatus> = [
        .revoked, .attestationKeyCompromise, .userVerificationBypass, .userKeyRemoteCompromise, .userKeyPhysicalCompromise,
    ]

    /// The certification level this status states, or nil when it states none.
    public var certificationLevel: CertificationLevel? {
        switch rawValue {
        case "FIDO_CERTIFIED", "FIDO_CERTIFIED_L1": return .l1
        case "FIDO_CERTIFIED_L1plus": return .l1plus
        case "FIDO_CERTIFIED_L2": return .l2
        case "FIDO_CERTIFIED_L2plus": return .l2plus
        case "FIDO_CERTIFIED_L3": return .l3
        case "FIDO_CERTIFIED_L3plus": return .l3plus
        default: return nil
        }
    }
}

/// A FIDO authenticator certification level, ordered from weakest to strongest (the order of
/// the cases, which `Comparable` follows).
public enum CertificationLevel: Sendable, Comparable, CaseIterable {
    /// Level 1.
    case l1
    /// Level 1+.
    case l1plus
    /// Level 2.
    case l2
    /// Level 2+.
    case l2plus
    /// Level 3.
    case l3
    /// Level 3+.
    case l3plus
}

/// One status report of a metadata entry (MDS3 `StatusReport`): the status and when it took
/// effect. The report's other members are in the entry's ``MetadataEntry/json``.
public struct MetadataStatusReport: Sendable, Hashable {
    /// The status.
    public let status: AuthenticatorStatus
    /// When the status took effect (`effectiveDate`), if given.
    public let effectiveDate: Date?
    /// The authenticator version the report applies to (and earlier), if given.
    let authenticatorVersion: UInt32?
    /// The certificate the report concerns (`certificate`, DER), if given. For
    /// `ATTESTATION_KEY_COMPROMISE` it names the leaked attestation key: only chains holding a
    /// certificate with that key are refused (without it, every chain of the entry is).
    let certificate: [UInt8]?
}

/// One way of verifying the user that an authenticator offers (MDS3 `VerificationMethodDescriptor`).
struct UserVerificationMethod: Sendable, Hashable {
    /// The method, for example `presence_internal`, `fingerprint_internal`, `passcode_external`.
    let method: String
}

/// The parts of a metadata statement (MDS3 `MetadataStatement`) the library reads: what it
/// decides on, and the name and icon an entry shows (``MetadataEntry/name``,
/// ``MetadataEntry/icon``). Every member as written is in the entry's ``MetadataEntry/json``
/// (`metadataStatement`).
package struct MetadataStatement: Sendable {
    /// The authenticator's name for people (`description`); empty when the statement has none
    /// that is text.
    let description: String
    /// The icon, a `data:` URL, if given.
    let icon: String?
    /// The firmware version the statement describes (`authenticatorVersion`); 0 when it is
    /// absent or not an unsigned 32-bit integer (descriptive members never cost the entry).
    let authenticatorVersion: UInt32
    /// `protocolFamily`: `fido2`, `u2f` or `uaf`.
    let protocolFamily: String
    /// The attestation types the authenticator supports (`basic_full`, `basic_surrogate`,
    /// `attca`, `anonca`, `none`, `ecdaa`).
    package let attestationTypes: [String]
    /// The attestation root certificates, DER (the trust anchors for this authenticator).
    let attestationRootCertificates: [[UInt8]]
    /// Key protection (`software`, `hardware`, `tee`, `secure_element`, `remote_handle`).
    let keyProtection: [String]
    /// User verification: alternatives (OR) of combinations (AND) of methods.
    let userVerificationDetails: [[UserVerificationMethod]]
}

/// One authenticator in a verified metadata BLOB (MDS3 `MetadataBLOBPayloadEntry`).
public struct MetadataEntry: Sendable {
    /// The AAGUID (FIDO2 authenticators), if given.
    public let aaguid: AAGUID?
    /// The attestation certificate key identifiers (fido-u2f): lowercase hex SHA-1 of the
    /// certificates' subject public keys.
    package let attestationCertificateKeyIdentifiers: [String]
    /// The metadata statement, if the entry has one.
    package let statement: MetadataStatement?
    /// The status reports, in the BLOB's order.
    let statusReports: [MetadataStatusReport]
    /// The entry as the signed BLOB wrote it (`MetadataBLOBPayloadEntry`): every member of the
    /// statement and the status reports, including those this library does not read
    /// (`keyProtection`, `userVerificationDetails`, `timeOfLastStatusChange`, a report's `url`).
    public let json: JSONValue

    /// The latest status report, whatever its date: one of ``currentStatusReports(at:)``
    /// without a time. Among reports of one date, a status that is not a certification
    /// (a compromise, a revocation, an update) is preferred, then the highest certification;
    /// then the one written first. Nil when the entry has no reports.
    public let latestStatusReport: MetadataStatusReport?

    /// The latest status, if any.
    var status: AuthenticatorStatus? { latestStatusReport?.status }

    /// The certification level in effect, whatever the reports' dates:
    /// ``certificationLevel(at:)`` without a time.
    let certificationLevel: CertificationLevel?

    /// The name to show: the metadata statement's `description`, if any and not empty.
    public var name: String? { statement.flatMap { $0.description.isEmpty ? nil : $0.description } }
    /// The icon to show: the metadata statement's `icon`, a `data:` URL, if given.
    public var icon: String? { statement?.icon }

    init(
        aaguid: AAGUID?, attestationCertificateKeyIdentifiers: [String], statement: MetadataStatement?,
        statusReports: [MetadataStatusReport], json: JSONValue
    ) {
        self.aaguid = aaguid
        self.attestationCertificateKeyIdentifiers = attestationCertificateKeyIdentifiers
        self.statement = statement
        self.statusReports = statusReports
        self.json = json
        let current = Self.inEffect(statusReports, at: nil)
        latestStatusReport = current.max { Self.rank($0) < Self.rank($1) }
        certificationLevel = Self.certificationLevel(of: statusReports, at: nil)
    }

    /// The status reports in effect at `time`: those of the latest `effectiveDate` not after
    /// `time` (several reports may share it; the BLOB often lists `FIDO_CERTIFIED_L2` and
    /// `FIDO_CERTIFIED` under one date), and every report without a date, which MDS3 says is
    /// "effective while present". A report dated after `time` is not in effect yet.
    /// - Parameter time: the verification time, or nil to take every report as in effect.
    /// - Returns: the reports in effect, in the BLOB's order.
    public func currentStatusReports(at time: Date?) -> [MetadataStatusReport] {
        Self.inEffect(statusReports, at: time)
    }

    /// The certification level in effect at `time`, from the reports that state one or state
    /// `NOT_FIDO_CERTIFIED` or `REVOKED`, taken as ``currentStatusReports(at:)`` takes them:
    /// nil when one in effect is `NOT_FIDO_CERTIFIED` or `REVOKED`, else the highest level
    /// stated (`FIDO_CERTIFIED` counts as level 1).
    /// - Parameter time: the verification time, or nil to take every report as in effect.
    /// - Returns: the level, or nil when none is in effect.
    public func certificationLevel(at time: Date?) -> CertificationLevel? {
        Self.certificationLevel(of: statusReports, at: time)
    }

    private static func inEffect(_ reports: [MetadataStatusReport], at time: Date?) -> [MetadataStatusReport] {
        let dated = reports.compactMap(\.effectiveDate).filter { date in time.map { date <= $0 } ?? true }
        let latest = dated.max()
        return reports.filter { report in
            guard let date = report.effectiveDate else { return true }
            return date == latest
        }
    }

    private static func certificationLevel(of reports: [MetadataStatusReport], at time: Date?) -> CertificationLevel? {
        let ending: Set<AuthenticatorStatus> = [.notFIDOCertified, .revoked]
        let current = inEffect(reports.filter { $0.status.certificationLevel != nil || ending.contains($0.status) }, at: time)
        guard !current.contains(where: { ending.contains($0.status) }) else { return nil }
        return current.compactMap(\.status.certificationLevel).max()
    }

    /// Orders reports of one date for ``latestStatusReport`` (highest first): a compromise or
    /// revocation, then any other status that is not a certification, then certifications by level.
    private static func rank(_ report: MetadataStatusReport) -> Int {
        if AuthenticatorStatus.compromised.contains(report.status) { return 2_000 }
        guard let level = report.status.certificationLevel else { return 1_000 }
        return CertificationLevel.allCases.firstIndex(of: level) ?? 0
    }
}
