/// Where the Android Keystore keeps a key and runs its attestation (the KeyDescription's
/// `SecurityLevel`).
public enum AndroidSecurityLevel: String, Sendable, Hashable, Codable, CaseIterable {
    /// Android's software keystore: the operating system vouches for itself, so nothing is proven.
    case software
    /// A trusted execution environment (TEE) beside the operating system.
    case trustedEnvironment
    /// StrongBox: a separate secure element.
    case strongBox

    /// The level of the schema's ENUMERATED value, nil for a value the schema does not define.
    init?(schemaValue: Int) {
        switch schemaValue {
        case 0: self = .software
        case 1: self = .trustedEnvironment
        case 2: self = .strongBox
        default: return nil
        }
    }
}

/// The state of verified boot when the key was generated (the KeyDescription's `RootOfTrust`).
public enum AndroidVerifiedBootState: String, Sendable, Hashable, Codable, CaseIterable {
    /// The whole boot chain was verified with the device maker's key (or a key the user locked in
    /// that the device shows at boot, which ``AndroidKeyAttestationPolicy`` treats as this).
    case verified
    /// The boot chain was verified with a key the user installed (a custom OS, locked).
    case selfSigned
    /// The bootloader is unlocked: any OS may be running.
    case unverified
    /// Verification failed.
    case failed

    /// The state of the schema's ENUMERATED value, nil for a value the schema does not define.
    init?(schemaValue: Int) {
        switch schemaValue {
        case 0: self = .verified
        case 1: self = .selfSigned
        case 2: self = .unverified
        case 3: self = .failed
        default: return nil
        }
    }
}

/// What an Android key attestation must establish beyond a chain to Google's roots, the challenge
/// and the app: where the key lives, the boot state of the device, and how current its software is.
public struct AndroidKeyAttestationPolicy: Sendable, Hashable {
    /// The security levels accepted, for both the attestation and the keystore (default: TEE and
    /// StrongBox; software attestation proves nothing and is refused).
    public let securityLevels: Set<AndroidSecurityLevel>
    /// Whether the verified boot state must be `verified` (default true).
    public let requireVerifiedBoot: Bool
    /// Whether the bootloader must be locked (default true).
    public let requireLockedBootloader: Bool
    /// The lowest `osVersion` accepted (`MMmmpp`: 140000 is Android 14), or nil.
    public let minimumOSVersion: Int?
    /// The lowest `osPatchLevel` accepted (`YYYYMM`: 202501), or nil.
    public let minimumPatchLevel: Int?

    /// Creates a policy.
    /// - Parameters:
    ///   - securityLevels: the levels accepted (default TEE and StrongBox; `[.strongBox]` asks for
    ///     a secure element).
    ///   - requireVerifiedBoot: refuse a device whose boot state is not `verified` (default true).
    ///   - requireLockedBootloader: refuse a device whose bootloader is unlocked (default true).
    ///   - minimumOSVersion: the lowest OS version (`MMmmpp`), nil (default) for any.
    ///   - minimumPatchLevel: the lowest OS patch level (`YYYYMM`), nil (default) for any.
    public init(
        securityLevels: Set<AndroidSecurityLevel> = [.trustedEnvironment, .strongBox],
        requireVerifiedBoot: Bool = true, requireLockedBootloader: Bool = true,
        minimumOSVersion: Int? = nil, minimumPatchLevel: Int? = nil
    ) {
        self.securityLevels = securityLevels
        self.requireVerifiedBoot = requireVerifiedBoot
        self.requireLockedBootloader = requireLockedBootloader
        self.minimumOSVersion = minimumOSVersion
        self.minimumPatchLevel = minimumPatchLevel
    }
}
