import WebAuthnCoding

/// What the relying party asked for, read back from the `extensions` member of the options it
/// issued (kept on ``IssuedChallenge/extensions``). Read leniently: the options are the
/// relying party's own, and an input this reader does not recognise asks for nothing.
struct RequestedExtensions: Sendable {
    /// PRF evaluation inputs as asked: which of `first` / `second` were given.
    struct PRFEvaluation: Sendable, Equatable {
        var second: Bool
    }

    var credProps = false
    /// `prf` was asked for (with or without evaluation inputs).
    var prf = false
    var prfEval: PRFEvaluation?
    /// `evalByCredential`, keyed by the credential id's base64url text.
    var prfEvalByCredential: [String: PRFEvaluation] = [:]
    var largeBlobSupport: String?
    var largeBlobRead = false
    var largeBlobWrite = false
    var largeBlob: Bool { largeBlobSupport != nil || largeBlobRead || largeBlobWrite }
    var credProtectLevel: Int?
    var enforceCredProtect = false
    var minPinLength = false
    var hmacCreateSecret = false
    var hmacGetSecret = false
    var credBlob = false
    var getCredBlob = false
    var appid: String?
    var appidExclude: String?

    init(_ json: [String: JSONValue]?) {
        guard let json else { return }
        credProps = json["credProps"]?.boolValue == true
        if let prf = json["prf"]?.objectValue {
            self.prf = true
            prfEval = Self.evaluation(prf["eval"])
            for (id, values) in prf["evalByCredential"]?.objectValue ?? [:] {
                if let evaluation = Self.evaluation(values) { prfEvalByCredential[id] = evaluation }
            }
        }
        if let largeBlob = json["largeBlob"]?.objectValue {
            largeBlobSupport = largeBlob["support"]?.stringValue
            largeBlobRead = largeBlob["read"]?.boolValue == true
            largeBlobWrite = largeBlob["write"]?.stringValue != nil
            if largeBlobSupport == nil, !largeBlobRead, !largeBlobWrite { largeBlobSupport = "preferred" }
        }
        if let policy = json["credentialProtectionPolicy"]?.stringValue {
            credProtectLevel = CredentialProtectionPolicy(rawValue: policy)?.level
            enforceCredProtect = json["enforceCredentialProtectionPolicy"]?.boolValue == true
        }
        minPinLength = json["minPinLength"]?.boolValue == true
        hmacCreateSecret = json["hmacCreateSecret"]?.boolValue == true
        hmacGetSecret = json["hmacGetSecret"]?.objectValue != nil
        credBlob = json["credBlob"]?.stringValue != nil
        getCredBlob = json["getCredBlob"]?.boolValue == true
        appid = json["appid"]?.stringValue
        appidExclude = json["appidExclude"]?.stringValue
    }

    private static func evaluation(_ value: JSONValue?) -> PRFEvaluation? {
        guard let object = value?.objectValue, object["first"] != nil else { return nil }
        return PRFEvaluation(second: object["second"] != nil)
    }

    /// Whether the client extension named `name` was asked for (each extension answers for
    /// its own outputs; a name none of them knows was not asked for).
    func asked(client name: String) -> Bool {
        for definition in ExtensionList.all {
            if let answer = definition.asked(client: name, self) { return answer }
        }
        return false
    }

    /// Whether an input asked the client to send the authenticator extension `identifier`.
    func asked(authenticator identifier: String) -> Bool {
        for definition in ExtensionList.all {
            if let answer = definition.asked(authenticator: identifier, self) { return answer }
        }
        return false
    }
}
