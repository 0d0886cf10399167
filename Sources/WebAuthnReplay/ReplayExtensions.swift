import WebAuthnCoding
import WebAuthnRP

/// `expect.extensions` (../shared/spec/ceremony-fixtures.md, replay semantics 9): the verified
/// extension outputs in the spec's names, and a member-by-member comparison in which every
/// member the expectation names must be reported with that value (nested objects compared
/// the same way), a member whose value is `null` must not be reported, and members it leaves
/// out are not compared.
enum ReplayExtensions {
    static func compare(_ expected: ExpectedExtensions?, _ actual: [String: JSONValue], into out: inout [String]) {
        guard let expected else { return }
        if expected.nothingReported {
            if !actual.isEmpty { out.append("extensions: expected none, got \(render(.object(actual)))") }
            return
        }
        compare(.object(expected.members), .object(actual), path: "extensions", into: &out)
    }

    private static func compare(_ expected: JSONValue, _ actual: JSONValue?, path: String, into out: inout [String]) {
        switch (expected, actual) {
        // `null` expects the output to be absent (the verifier never reports a null output).
        case (.null, nil):
            break
        case (.null, let actual?):
            out.append("\(path): expected none, got \(render(actual))")
        case (.object(let members), .object(let reported)?):
            for name in members.keys.sorted() {
                if let value = members[name] { compare(value, reported[name], path: "\(path).\(name)", into: &out) }
            }
        case (_, nil):
            out.append("\(path): expected \(render(expected)), not reported")
        case (_, let actual?):
            if expected != actual { out.append("\(path): expected \(render(expected)), got \(render(actual))") }
        }
    }

    private static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
        case .string(let s): return "\"\(s)\""
        case .array(let items): return "[" + items.map(render).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { "\($0): \(members[$0].map(render) ?? "")" }.joined(separator: ", ") + "}"
        }
    }
}

extension VerifiedRegistration {
    /// The extension outputs under the names `expect.extensions` uses. What the outputs say about
    /// the credential is read where a server reads it, on the new record; what answers an input
    /// (PRF results, `appidExclude`) from the results.
    var extensionsReplayJSON: [String: JSONValue] {
        let properties = record.extensions
        var out: [String: JSONValue] = [:]
        if let residentKey = properties.discoverable { out["credProps"] = .object(["rk": .bool(residentKey)]) }
        var prf: [String: JSONValue] = [:]
        if let prfEnabled = extensions.prfEnabled { prf["enabled"] = .bool(prfEnabled) }
        if let prfResults = extensions.prfResults { prf["results"] = prfResults.replayJSON }
        if !prf.isEmpty { out["prf"] = .object(prf) }
        if let supported = properties.largeBlobSupported { out["largeBlob"] = .object(["supported": .bool(supported)]) }
        if let level = properties.credentialProtection { out["credProtect"] = .number(Double(level.rawValue)) }
        if let minPinLength = properties.minPinLength { out["minPinLength"] = .number(Double(minPinLength)) }
        if let hmacSecret = properties.hmacSecret { out["hmacSecret"] = .bool(hmacSecret) }
        if let credBlob = properties.credBlobStored { out["credBlob"] = .bool(credBlob) }
        if let appidExclude = extensions.appidExclude { out["appidExclude"] = .bool(appidExclude) }
        return out
    }
}

extension AuthenticationExtensionResults {
    /// The outputs under the names `expect.extensions` uses.
    var replayJSON: [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        if let prfResults { out["prf"] = .object(["results": prfResults.replayJSON]) }
        if let largeBlob {
            var members: [String: JSONValue] = [:]
            if let blob = largeBlob.blob { members["blob"] = .string(Base64URL.encode(blob)) }
            if let written = largeBlob.written { members["written"] = .bool(written) }
            out["largeBlob"] = .object(members)
        }
        if let credBlob { out["credBlob"] = .string(Base64URL.encode(credBlob)) }
        if let hmacSecret { out["hmacSecret"] = .bool(hmacSecret) }
        if let appid { out["appid"] = .bool(appid) }
        return out
    }
}

extension PRFValues {
    var replayJSON: JSONValue {
        var members: [String: JSONValue] = ["first": .string(Base64URL.encode(first))]
        if let second { members["second"] = .string(Base64URL.encode(second)) }
        return .object(members)
    }
}
