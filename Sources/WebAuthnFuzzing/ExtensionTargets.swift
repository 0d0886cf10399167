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
                let describe: (AuthenticatorExtensionOutputs) -> String = { "\($0)" }
                let (first, parsed) = Verdict.of(
                    { () throws(WebAuthnError) in
                        try AuthenticatorExtensionOutputs(map: map, ceremony: ceremony)
                    }, describe: describe)
                let (second, _) = Verdict.of(
                    { () throws(WebAuthnError) in
                        try AuthenticatorExtensionOutputs(map: map, ceremony: ceremony)
                    }, describe: describe)
                check.requireSame(first, second, "reading a map twice gives the same verdict")
                check.require(
                    first.hasPrefix("accept") || first.contains("malformed") || first.contains("extension"),
                    "only malformed or extension reject an extensions map", first)
                guard let parsed else { continue }
                let keys = map.mapEntries?.compactMap { $0.key.text } ?? []
                check.require(
                    parsed.identifiers == keys, "an accepted map lists each identifier in order", "\(parsed.identifiers) vs \(keys)")
                check.require(parsed.credProtect.map { (1...3).contains($0) } ?? true, "credProtect is 1 to 3", "\(parsed)")
                check.require(
                    parsed.hmacSecretOutput.map { [32, 48, 64, 80].contains($0.count) } ?? true,
                    "hmac-secret output has a defined length", "\(parsed)")
            }
        } else {
            guard let json = try? JSONDecoder().decode([String: JSONValue].self, from: Data(rest)) else { return }
            let describe: (ClientExtensionOutputs) -> String = { "\($0)" }
            let (first, parsed) = Verdict.of({ () throws(WebAuthnError) in try ClientExtensionOutputs(json: json) }, describe: describe)
            let (second, _) = Verdict.of({ () throws(WebAuthnError) in try ClientExtensionOutputs(json: json) }, describe: describe)
            check.requireSame(first, second, "reading clientExtensionResults twice gives the same verdict")
            check.require(
                first.hasPrefix("accept") || first.contains("malformed") || first.contains("extension"),
                "only malformed or extension reject clientExtensionResults", first)
            if let parsed {
                check.require(parsed.names == json.keys.sorted(), "every output name is listed", "\(parsed.names)")
            }
        }
    }
}
