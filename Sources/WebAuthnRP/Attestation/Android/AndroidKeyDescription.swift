import WebAuthnCoding
import WebAuthnCrypto

/// The Android key attestation certificate extension (OID 1.3.6.1.4.1.11129.2.1.17): what the
/// Keystore (Keymaster, then KeyMint) says about a key it generated. Read for the `android-key`
/// WebAuthn format and for the key attestation of an app's own key (`AndroidKeyAttestation/`).
///
/// ```
/// KeyDescription ::= SEQUENCE {
///     attestationVersion        INTEGER,         -- 1 (Keymaster 2) … 4, 100, 200, 300, 400 (KeyMint 4)
///     attestationSecurityLevel  SecurityLevel,   -- ENUMERATED
///     keymasterVersion          INTEGER,         -- keyMintVersion in newer schemas
///     keymasterSecurityLevel    SecurityLevel,   -- ENUMERATED
///     attestationChallenge      OCTET STRING,
///     uniqueId                  OCTET STRING,
///     softwareEnforced          AuthorizationList,
///     teeEnforced               AuthorizationList }   -- hardwareEnforced in newer schemas
/// ```
///
/// The layout of these eight fields is the same in every schema version so far (1 through 4,
/// 100, 200, 300, 400); elements after the eighth are ignored so a future version that appends
/// fields still parses. Every element is read strictly (DER: minimal lengths and integers,
/// BOOLEAN as 0x00 or 0xFF, no trailing bytes).
struct AndroidKeyDescription: Sendable, Equatable {
    /// OID of the extension.
    static let extensionOID = "1.3.6.1.4.1.11129.2.1.17"

    /// `SecurityLevel ::= ENUMERATED { Software (0), TrustedEnvironment (1), StrongBox (2) }`.
    static let securityLevels = 0...2

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

/// The fields of an `AuthorizationList` that attestation verifiers read.
///
/// `AuthorizationList` is a SEQUENCE of optional fields, each with its own EXPLICIT
/// context tag (`[1]` purpose … `[702]` origin …). Fields this type does not read
/// are skipped whatever their tag number, since every schema version adds some.
/// A field read here that appears twice is refused.
struct AndroidAuthorizationList: Sendable, Equatable {
    /// `purpose [1] EXPLICIT SET OF INTEGER`, nil when absent.
    var purposes: [Int]?
    /// `algorithm [2] EXPLICIT INTEGER` (KM_ALGORITHM_EC is 3), nil when absent.
    var algorithm: Int?
    /// `ecCurve [10] EXPLICIT INTEGER` (P_256 is 1), nil when absent.
    var ecCurve: Int?
    /// Whether `allApplications [600] EXPLICIT NULL` is present.
    var allApplications: Bool
    /// `origin [702] EXPLICIT INTEGER`, nil when absent.
    var origin: Int?
    /// `rootOfTrust [704] EXPLICIT RootOfTrust`, nil when absent.
    var rootOfTrust: AndroidRootOfTrust?
    /// `osVersion [705] EXPLICIT INTEGER` (`MMmmpp`: 140000 is Android 14), nil when absent.
    var osVersion: Int?
    /// `osPatchLevel [706] EXPLICIT INTEGER` (`YYYYMM`), nil when absent.
    var osPatchLevel: Int?
    /// `attestationApplicationId [709] EXPLICIT OCTET STRING`: the DER of an
    /// ``AndroidAttestationApplicationId``, read by the checks that use it (`android-key`
    /// statements do not), nil when absent.
    var attestationApplicationIdDER: [UInt8]?
    /// `vendorPatchLevel [718] EXPLICIT INTEGER` (`YYYYMMDD`), nil when absent.
    var vendorPatchLevel: Int?
    /// `bootPatchLevel [719] EXPLICIT INTEGER` (`YYYYMMDD`), nil when absent.
    var bootPatchLevel: Int?

    static let purposeTag: UInt32 = 1
    static let algorithmTag: UInt32 = 2
    static let ecCurveTag: UInt32 = 10
    static let allApplicationsTag: UInt32 = 600
    static let originTag: UInt32 = 702
    static let rootOfTrustTag: UInt32 = 704
    static let osVersionTag: UInt32 = 705
    static let osPatchLevelTag: UInt32 = 706
    static let attestationApplicationIdTag: UInt32 = 709
    static let vendorPatchLevelTag: UInt32 = 718
    static let bootPatchLevelTag: UInt32 = 719
    /// Every tag this type reads.
    static let readTags: Set<UInt32> = [
        purposeTag, algorithmTag, ecCurveTag, allApplicationsTag, originTag, rootOfTrustTag, osVersionTag,
        osPatchLevelTag, attestationApplicationIdTag, vendorPatchLevelTag, bootPatchLevelTag,
    ]

    /// KM_ORIGIN_GENERATED: the key was generated inside Keymaster/KeyMint.
    static let originGenerated = 0
    /// KM_PURPOSE_SIGN.
    static let purposeSign = 2
    /// KM_PURPOSE_VERIFY.
    static let purposeVerify = 3
    /// KM_ALGORITHM_EC.
    static let algorithmEC = 3
    /// EcCurve P_256.
    static let curveP256 = 1

    init(purposes: [Int]? = nil, allApplications: Bool = false, origin: Int? = nil) {
        self.purposes = purposes
        self.allApplications = allApplications
        self.origin = origin
    }

    /// Reads an `AuthorizationList` SEQUENCE.
    /// - Throws: ``DERError`` when it is not a SEQUENCE of context-tagged fields, a
    ///   field read here is malformed, or appears twice.
    init(node: DERNode) throws(DERError) {
        self.init()
        var seen: Set<UInt32> = []
        for field in try node.sequence() {
            // Every field of the schema is EXPLICIT, so context-specific and constructed.
            guard field.tag.tagClass == .contextSpecific, field.tag.isConstructed else {
                throw DERError(
                    .unexpectedTag, offset: field.offset,
                    "AuthorizationList field \(field.tag) is not an explicit context tag")
            }
            let number = field.tag.number
            guard Self.readTags.contains(number) else { continue }
            guard seen.insert(number).inserted else {
                throw DERError(.invalidValue, offset: field.offset, "AuthorizationList field [\(number)] appears twice")
            }
            let inner = try field.explicitlyTagged(number)
            switch number {
            case Self.purposeTag:
                var values: [Int] = []
                for element in try inner.set() {
                    values.append(try element.integer())
                }
                purposes = values
            case Self.algorithmTag: algorithm = try inner.integer()
            case Self.ecCurveTag: ecCurve = try inner.integer()
            case Self.allApplicationsTag:
                try inner.null()
                allApplications = true
            case Self.originTag: origin = try inner.integer()
            case Self.rootOfTrustTag: rootOfTrust = try AndroidRootOfTrust(node: inner)
            case Self.osVersionTag: osVersion = try inner.integer()
            case Self.osPatchLevelTag: osPatchLevel = try inner.integer()
            case Self.attestationApplicationIdTag:
                attestationApplicationIdDER = Array(try inner.octetString())
            case Self.vendorPatchLevelTag: vendorPatchLevel = try inner.integer()
            default: bootPatchLevel = try inner.integer()
            }
        }
    }
}

/// `RootOfTrust`: the state of verified boot when the key was made.
///
/// ```
/// RootOfTrust ::= SEQUENCE {
///     verifiedBootKey    OCTET STRING,
///     deviceLocked       BOOLEAN,
///     verifiedBootState  VerifiedBootState,   -- ENUMERATED
///     verifiedBootHash   OCTET STRING }       -- from attestation version 3
/// ```
struct AndroidRootOfTrust: Sendable, Equatable {
    var verifiedBootKey: [UInt8]
    var deviceLocked: Bool
    /// Verified (0), SelfSigned (1), Unverified (2), Failed (3).
    var verifiedBootState: Int
    /// Nil in attestation versions 1 and 2, which end the sequence after the state.
    var verifiedBootHash: [UInt8]?

    init(node: DERNode) throws(DERError) {
        let fields = try node.sequence()
        guard fields.count == 3 || fields.count == 4 else {
            throw DERError(
                .unexpectedElementCount, offset: node.offset, "RootOfTrust has \(fields.count) elements, expected 3 or 4")
        }
        verifiedBootKey = Array(try fields[0].octetString())
        deviceLocked = try fields[1].boolean()
        verifiedBootState = try fields[2].enumerated()
        verifiedBootHash = fields.count == 4 ? Array(try fields[3].octetString()) : nil
    }
}

/// `AttestationApplicationId`: the packages of the app that asked for the key (several when
/// they share a user id) and the SHA-256 digests of their signing certificates.
///
/// ```
/// AttestationApplicationId ::= SEQUENCE {
///     packageInfos      SET OF AttestationPackageInfo,
///     signatureDigests  SET OF OCTET STRING }
/// AttestationPackageInfo ::= SEQUENCE { packageName OCTET STRING, version INTEGER }
/// ```
struct AndroidAttestationApplicationId: Sendable, Equatable {
    struct Package: Sendable, Equatable {
        /// The package name (UTF-8).
        var name: String
        var version: Int
    }

    var packages: [Package]
    var signatureDigests: [[UInt8]]

    init(derEncoded: [UInt8]) throws(DERError) {
        let root = try DER.parse(derEncoded)
        let fields = try root.sequence()
        guard fields.count == 2 else {
            throw DERError(
                .unexpectedElementCount, offset: root.offset,
                "AttestationApplicationId has \(fields.count) elements, expected 2")
        }
        var packages: [Package] = []
        for info in try fields[0].set() {
            let members = try info.sequence()
            guard members.count == 2 else {
                throw DERError(
                    .unexpectedElementCount, offset: info.offset,
                    "AttestationPackageInfo has \(members.count) elements, expected 2")
            }
            let nameBytes = try members[0].octetString()
            guard let name = String(validating: nameBytes, as: UTF8.self) else {
                throw DERError(.invalidValue, offset: members[0].offset, "the package name is not UTF-8")
            }
            packages.append(Package(name: name, version: try members[1].integer()))
        }
        var digests: [[UInt8]] = []
        for digest in try fields[1].set() {
            digests.append(Array(try digest.octetString()))
        }
        self.packages = packages
        self.signatureDigests = digests
    }
}

/// The KeyDescription reader for the `android-key-description` fuzz target (package access): the
/// description and, when it carries one, its application id, each read or refused.
package enum AndroidKeyDescriptionReading {
    /// Reads `bytes` as a KeyDescription.
    /// - Parameter bytes: the extension value.
    /// - Returns: `accepted` and every field read, written out (the same bytes must give the same
    ///   text), or `refused` and the parser's error.
    package static func read(_ bytes: [UInt8]) -> String {
        let description: AndroidKeyDescription
        do {
            description = try AndroidKeyDescription(derEncoded: bytes)
        } catch {
            return "refused \(error)"
        }
        var text = "accepted \(description)"
        for list in [description.softwareEnforced, description.teeEnforced] {
            guard let der = list.attestationApplicationIdDER else { continue }
            do {
                text += "\napplication \(try AndroidAttestationApplicationId(derEncoded: der))"
            } catch {
                text += "\napplication refused \(error)"
            }
        }
        return text
    }
}
