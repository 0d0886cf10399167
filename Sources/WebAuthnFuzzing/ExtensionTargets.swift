import Foundation
import WebAuthnCoding
import WebAuthnRP

/// The extension output parsers: the authenticator extensions map (CBOR) and the client's
/// `clientExtensionResults` (JSON).
enum ExtensionTargets {
    static let all: [FuzzTarget] = [extensionOutputs]

    /// The first byte picks the parser: even, the rest is an authenticator extensions map;
    /// odd, the rest is a `clientExtensionResults` JSON object.
    static let extensionOutputs = FuzzTarget(
        "extension-outputs",
        checks: """
            AuthenticatorExtensionOutputs (registration and authentication readings of a CBOR map, after \
            CBOR.decode) or ClientExtensionOutputs (a JSON object): the same verdict twice; only the \
            categories malformed and extension ever reject; an accepted map lists each of its identifiers once, \
            in order; known outputs hold their defined ranges (credProtect 1-3, hmac-secret output 32/48/64/80 bytes)
            """
    ) { bytes, check in
        guard let selector = bytes.first else { return }
        let rest = bytes.dropFirst()
        if selector & 1 == 0 {
            guard let map = try? CBOR.decode(rest) else { return }
            for ceremony in [CeremonyKind.registration, .authentication] {
                let first = ExtensionOutputsReading.authenticator(map, ceremony: ceremony)
                let second = ExtensionOutputsReading.authenticator(map, ceremony: ceremony)
                check.requireSame(verdict(first.reading), verdict(second.reading), "reading a map twice gives the same verdict")
                check.require(
                    verdict(first.reading).hasPrefix("accept") || verdict(first.reading).contains("malformed")
                        || verdict(first.reading).contains("extension"),
                    "only malformed or extension reject an extensions map", verdict(first.reading))
                for broken in first.broken { check.require(false, broken.property, broken.detail) }
            }
        } else {
            guard let json = try? JSONDecoder().decode([String: JSONValue].self, from: Data(rest)) else { return }
            let first = ExtensionOutputsReading.client(json)
            let second = ExtensionOutputsReading.client(json)
            check.requireSame(
                verdict(first.reading), verdict(second.reading), "reading clientExtensionResults twice gives the same verdict")
            check.require(
                verdict(first.reading).hasPrefix("accept") || verdict(first.reading).contains("malformed")
                    || verdict(first.reading).contains("extension"),
                "only malformed or extension reject clientExtensionResults", verdict(first.reading))
            for broken in first.broken { check.require(false, broken.property, broken.detail) }
        }
    }

    /// `accept: <outputs>` or `reject: <error>`, as ``Verdict`` writes them.
    static func verdict(_ reading: Result<String, WebAuthnError>) -> String {
        switch reading {
        case .success(let described): return "accept: " + described
        case .failure(let error): return "reject: \(error)"
        }
    }
}
