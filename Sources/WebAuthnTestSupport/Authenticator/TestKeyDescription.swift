import WebAuthnCrypto

/// A KeyDescription (the Android key attestation extension's value) as a Keystore writes it,
/// every field settable, for `android-key` statements and the test Android device.
package struct TestKeyDescription: Sendable {
    package var attestationVersion = 300
    /// `SecurityLevel`: 0 Software, 1 TrustedEnvironment, 2 StrongBox.
    package var attestationSecurityLevel = 1
    package var keymasterVersion = 300
    package var keymasterSecurityLevel = 1
    package var challenge: [UInt8]
    package var uniqueId: [UInt8] = []
    /// The `softwareEnforced` fields, each already tagged (``field(_:_:)`` and the builders below), in order.
    package var softwareEnforced: [[UInt8]] = []
    /// The `teeEnforced` (`hardwareEnforced`) fields, in order.
    package var teeEnforced: [[UInt8]] = []
    /// Elements appended after the eighth (a future schema's).
    package var trailing: [[UInt8]] = []

    package init(challenge: [UInt8]) { self.challenge = challenge }

    /// The DER the extension carries.
    package var der: [UInt8] {
        DEREncoder.sequence(
            [
                DEREncoder.integer(attestationVersion), DEREncoder.enumerated(attestationSecurityLevel),
                DEREncoder.integer(keymasterVersion), DEREncoder.enumerated(keymasterSecurityLevel),
                DEREncoder.octetString(challenge), DEREncoder.octetString(uniqueId),
                DEREncoder.sequence(softwareEnforced), DEREncoder.sequence(teeEnforced),
            ] + trailing)
    }

    /// An `AuthorizationList` field: `[tag] EXPLICIT value`.
    package static func field(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] { DEREncoder.explicit(tag, value) }
    /// `purpose [1] EXPLICIT SET OF INTEGER`.
    package static func purposes(_ values: [Int]) -> [UInt8] { field(1, DEREncoder.set(values.map { DEREncoder.integer($0) })) }
    /// An INTEGER field (`algorithm [2]`, `ecCurve [10]`, `origin [702]`, `osVersion [705]`, …).
    package static func integer(_ tag: UInt32, _ value: Int) -> [UInt8] { field(tag, DEREncoder.integer(value)) }
    /// `allApplications [600] EXPLICIT NULL`.
    package static let allApplications = field(600, DEREncoder.null())
    /// `rootOfTrust [704] EXPLICIT RootOfTrust` (the boot hash omitted when nil, as versions 1 and 2 do).
    package static func rootOfTrust(bootKey: [UInt8], locked: Bool, state: Int, bootHash: [UInt8]?) -> [UInt8] {
        field(
            704,
            DEREncoder.sequence(
                [DEREncoder.octetString(bootKey), DEREncoder.boolean(locked), DEREncoder.enumerated(state)]
                    + (bootHash.map { [DEREncoder.octetString($0)] } ?? [])))
    }
    /// `attestationApplicationId [709] EXPLICIT OCTET STRING` holding the DER of the packages and digests.
    package static func applicationId(packages: [(name: String, version: Int)], digests: [[UInt8]]) -> [UInt8] {
        let infos = packages.map { DEREncoder.sequence([DEREncoder.octetString(Array($0.name.utf8)), DEREncoder.integer($0.version)]) }
        let value = DEREncoder.sequence([DEREncoder.set(infos), DEREncoder.set(digests.map { DEREncoder.octetString($0) })])
        return field(709, DEREncoder.octetString(value))
    }
}
