public import Foundation
import Synchronization
import WebAuthnCoding
import WebAuthnCrypto

/// One ceremony the service verified, kept so that it can be reproduced exactly: the options
/// it issued, the response the client sent, the credential record as it stood before the
/// ceremony, the relying party and policy, the clock, and the verdict.
///
/// ``document(name:description:)`` writes it as a `webauthn-ceremonies/1` file that
/// `webauthn-replay` replays to the same verdict (`webauthn-replay --explain file.json` then
/// shows the step that failed). Nothing secret goes in: the record holds only a public key, the
/// relying party's keys (session, sealing) are never seen here, and the user's name and display
/// name are not kept. The response is what the client sent (the body a response was decoded
/// from, as received: browser JSON or a native app's body, every member it had; the members as
/// `…ResponseJSON` for a response built otherwise) minus its secret extension outputs,
/// which every recording (however it is made) replaces when it is created:
/// `clientExtensionResults.prf.results.first` and `.second`, `largeBlob.blob`, `getCredBlob`,
/// and `hmacGetSecret.output1` and `.output2`. Each becomes zero bytes of the same length (the
/// same base64url length), so the replay reaches the same verdict and category (the verifier
/// checks these outputs' lengths and shape, never their content); a value that is not base64url
/// becomes the text `(redacted)`, refused the same way. A body that did not decode, recorded as
/// text, is zeroed in the text itself; when that cannot be done safely, the whole text is
/// replaced by a note, which replays as `malformed` like the original. Signed authenticator
/// data is kept as it is (its `hmac-secret` output is encrypted to the client).
///
/// Get one by passing a ``CeremonyObserver`` to
/// ``RelyingPartyService/finishRegistration(_:challenge:now:keepAttestation:observer:commit:)`` or
/// ``RelyingPartyService/finishAuthentication(_:challenge:now:observer:commit:)``; a body that did not
/// decode is recorded with ``init(unparsedBody:kind:error:challenge:service:receivedAt:)``.
public struct CeremonyRecording: Sendable {
    /// How the ceremony ended.
    public enum Verdict: Sendable {
        /// The response was accepted.
        case accepted
        /// The response was rejected with this error (its category is the fixture's `expect.error`).
        case rejected(WebAuthnError)
    }

    /// The ceremony the response was verified as.
    public let kind: CeremonyKind
    /// The challenge as issued (the options' content), or nil when it was not outstanding
    /// (never issued, already used) or the response did not parse before it was looked up.
    let issued: IssuedChallenge?
    /// The challenge the response was checked against: the session's, or the one the client
    /// data named; nil when neither is known.
    let challenge: [UInt8]?
    /// The response as the client sent it: the body the response was decoded from (browser JSON
    /// or a native app's body, not re-encoded), the response's members as `…ResponseJSON` when it
    /// was built from them, or, when the body did not parse, the body as text (replayed as
    /// `malformed`); in all, the secret extension outputs are zeroed (see ``CeremonyRecording``).
    let response: JSONValue
    /// The credential record the ceremony found, as it stood before the ceremony: the record
    /// an authentication looked up, or the one a refused registration collided with.
    let credentialBefore: CredentialRecord?
    /// The relying party.
    let relyingParty: RelyingParty
    /// The policy.
    let policy: VerificationPolicy
    /// When the response was verified.
    public let receivedAt: Date
    /// The verdict.
    public let verdict: Verdict

    /// Creates a recording from its parts (the service's finish does this for its observer).
    /// - Parameters:
    ///   - kind: the ceremony kind.
    ///   - issued: the issued challenge, if it was outstanding.
    ///   - challenge: the challenge the response was checked against, if known.
    ///   - response: the response as JSON (or the body as text); its secret extension outputs
    ///     are redacted here (see ``CeremonyRecording``).
    ///   - credentialBefore: the record as it stood before the ceremony.
    ///   - relyingParty: the relying party.
    ///   - policy: the policy.
    ///   - receivedAt: when the response was verified.
    ///   - verdict: the verdict.
    init(
        kind: CeremonyKind, issued: IssuedChallenge?, challenge: [UInt8]?, response: JSONValue,
        credentialBefore: CredentialRecord?, relyingParty: RelyingParty, policy: VerificationPolicy,
        receivedAt: Date, verdict: Verdict
    ) {
        self.kind = kind
        self.issued = issued
        self.challenge = challenge ?? issued?.challenge
        self.response = SecretOutputRedaction.redacting(response, kind: kind)
        self.credentialBefore = credentialBefore
        self.relyingParty = relyingParty
        self.policy = policy
        self.receivedAt = receivedAt
        self.verdict = verdict
    }

    /// Whether the ceremony was rejected.
    var isRejected: Bool {
        if case .rejected = verdict { return true }
        return false
    }

    /// What of the relying party or policy a `webauthn-ceremonies/1` file cannot express, so a
    /// replay may judge differently there (for example a custom attestation trust source or
    /// allowed subdomains). Written into the file as `notes`.
    var unrecordedSettings: [String] {
        var notes: [String] = []
        if relyingParty.allowSubdomains { notes.append("relyingParty.allowSubdomains is true (not in the format)") }
        if !(policy.attestation.source is FixedTrustAnchors) {
            notes.append(
                "attestation trust source \(type(of: policy.attestation.source)) is not recorded; only fixed anchors are")
        }
        let requirement = policy.attestation
        if (requirement.chain == .required) != (requirement.unattested == .rejected) {
            notes.append(
                "attestation chain \(requirement.chain) with unattested \(requirement.unattested) is recorded as requireTrustedAttestation \(requirement.chain == .required)"
            )
        }
        if policy.attestation.allowedFormats != nil { notes.append("policy.attestation.allowedFormats is not recorded") }
        if policy.attestation.formats != AttestationFormatOptions() {
            notes.append("non-default per-format attestation options (AttestationFormatOptions) are not recorded")
        }
        if policy.rejectUnsolicitedExtensionOutputs { notes.append("rejectUnsolicitedExtensionOutputs is not recorded") }
        if issued?.conditionalCreate == true { notes.append("conditional create (UP not required) is not recorded") }
        return notes
    }

    /// Writes the ceremony as a `webauthn-ceremonies/1` document with one ceremony, whose
    /// `expect` is this verdict (`accept`, or `reject` with the error's category).
    /// - Parameters:
    ///   - name: the ceremony's name in the file (default `recorded`).
    ///   - description: the file's `description` (default: the kind and the verdict).
    /// - Returns: the document, UTF-8 JSON.
    /// - Throws: ``WebAuthnError`` `serverFault` (step `ceremony recording`) when the document
    ///   cannot be written.
    public func document(name: String = "recorded", description: String? = nil) throws(WebAuthnError) -> Data {
        let document = documentValue(name: name, description: description)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(document)
        } catch {
            throw WebAuthnError(.serverFault, step: "ceremony recording", "the document does not encode as JSON: \(error)")
        }
    }

    /// The document as a JSON value.
    func documentValue(name: String, description: String?) -> JSONValue {
        // The challenge's window: issuedAt and challengeLifetime reproduce expiresAt. Without
        // a recorded issue time, the window is placed so that it ends at expiresAt.
        let issuedAt: Date, lifetime: TimeInterval
        if let issued {
            let start = issued.issuedAt ?? min(receivedAt, issued.expiresAt)
            let length = issued.expiresAt.timeIntervalSince(start)
            if length.isFinite, length >= 0 {
                (issuedAt, lifetime) = (start, length)
            } else {
                (issuedAt, lifetime) = (issued.expiresAt, 0)
            }
        } else {
            (issuedAt, lifetime) = (receivedAt, policy.challengeLifetime.isFinite ? max(0, policy.challengeLifetime) : 0)
        }
        var rp: [String: JSONValue] = ["id": .string(relyingParty.id), "origins": .array(relyingParty.origins.map(JSONValue.string))]
        if !relyingParty.name.isEmpty { rp["name"] = .string(relyingParty.name) }
        if relyingParty.allowCrossOrigin { rp["crossOrigin"] = .bool(true) }
        if !relyingParty.topOrigins.isEmpty { rp["topOrigins"] = .array(relyingParty.topOrigins.map(JSONValue.string)) }

        var policyJSON: [String: JSONValue] = [
            "verificationTime": .string(Self.time(receivedAt)),
            "challengeLifetime": .number(lifetime),
            "allowCounterRegression": .bool(policy.counter == .acceptAndFlag),
            "requireTrustedAttestation": .bool(policy.attestation.chain == .required),
        ]
        if let fixed = policy.attestation.source as? FixedTrustAnchors, !fixed.anchors.isEmpty {
            policyJSON["trustAnchors"] = .array(fixed.anchors.map { .string(Base64URL.encode($0.derBytes)) })
        }

        var ceremony: [String: JSONValue] = [
            "name": .string(name),
            "kind": .string(kind.rawValue),
            "options": options(),
            "issue": .bool(issued != nil),
            "response": response,
            "issuedAt": .string(Self.time(issuedAt)),
            "receivedAt": .string(Self.time(receivedAt)),
            "expect": expectation(),
        ]
        if kind == .authentication, let user = issued?.userHandle, (1...64).contains(user.count) {
            ceremony["user"] = .string(Base64URL.encode(user))
        }
        var file: [String: JSONValue] = [
            "format": .string("webauthn-ceremonies/1"),
            "description": .string(description ?? "\(kind.rawValue) recorded by the relying party: \(verdictSummary)"),
            "source": .string("CeremonyRecording (WebAuthnRP \(webAuthnRPVersion))"),
            "relyingParty": .object(rp),
            "policy": .object(policyJSON),
            "ceremonies": .array([.object(ceremony)]),
        ]
        if let record = credentialBefore { file["credentials"] = .array([Self.credential(record)]) }
        let notes = unrecordedSettings
        if !notes.isEmpty { file["notes"] = .array(notes.map(JSONValue.string)) }
        return .object(file)
    }

    /// `accept` or `reject(<category>)`.
    var verdictSummary: String {
        switch verdict {
        case .accepted: return "accept"
        case .rejected(let error): return "reject(\(error.category.rawValue))"
        }
    }

    private func expectation() -> JSONValue {
        switch verdict {
        case .accepted:
            return .object(["outcome": .string("accept")])
        case .rejected(let error):
            // `observed` is a note (unknown members are ignored): where and why it failed here.
            var observed: [String: JSONValue] = ["message": .string(error.message)]
            if let step = error.step { observed["step"] = .string(step) }
            return .object([
                "outcome": .string("reject"), "error": .string(error.category.rawValue),
                "observed": .object(observed),
            ])
        }
    }

    /// The options the issued challenge describes, as the client received them (minus the
    /// user's name and display name, which verification never reads).
    private func options() -> JSONValue {
        let challengeText = JSONValue.string(Base64URL.encode(challenge ?? Array(repeating: 0, count: 32)))
        let rpId = issued?.rpId ?? relyingParty.id
        switch kind {
        case .registration:
            let userHandle = issued?.userHandle.flatMap { $0.isEmpty ? nil : $0 } ?? [0]
            // What the verifier checks is offered ∩ accepted: written as the offer, so a replay
            // (which accepts every algorithm) reaches the same verdict. Nothing usable: an
            // unassigned identifier, as empty would mean ES256 and RS256.
            let offered = (issued?.offeredAlgorithms ?? []).filter { policy.acceptedAlgorithms.contains($0) }
            let params: [JSONValue] = (offered.isEmpty ? [0] : offered.map(\.rawValue)).map {
                .object(["type": .string("public-key"), "alg": .number(Double($0))])
            }
            var options: [String: JSONValue] = [
                "rp": .object(["id": .string(rpId), "name": .string(relyingParty.name.isEmpty ? rpId : relyingParty.name)]),
                "user": .object([
                    "id": .string(Base64URL.encode(userHandle)), "name": .string("(not recorded)"),
                    "displayName": .string("(not recorded)"),
                ]),
                "challenge": challengeText,
                "pubKeyCredParams": .array(params),
                "authenticatorSelection": .object(["userVerification": .string((issued?.userVerification ?? .preferred).rawValue)]),
            ]
            if let attestation = issued?.attestation { options["attestation"] = .string(attestation.rawValue) }
            if let extensions = issued?.extensions { options["extensions"] = .object(extensions) }
            return .object(options)
        case .authentication:
            var options: [String: JSONValue] = [
                "challenge": challengeText, "rpId": .string(rpId),
                "userVerification": .string((issued?.userVerification ?? .preferred).rawValue),
            ]
            if let allow = issued?.allowCredentials, !allow.isEmpty {
                options["allowCredentials"] = .array(
                    allow.map {
                        .object(["type": .string("public-key"), "id": .string(Base64URL.encode($0))])
                    })
            }
            if let extensions = issued?.extensions { options["extensions"] = .object(extensions) }
            return .object(options)
        case .appAttest, .androidKeyAttestation, .playIntegrity:
            // Never a passkey ceremony's kind: only a caller's unparsed body can claim it, and a
            // file of this kind is refused by the replay, as a recording of no passkey ceremony.
            return .object(["challenge": challengeText, "rpId": .string(rpId)])
        }
    }

    private static func credential(_ record: CredentialRecord) -> JSONValue {
        var value: [String: JSONValue] = [
            "id": .string(Base64URL.encode(record.id)),
            "publicKey": .string(Base64URL.encode(record.publicKey)),
            "signCount": .number(Double(record.signCount)),
            "backupEligible": .bool(record.backupEligible),
            "backupState": .bool(record.backupState),
        ]
        if let handle = record.userHandle { value["userHandle"] = .string(Base64URL.encode(handle)) }
        if !record.transports.isEmpty { value["transports"] = .array(record.transports.map(JSONValue.string)) }
        return .object(value)
    }

    /// A response body as received, as the JSON value the document embeds (its members and
    /// values unchanged; the replay hands their bytes to the same `init(jsonData:)`), or nil
    /// when there is none or it does not read (then the decoded members are written).
    static func asReceived(_ body: Data?) -> JSONValue? {
        guard let body else { return nil }
        return try? JSONValue(jsonData: body)
    }

    /// RFC 3339 in UTC with milliseconds, the form the replay reads.
    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        return formatter.string(from: date)
    }
}

extension RegistrationResponse {
    /// The response as a recording keeps it: the body as received when ``init(jsonData:)`` read
    /// one (a native app's body stays a native body, browser JSON keeps every member it had),
    /// else ``decodedJSON``. The replay reads it through the same ``init(jsonData:)``.
    var recordedJSON: JSONValue { CeremonyRecording.asReceived(receivedBody) ?? decodedJSON }

    /// The response as the `RegistrationResponseJSON` members the verifier reads.
    package var decodedJSON: JSONValue {
        var inner: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
            "attestationObject": .string(Base64URL.encode(attestationObject)),
        ]
        if !transports.isEmpty { inner["transports"] = .array(transports.map(JSONValue.string)) }
        return .object([
            "id": .string(id), "rawId": .string(Base64URL.encode(rawId)), "type": .string(type),
            "response": .object(inner), "clientExtensionResults": .object(clientExtensionResults),
        ])
    }
}

extension AuthenticationResponse {
    /// The response as a recording keeps it: the body as received when ``init(jsonData:)`` read
    /// one, else ``decodedJSON`` (as for a registration).
    var recordedJSON: JSONValue { CeremonyRecording.asReceived(receivedBody) ?? decodedJSON }

    /// The response as the `AuthenticationResponseJSON` members the verifier reads.
    package var decodedJSON: JSONValue {
        var inner: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(members.clientDataJSON)),
            "authenticatorData": .string(Base64URL.encode(members.authenticatorData)),
            "signature": .string(Base64URL.encode(members.signature)),
        ]
        if let userHandle = members.userHandle { inner["userHandle"] = .string(Base64URL.encode(userHandle)) }
        return .object([
            "id": .string(id), "rawId": .string(Base64URL.encode(rawId)), "type": .string(type),
            "response": .object(inner), "clientExtensionResults": .object(clientExtensionResults),
        ])
    }
}
