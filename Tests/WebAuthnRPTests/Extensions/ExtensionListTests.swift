import Testing
import WebAuthnCoding

@testable import WebAuthnRP

/// The one list of extensions: each output name belongs to exactly one extension, so the
/// unsolicited-output rule never depends on the list's order.
@Suite("Extension list")
struct ExtensionListTests {
    /// Every client output name and authenticator identifier the output readers know.
    static let clientNames = [
        "credProps", "prf", "largeBlob", "appid", "appidExclude", "hmacCreateSecret", "hmacGetSecret",
        "credBlob", "getCredBlob", "credProtect", "credentialProtectionPolicy", "minPinLength",
    ]
    static let authenticatorIdentifiers = [
        "credProtect", "hmac-secret", "hmac-secret-mc", "minPinLength", "credBlob",
        "largeBlobKey",
    ]

    @Test("each output name is claimed by exactly one extension; unknown names by none")
    func outputsHaveOneOwner() {
        let asked = RequestedExtensions(nil)
        for name in Self.clientNames + ["unknownExtension"] {
            let owners = ExtensionList.all.filter { $0.asked(client: name, asked) != nil }
            #expect(owners.count == (name == "unknownExtension" ? 0 : 1), "client output \(name): \(owners.count) owners")
        }
        for identifier in Self.authenticatorIdentifiers + ["unknown-extension"] {
            let owners = ExtensionList.all.filter { $0.asked(authenticator: identifier, asked) != nil }
            #expect(
                owners.count == (identifier == "unknown-extension" ? 0 : 1),
                "authenticator output \(identifier): \(owners.count) owners")
        }
    }

    @Test("an output answers only the input that asks for it")
    func askedFollowsTheInputs() throws {
        let nothing = RequestedExtensions(nil)
        for name in Self.clientNames { #expect(!nothing.asked(client: name), "\(name) unasked") }
        for identifier in Self.authenticatorIdentifiers { #expect(!nothing.asked(authenticator: identifier)) }
        let inputs = RegistrationExtensionInputs(credProps: true, prf: PRFInputs(), minPinLength: true, credBlob: [1])
        let asked = RequestedExtensions(try inputs.validatedJSON())
        #expect(asked.asked(client: "credProps") && asked.asked(client: "prf") && asked.asked(client: "credBlob"))
        #expect(!asked.asked(client: "largeBlob") && !asked.asked(client: "appidExclude"))
        // PRF runs over hmac-secret, so asking for prf asks the authenticator for it.
        #expect(asked.asked(authenticator: "hmac-secret") && asked.asked(authenticator: "minPinLength"))
        #expect(asked.asked(authenticator: "credBlob") && !asked.asked(authenticator: "credProtect"))
    }
}
