/// The flags byte of authenticator data (WebAuthn Level 3 §6.1).
///
/// The reserved bits (0x02 and 0x20) are kept in ``rawValue`` and otherwise ignored,
/// as the specification asks of relying parties.
package struct AuthenticatorFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The flags byte as received.
    package let rawValue: UInt8

    /// Creates flags from the byte.
    /// - Parameter rawValue: the flags byte.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP (bit 0): the user was present.
    package static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// UV (bit 2): the user was verified.
    package static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// BE (bit 3): the credential may be backed up (multi-device).
    package static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// BS (bit 4): the credential is currently backed up.
    package static let backupState = AuthenticatorFlags(rawValue: 0x10)
    /// AT (bit 6): attested credential data follows the counter.
    package static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// ED (bit 7): an extensions map ends the authenticator data.
    package static let extensionData = AuthenticatorFlags(rawValue: 0x80)

    /// The set flags by their short names, for example `UP|UV|AT`, then the byte in hex.
    package var description: String {
        let names: [(AuthenticatorFlags, String)] = [
            (.userPresent, "UP"), (.userVerified, "UV"), (.backupEligible, "BE"),
            (.backupState, "BS"), (.attestedCredentialData, "AT"), (.extensionData, "ED"),
        ]
        let set = names.filter { contains($0.0) }.map(\.1)
        let hex = String(rawValue, radix: 16)
        return (set.isEmpty ? "none" : set.joined(separator: "|")) + " (0x" + (hex.count < 2 ? "0" : "") + hex + ")"
    }
}
