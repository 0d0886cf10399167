public import Foundation
import WebAuthnCoding

/// Passkey provider names by AAGUID (iCloud Keychain or Apple Passwords, Google Password
/// Manager, 1Password, Windows Hello, …), for naming a user's passkeys in an account page.
///
/// The names come from the community list `passkeydeveloper/passkey-authenticator-aaguids`
/// (`aaguid.json`): ``snapshot`` is the copy shipped with the library (AAGUID and name only;
/// source, commit, date and licence in `Docs/PasskeyProviders.md`), ``init(jsonData:)`` loads
/// a newer file of the same shape. The AAGUID of a passkey registered without attestation is
/// the provider's claim, not proof: a name to show, never a reason to trust.
///
/// Registration reports the list's name apart from any metadata name, as
/// ``AttestationResult/claimedProviderName`` (through the policy's `passkeyProviders`), next to
/// ``AttestationResult/metadataName`` (a verified FIDO metadata entry's description, signed by
/// the FIDO Alliance); for a stored credential use ``name(for:metadata:)``.
public struct PasskeyProviders: Sendable {
    /// Names by AAGUID.
    let names: [AAGUID: String]

    /// The list shipped with the library.
    public static let snapshot = PasskeyProviders(
        names: Dictionary(
            snapshotEntries.compactMap { entry in AAGUID(uuidString: entry.aaguid).map { ($0, entry.name) } },
            uniquingKeysWith: { first, _ in first }))

    init(names: [AAGUID: String]) { self.names = names }

    /// The largest file read (the list with its icons is a few hundred kilobytes).
    static let maximumBytes = 8 << 20
    /// The most entries and the longest name, in UTF-8 bytes.
    static let maximumEntries = 10_000
    static let maximumNameBytes = 256

    /// Reads a newer list: `{"<aaguid>": {"name": "…", …}, …}` (`aaguid.json` or
    /// `combined_aaguid.json`), with the library's strict reader. Other members of an entry
    /// (the icons) are ignored.
    /// - Parameter jsonData: the file.
    /// - Throws: ``WebAuthnError`` `malformed` for a file over 8 MiB, JSON the reader refuses
    ///   (a name given twice, invalid UTF-8), a key that is not an AAGUID or is given twice in
    ///   another case, an entry without a `name` string of 1 to 256 bytes, more than 10,000
    ///   entries, or no entry at all (the list's maintainers empty it when they retire it).
    public init(jsonData: Data) throws(WebAuthnError) {
        let value: JSONValue
        do throws(JSONReader.ParseError) {
            value = try JSONReader.parse(
                Array(jsonData)[...],
                limits: JSONReader.Limits(
                    maximumDepth: 2,
                    maximumBytes: Self.maximumBytes))
        } catch {
            throw WebAuthnError(.malformed, "passkey provider list: \(error)")
        }
        guard let object = value.objectValue else {
            throw WebAuthnError(.malformed, "passkey provider list: not a JSON object")
        }
        guard !object.isEmpty, object.count <= Self.maximumEntries else {
            throw WebAuthnError(.malformed, "passkey provider list: \(object.count) entries; expected 1 to \(Self.maximumEntries)")
        }
        var names: [AAGUID: String] = [:]
        for (key, entry) in object.sorted(by: { $0.key < $1.key }) {
            let at = "passkey provider list[\"\(key.prefix(64))\"]"
            guard let aaguid = AAGUID(uuidString: key) else { throw WebAuthnError(.malformed, "\(at): not an AAGUID") }
            guard case .string(let name)? = entry["name"], (1...Self.maximumNameBytes).contains(name.utf8.count) else {
                throw WebAuthnError(.malformed, "\(at).name is not a string of 1 to \(Self.maximumNameBytes) bytes")
            }
            guard names.updateValue(name, forKey: aaguid) == nil else {
                throw WebAuthnError(.malformed, "\(at): the AAGUID is listed twice")
            }
        }
        self.names = names
    }

    /// The provider's name for an AAGUID, from this list alone.
    func name(of aaguid: AAGUID) -> String? { names[aaguid] }

}
