package import WebAuthnCoding

/// The client extension outputs of a response (`clientExtensionResults`), each member of a known
/// extension checked for its type (L3 §10 and CTAP 2.2 §12 as the JSON serialization writes
/// them: bytes as base64url text). Whether an output fits what was asked is checked later, by
/// ``ExtensionChecks``. Unknown extensions are listed by name and not interpreted.
struct ClientExtensionOutputs: Sendable, Equatable {
    struct PRF: Sendable, Equatable {
        var enabled: Bool?
        var first: [UInt8]?
        var second: [UInt8]?
        var hasResults: Bool { first != nil }
    }
    struct LargeBlob: Sendable, Equatable {
        var supported: Bool?
        var blob: [UInt8]?
        var written: Bool?
    }

    /// `credProps`: present, with `rk` when the client knows it.
    var credProps: Bool?? = nil
    var prf: PRF?
    var largeBlob: LargeBlob?
    var appid: Bool?
    var appidExclude: Bool?
    var hmacCreateSecret: Bool?
    var credBlob: Bool?
    var getCredBlob: [UInt8]?
    /// The names of every output present, known or not.
    var names: [String] = []

    /// The most members a response's `clientExtensionResults` may carry.
    static let maximumMembers = 64

    /// Reads and type-checks `clientExtensionResults`.
    /// - Parameter json: the decoded member.
    /// - Throws: ``WebAuthnError``: `extension` for a known output of the wrong type, `malformed`
    ///   for more than 64 members.
    init(json: [String: JSONValue]) throws(WebAuthnError) {
        guard json.count <= Self.maximumMembers else {
            throw WebAuthnError(.malformed, "clientExtensionResults has \(json.count) members; at most \(Self.maximumMembers) are read")
        }
        names = json.keys.sorted()
        for name in names {
            guard let value = json[name] else { continue }
            switch name {
            case "credProps":
                let object = try Self.object(value, name)
                credProps = .some(try Self.optionalBool(object["rk"], "credProps.rk"))
            case "prf":
                let object = try Self.object(value, name)
                var prf = PRF(enabled: try Self.optionalBool(object["enabled"], "prf.enabled"))
                if let results = object["results"] {
                    let values = try Self.object(results, "prf.results")
                    guard let first = values["first"] else {
                        throw WebAuthnError(.extension, "prf.results has no first")
                    }
                    prf.first = try Self.bytes(first, "prf.results.first")
                    prf.second = try values["second"].map { (v: JSONValue) throws(WebAuthnError) in try Self.bytes(v, "prf.results.second")
                    }
                }
                self.prf = prf
            case "largeBlob":
                let object = try Self.object(value, name)
                largeBlob = LargeBlob(
                    supported: try Self.optionalBool(object["supported"], "largeBlob.supported"),
                    blob: try object["blob"].map { (v: JSONValue) throws(WebAuthnError) in try Self.bytes(v, "largeBlob.blob") },
                    written: try Self.optionalBool(object["written"], "largeBlob.written"))
            case "appid": appid = try Self.bool(value, name)
            case "appidExclude": appidExclude = try Self.bool(value, name)
            case "hmacCreateSecret": hmacCreateSecret = try Self.bool(value, name)
            case "credBlob": credBlob = try Self.bool(value, name)
            case "getCredBlob": getCredBlob = try Self.bytes(value, name)
            default: break
            }
        }
    }

    private static func object(_ value: JSONValue, _ name: String) throws(WebAuthnError) -> [String: JSONValue] {
        guard let object = value.objectValue else {
            throw WebAuthnError(.extension, "client extension output \(name) is not an object")
        }
        return object
    }

    private static func bool(_ value: JSONValue, _ name: String) throws(WebAuthnError) -> Bool {
        guard let bool = value.boolValue else {
            throw WebAuthnError(.extension, "client extension output \(name) is not a boolean")
        }
        return bool
    }

    private static func optionalBool(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> Bool? {
        guard let value else { return nil }
        return try bool(value, name)
    }

    private static func bytes(_ value: JSONValue, _ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let text = value.stringValue, let bytes = try? Base64URL.decode(text) else {
            throw WebAuthnError(.extension, "client extension output \(name) is not base64url bytes")
        }
        return bytes
    }
}

/// The authenticator extension outputs of authenticator data (the CBOR map after the ED flag),
/// read strictly: a text key per output, each known output of its CTAP 2.2 type, at most 32
/// entries. Unknown identifiers are listed and not interpreted.
struct AuthenticatorExtensionOutputs: Sendable, Equatable {
    /// `credProtect`: 1, 2 or 3.
    var credProtect: Int?
    /// `hmac-secret` at registration: whether the secret was created.
    var hmacSecret: Bool?
    /// `hmac-secret` at authentication: the encrypted outputs (32 or 64 bytes, plus a 16-byte
    /// IV with PIN protocol 2).
    var hmacSecretOutput: [UInt8]?
    /// `hmac-secret-mc` at registration: encrypted outputs, as `hmacSecretOutput`.
    var hmacSecretMC: [UInt8]?
    /// `minPinLength`: the authenticator's minimum PIN length.
    var minPinLength: Int?
    /// `credBlob` at registration: whether the blob was stored.
    var credBlobStored: Bool?
    /// `credBlob` at authentication: the stored blob.
    var credBlob: [UInt8]?
    /// Every identifier present, known or not.
    var identifiers: [String] = []

    /// The most entries an extensions map may carry.
    static let maximumEntries = 32
    /// The encrypted hmac-secret output lengths: one or two 32-byte outputs, with or without IV.
    static let hmacSecretOutputLengths: Set<Int> = [32, 48, 64, 80]

    /// No outputs.
    init() {}

    /// Reads the extensions map of authenticator data.
    /// - Parameters:
    ///   - map: the decoded map (the authenticator data's `extensions`).
    ///   - ceremony: registration outputs and authentication outputs differ in type.
    /// - Throws: ``WebAuthnError``: `malformed` for more than 32 entries or nested values deeper
    ///   than 4; `extension` for a key that is not text or a known output of the wrong type.
    init(map: CBORItem, ceremony: CeremonyKind) throws(WebAuthnError) {
        guard let entries = map.mapEntries else {
            throw WebAuthnError(.malformed, "authenticator data: extensions is not a CBOR map")
        }
        guard entries.count <= Self.maximumEntries else {
            throw WebAuthnError(
                .malformed, "authenticator data: the extensions map has \(entries.count) entries; at most \(Self.maximumEntries) are read")
        }
        for entry in entries {
            guard let identifier = entry.key.text else {
                throw WebAuthnError(.extension, "authenticator data: an extension identifier is not a text string")
            }
            guard Self.depth(entry.value, limit: 4) else {
                throw WebAuthnError(.malformed, "authenticator data: extension \(identifier) nests deeper than 4 levels")
            }
            identifiers.append(identifier)
            let value = entry.value
            switch (identifier, ceremony) {
            case ("credProtect", _):
                credProtect = try Self.output(value.unsignedInt, identifier, is: "1, 2 or 3", where: { (1...3).contains($0) })
            case ("hmac-secret", .registration):
                hmacSecret = try Self.output(value.bool, identifier, is: "a boolean at registration")
            case ("hmac-secret", .authentication):
                hmacSecretOutput = try Self.encryptedOutput(value, identifier)
            case ("hmac-secret-mc", .registration):
                hmacSecretMC = try Self.encryptedOutput(value, identifier)
            case ("minPinLength", _):
                minPinLength = try Self.output(value.unsignedInt, identifier, is: "an unsigned integer up to 255", where: { $0 <= 255 })
            case ("credBlob", .registration):
                credBlobStored = try Self.output(value.bool, identifier, is: "a boolean at registration")
            case ("credBlob", .authentication):
                credBlob = Array(try Self.output(value.bytes, identifier, is: "a byte string at authentication"))
            default:
                break
            }
        }
    }

    private static func encryptedOutput(_ value: CBORItem, _ identifier: String) throws(WebAuthnError) -> [UInt8] {
        Array(
            try output(
                value.bytes, identifier, is: "a byte string of 32, 48, 64 or 80 bytes",
                where: { hmacSecretOutputLengths.contains($0.count) }))
    }

    /// The output `identifier` read as its type (nil: not of that type), or `extension` saying
    /// what it should have been when it is not, or does not fit.
    private static func output<Value>(
        _ value: Value?, _ identifier: String, is expected: String, where fits: (Value) -> Bool = { _ in true }
    ) throws(WebAuthnError) -> Value {
        guard let value, fits(value) else {
            throw WebAuthnError(.extension, "authenticator output \(identifier) is not \(expected)")
        }
        return value
    }

    /// Whether `item` nests no deeper than `limit` (a scalar is depth 1).
    private static func depth(_ item: CBORItem, limit: Int) -> Bool {
        guard limit > 0 else { return false }
        switch item.value {
        case .array(let items): return items.allSatisfy { depth($0, limit: limit - 1) }
        case .map(let entries): return entries.allSatisfy { depth($0.key, limit: limit - 1) && depth($0.value, limit: limit - 1) }
        case .tagged(_, let inner): return depth(inner, limit: limit - 1)
        default: return true
        }
    }
}

extension CBORItem {
    /// A non-negative integer that fits `Int`.
    fileprivate var unsignedInt: Int? {
        if case .unsigned(let n) = value, n <= UInt64(Int32.max) { return Int(n) }
        return nil
    }
}

/// The two extension-output readers as the `extension-outputs` fuzz target drives them, each
/// reading held here, where its members are, to what the reader promises about what it accepts.
/// Each reading returns the accepted outputs described, or the reader's error; and for an
/// accepted reading, each promise it broke, as (property, detail).
package enum ExtensionOutputsReading {
    /// Reads `map` as authenticator extension outputs of `ceremony`. Promises: every identifier
    /// listed once, in map order; credProtect 1 to 3; an hmac-secret output of 32, 48, 64 or 80 bytes.
    /// - Parameters:
    ///   - map: the decoded extensions map.
    ///   - ceremony: which ceremony's output types apply.
    /// - Returns: the reading and the promises it broke.
    package static func authenticator(
        _ map: CBORItem, ceremony: CeremonyKind
    ) -> (reading: Result<String, WebAuthnError>, broken: [(property: String, detail: String)]) {
        let parsed: AuthenticatorExtensionOutputs
        do throws(WebAuthnError) {
            parsed = try AuthenticatorExtensionOutputs(map: map, ceremony: ceremony)
        } catch {
            return (.failure(error), [])
        }
        var broken: [(property: String, detail: String)] = []
        let keys = map.mapEntries?.compactMap { $0.key.text } ?? []
        if parsed.identifiers != keys {
            broken.append(("an accepted map lists each identifier in order", "\(parsed.identifiers) vs \(keys)"))
        }
        if let level = parsed.credProtect, !(1...3).contains(level) {
            broken.append(("credProtect is 1 to 3", "\(parsed)"))
        }
        if let output = parsed.hmacSecretOutput, ![32, 48, 64, 80].contains(output.count) {
            broken.append(("hmac-secret output has a defined length", "\(parsed)"))
        }
        return (.success("\(parsed)"), broken)
    }

    /// Reads `json` as `clientExtensionResults`. Promise: every member's name is listed.
    /// - Parameter json: the decoded member.
    /// - Returns: the reading and the promises it broke.
    package static func client(
        _ json: [String: JSONValue]
    ) -> (reading: Result<String, WebAuthnError>, broken: [(property: String, detail: String)]) {
        let parsed: ClientExtensionOutputs
        do throws(WebAuthnError) {
            parsed = try ClientExtensionOutputs(json: json)
        } catch {
            return (.failure(error), [])
        }
        let broken = parsed.names == json.keys.sorted() ? [] : [("every output name is listed", "\(parsed.names)")]
        return (.success("\(parsed)"), broken)
    }
}
