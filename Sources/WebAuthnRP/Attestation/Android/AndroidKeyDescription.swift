import WebAuthnCoding
import WebAuthnCrypto

/// The Android key attestation certificate extension (OID 1.3.6.1.4.1.11129.2.1.17),
/// read as far as `android-key` attestation needs it.
///
/// ```
/// KeyDescription ::= SEQUENCE {
///     attestationVersion        INTEGER,
///     attestationSecurityLevel  SecurityLevel,   -- ENUMERATED
///     keymasterVersion          INTEGER,         -- keyMintVersion in newer schemas
///     keymasterSecurityLevel    SecurityLevel,   -- ENUMERATED
///     attestationChallenge      OCTET STRING,
///     uniqueId                  OCTET STRING,
///     softwareEnforced          AuthorizationList,
///     teeEnforced               AuthorizationList }   -- hardwareEnforced in newer schemas
/// ```
///
/// The layout of these eight fields is the same in every schema version so far
/// (1 through 4, 100, 200, 300, 400); elements after the eighth are ignored so a
/// future version that appends fields still parses.
struct AndroidKeyDescription: Sendable, Equatable {
    /// OID of the extension.
    static let extensionOID = "1.3.6.1.4.1.11129.2.1.17"

    var attestationVersion: Int
    var attestationSecurityLevel: Int
    var keymasterVersion: Int
    var keymasterSecurityLevel: Int
    var attestationChallenge: [UInt8]
    var uniqueId: [UInt8]
    var softwareEnforced: AndroidAuthorizationList
    var teeEnforced: AndroidAuthorizationList

    /// Parses the extension value (the DER inside the extnValue OCTET STRING).
    /// - Throws: ``DERError`` naming the element that does not fit the schema.
    init(derEncoded: [UInt8]) throws(DERError) {
        let root = try DER.parse(derEncoded)
        let fields = try root.sequence()
        guard fields.count >= 8 else {
            throw DERError(
                .unexpectedElementCount, offset: root.offset,
                "KeyDescription has \(fields.count) elements, at least 8 are required")
        }
        attestationVersion = try fields[0].integer()
        attestationSecurityLevel = try fields[1].enumerated()
        keymasterVersion = try fields[2].integer()
        keymasterSecurityLevel = try fields[3].enumerated()
        attestationChallenge = Array(try fields[4].octetString())
        uniqueId = Array(try fields[5].octetString())
        softwareEnforced = try AndroidAuthorizationList(node: fields[6])
        teeEnforced = try AndroidAuthorizationList(node: fields[7])
    }
}

/// The parts of an `AuthorizationList` that WebAuthn looks at.
///
/// `AuthorizationList` is a SEQUENCE of optional fields, each with its own EXPLICIT
/// context tag (`[1]` purpose … `[702]` origin …). Fields this type does not read
/// are skipped whatever their tag number, since every schema version adds some.
/// A field read here that appears twice is refused.
struct AndroidAuthorizationList: Sendable, Equatable {
    /// `purpose [1] EXPLICIT SET OF INTEGER`, nil when absent.
    var purposes: [Int]?
    /// Whether `allApplications [600] EXPLICIT NULL` is present.
    var allApplications: Bool
    /// `origin [702] EXPLICIT INTEGER`, nil when absent.
    var origin: Int?

    static let purposeTag: UInt32 = 1
    static let allApplicationsTag: UInt32 = 600
    static let originTag: UInt32 = 702

    /// KM_ORIGIN_GENERATED: the key was generated inside Keymaster/KeyMint.
    static let originGenerated = 0
    /// KM_PURPOSE_SIGN.
    static let purposeSign = 2

    init(purposes: [Int]? = nil, allApplications: Bool = false, origin: Int? = nil) {
        self.purposes = purposes
        self.allApplications = allApplications
        self.origin = origin
    }

    /// Reads an `AuthorizationList` SEQUENCE.
    /// - Throws: ``DERError`` when it is not a SEQUENCE of context-tagged fields, a
    ///   field read here is malformed, or appears twice.
    init(node: DERNode) throws(DERError) {
        var purposes: [Int]?
        var allApplications = false
        var origin: Int?
        var seen: Set<UInt32> = []
        for field in try node.sequence() {
            // Every field of the schema is EXPLICIT, so context-specific and constructed.
            guard field.tag.tagClass == .contextSpecific, field.tag.isConstructed else {
                throw DERError(
                    .unexpectedTag, offset: field.offset,
                    "AuthorizationList field \(field.tag) is not an explicit context tag")
            }
            let number = field.tag.number
            switch number {
            case Self.purposeTag, Self.allApplicationsTag, Self.originTag:
                guard seen.insert(number).inserted else {
                    throw DERError(.invalidValue, offset: field.offset, "AuthorizationList field [\(number)] appears twice")
                }
            default:
                continue
            }
            switch number {
            case Self.purposeTag:
                var values: [Int] = []
                for element in try field.explicitlyTagged(number).set() {
                    values.append(try element.integer())
                }
                purposes = values
            case Self.allApplicationsTag:
                try field.explicitlyTagged(number).null()
                allApplications = true
            default:
                origin = try field.explicitlyTagged(number).integer()
            }
        }
        self.purposes = purposes
        self.allApplications = allApplications
        self.origin = origin
    }
}
