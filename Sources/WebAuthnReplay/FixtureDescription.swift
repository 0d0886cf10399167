package import Foundation
import WebAuthnCrypto
import WebAuthnRP

extension Replayer {
    /// Loads a fixture document the way ``replay(paths:)`` does (decoding, format and name
    /// checks, relying party, policy, trust anchors, credential records, the challenge each
    /// ceremony issues, its times and identified user) and describes everything it loaded, one line per part.
    ///
    /// Package access only: the `fixture` fuzz target loads hostile documents through it and
    /// requires the description to be the same when the same bytes are loaded twice. The
    /// clock of a fixture without `verificationTime` (the current time) is left out.
    /// - Parameters:
    ///   - data: the document.
    ///   - file: the name used in errors.
    /// - Returns: the description.
    /// - Throws: ``FixtureError`` when the document cannot be replayed.
    package static func describeFixture(_ data: Data, file: String) throws(FixtureError) -> String {
        let (fixture, setup) = try load(data, file: file)
        var lines: [String] = []
        let rp = setup.relyingParty
        lines.append("rp \(rp.id) origins \(rp.origins) crossOrigin \(rp.allowCrossOrigin) top \(rp.topOrigins)")
        if fixture.policy?.verificationTime != nil { lines.append("now \(setup.now.timeIntervalSince1970)") }
        let requirement = setup.policy.attestation
        lines.append(
            "anchors \(setup.anchors.map(\.derBytes)) chain \(requirement.chain) unattested \(requirement.unattested)"
                + " counter \(setup.policy.counter) challengeLifetime \(setup.policy.challengeLifetime)")
        switch setup.metadata {
        case .none: break
        case .some(.success(let blob)):
            lines.append("metadata no \(blob.number) nextUpdate \(blob.nextUpdate.timeIntervalSince1970) entries \(blob.entries.count)")
        case .some(.failure(let error)): lines.append("metadata refused \(error)")
        }
        for record in setup.credentials { lines.append("record \(record)") }
        let expiry = Date(timeIntervalSince1970: 0)
        for ceremony in fixture.ceremonies {
            let issued: IssuedChallenge
            switch ceremony.options {
            case .registration(let options):
                issued = IssuedChallenge(creationOptions: options, relyingParty: rp, expiresAt: expiry)
            case .authentication(let options):
                issued = IssuedChallenge(requestOptions: options, relyingParty: rp, userHandle: ceremony.user, expiresAt: expiry)
            }
            // Times as seconds, not Date descriptions (which Foundation formats through a calendar).
            let times =
                "issuedAt \(ceremony.issuedAt.map { "\($0.timeIntervalSince1970)" } ?? "default") "
                + "receivedAt \(ceremony.receivedAt.map { "\($0.timeIntervalSince1970)" } ?? "default")"
            let response: String
            switch ceremony.response {
            // Sorted-key JSON: a dictionary's description would depend on its iteration order.
            case .registration(let decoded): response = "registration " + Self.sortedJSON(decoded.decodedJSON)
            case .authentication(let decoded): response = "authentication " + Self.sortedJSON(decoded.decodedJSON)
            case .undecodable(let error): response = "undecodable \(error)"
            case .unread: response = "unread"
            }
            lines.append(
                "ceremony \(ceremony.name) \(ceremony.kind) issue \(ceremony.issue) \(times) \(Self.describe(issued)) "
                    + "expect \(ceremony.expect.summary) response \(response)")
        }
        return lines.joined(separator: "\n")
    }

    /// The issued challenge in its storable form with sorted keys: its extension inputs are a
    /// dictionary, whose description would depend on iteration order.
    private static func describe(_ issued: IssuedChallenge) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(issued) else { return "\(issued)" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The response's members as sorted-key JSON.
    private static func sortedJSON(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "unencodable" }
        return String(decoding: data, as: UTF8.self)
    }
}
