// String-backed values for the WebAuthn enumerations that may grow. Each keeps any value, so
// unknown strings from newer clients survive decoding and encoding (WebAuthn Level 3 §2.1.1:
// unknown enumeration values are ignored, not rejected).

/// A WebAuthn enumeration kept open: any string is a value, known or not, and the known ones are
/// static constants. A conforming type declares its `rawValue`, `init(rawValue:)` and constants;
/// `description` comes from here, and `Codable` from the standard library's support for
/// `RawRepresentable` over `String` (a JSON string, never refused).
public protocol OpenStringValue: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible
where RawValue == String {
    /// Wraps any string, known or not.
    init(rawValue: String)
}

extension OpenStringValue {
    /// The raw string.
    public var description: String { rawValue }
}

/// The type of a credential (`PublicKeyCredentialType`, WebAuthn Level 3 §5.8.2). Not API: a
/// server only ever deals in `public-key` credentials, and the ceremonies check the type.
package struct PublicKeyCredentialType: OpenStringValue {
    /// The string as it appears in JSON.
    package let rawValue: String

    /// Wraps any string, known or not.
    /// - Parameter rawValue: the string.
    package init(rawValue: String) { self.rawValue = rawValue }

    /// `public-key`: A public key credential, the only type defined so far.
    static let publicKey = PublicKeyCredentialType(rawValue: "public-key")
}

/// How a client may reach an authenticator (`AuthenticatorTransport`, WebAuthn Level 3 §5.8.4).
public struct AuthenticatorTransport: OpenStringValue {
    /// The string as it appears in JSON.
    public let rawValue: String

    /// Wraps any string, known or not.
    /// - Parameter rawValue: the string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `usb`: Removable USB.
    public static let usb = AuthenticatorTransport(rawValue: "usb")
    /// `nfc`: Near-field communication.
    public static let nfc = AuthenticatorTransport(rawValue: "nfc")
    /// `ble`: Bluetooth Low Energy.
    public static let ble = AuthenticatorTransport(rawValue: "ble")
    /// `smart-card`: ISO/IEC 7816 smart card with contacts.
    public static let smartCard = AuthenticatorTransport(rawValue: "smart-card")
    /// `hybrid`: Hybrid transport (a phone over caBLE).
    public static let hybrid = AuthenticatorTransport(rawValue: "hybrid")
    /// `internal`: A platform authenticator built into the client device.
    public static let `internal` = AuthenticatorTransport(rawValue: "internal")
}

/// Whether an authenticator is part of the client device (`AuthenticatorAttachment`, WebAuthn Level 3 §5.4.5).
public struct AuthenticatorAttachment: OpenStringValue {
    /// The string as it appears in JSON.
    public let rawValue: String

    /// Wraps any string, known or not.
    /// - Parameter rawValue: the string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `platform`: Built into the client device.
    public static let platform = AuthenticatorAttachment(rawValue: "platform")
    /// `cross-platform`: Removable or roaming.
    public static let crossPlatform = AuthenticatorAttachment(rawValue: "cross-platform")
}

/// Whether a client-side discoverable credential is wanted (`ResidentKeyRequirement`, WebAuthn Level 3 §5.4.6).
public struct ResidentKeyRequirement: OpenStringValue {
    /// The string as it appears in JSON.
    public let rawValue: String

    /// Wraps any string, known or not.
    /// - Parameter rawValue: the string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `discouraged`: A server-side credential is preferred.
    public static let discouraged = ResidentKeyRequirement(rawValue: "discouraged")
    /// `preferred`: A discoverable credential is preferred.
    public static let preferred = ResidentKeyRequirement(rawValue: "preferred")
    /// `required`: A discoverable credential is required.
    public static let required = ResidentKeyRequirement(rawValue: "required")
}

/// The relying party's user verification requirement (`UserVerificationRequirement`, WebAuthn Level 3 §5.8.6).
public struct UserVerificationRequirement: OpenStringValue {
    /// The string as it appears in JSON.
    public let rawValue: String

    /// Wraps any string, known or not.
    /// - Parameter rawValue: the string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `required`: User verification is required; the ceremony fails without the UV flag.
    public static let required = UserVerificationRequirement(rawValue: "required")
    /// `preferred`: User verification is wanted if possible.
    public static let preferred = UserVerificationRequirement(rawValue: "preferred")
    /// `discouraged`: User verification is not wanted.
    public static let discouraged = UserVerificationRequirement(rawValue: "discouraged")
}

/// The relying party's attestation preference (`AttestationConveyancePreference`, WebAuthn Level 3 §5.4.7).
///
/// Note: on an `Optional` of this type write `AttestationConveyancePreference.none`, since a bare
/// `.none` means `Optional.none`.
public struct AttestationConveyancePreference: OpenStringValue {
    /// The string as it appears in JSON.
    public let rawValue: String

    /// Wraps any string, known or not.
    /// - Parameter rawValue: the string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `none`: No attestation is wanted.
    public static let none = AttestationConveyancePreference(rawValue: "none")
    /// `indirect`: An attestation is wanted; the client may anonymize it.
    public static let indirect = AttestationConveyancePreference(rawValue: "indirect")
    /// `direct`: The authenticator's attestation is wanted as generated.
    public static let direct = AttestationConveyancePreference(rawValue: "direct")
    /// `enterprise`: An attestation that may identify the authenticator uniquely.
    public static let enterprise = AttestationConveyancePreference(rawValue: "enterprise")
}

/// A hint about the authenticator the relying party expects (`PublicKeyCredentialHint`, WebAuthn Level 3 §5.8.7).
public struct PublicKeyCredentialHint: OpenStringValue {
    /// The string as it appears in JSON.
    public let rawValue: String

    /// Wraps any string, known or not.
    /// - Parameter rawValue: the string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `security-key`: A physical security key.
    public static let securityKey = PublicKeyCredentialHint(rawValue: "security-key")
    /// `client-device`: The platform authenticator of the device in use.
    public static let clientDevice = PublicKeyCredentialHint(rawValue: "client-device")
    /// `hybrid`: A general-purpose device such as a phone, over the hybrid transport.
    public static let hybrid = PublicKeyCredentialHint(rawValue: "hybrid")
}
