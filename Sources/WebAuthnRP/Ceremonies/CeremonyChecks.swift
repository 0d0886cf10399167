package import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// Checks shared by §7.1 and §7.2 (client data, rpIdHash, flags), written once so
/// both ceremonies apply exactly the same rule. Package access: the replay holds App Attest
/// challenges (which the library leaves to the server) to the same issue and expiry rule.
package enum CeremonyChecks {
    /// The issued challenge is for this ceremony, was issued before `now`, and has not expired.
    ///
    /// A response verified exactly at `expiresAt` is accepted: only one received *more than*
    /// the lifetime after issue is late. A response verified before the recorded issue time
    /// is rejected: it cannot precede its challenge, so the clock went back between the two
    /// readings and the challenge's age, which the lifetime bounds, is unknown. Failing
    /// closed costs one retry; accepting would let a stepped-back clock stretch the lifetime.
    package static func checkIssued(_ issued: IssuedChallenge, kind: CeremonyKind, now: Date) throws(WebAuthnError) {
        guard issued.kind == kind else {
            throw WebAuthnError(.challenge, "the challenge was issued for \(issued.kind.rawValue), not \(kind.rawValue)")
        }
        // Compared as Doubles: Date's `<=` is `!(b < a)`, which holds for a NaN date.
        let verifiedAt = now.timeIntervalSinceReferenceDate
        if let issuedAt = issued.issuedAt, !(verifiedAt >= issuedAt.timeIntervalSinceReferenceDate) {
            throw WebAuthnError(
                .challenge,
                "the response is verified at \(describe(now)), before the challenge was issued at "
                    + "\(describe(issuedAt)): the clock went back, so the challenge's age is unknown")
        }
        guard verifiedAt <= issued.expiresAt.timeIntervalSinceReferenceDate else {
            throw WebAuthnError(.challenge, "the challenge expired at \(describe(issued.expiresAt))")
        }
    }

    /// A time for a message. Foundation traps describing a NaN date, so NaN, infinite and
    /// far-off times (outside roughly years 1 to 9900) are given as seconds since 2001.
    static func describe(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, seconds > -6.3e10, seconds < 2.5e11 else { return "\(seconds) s after 2001-01-01" }
        // Rounded to the millisecond shown, so 0.001 s stored as 0.000999… does not print as .000.
        let shown = Date(timeIntervalSinceReferenceDate: (seconds * 1000).rounded() / 1000)
        return shown.ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Where the steps both ceremonies share stand in each one's numbering, and the client-data
    /// type each expects.
    struct SharedSteps: Sendable {
        /// The ceremony these numbers belong to.
        let kind: CeremonyKind
        let parse, type, challenge, origin, crossOrigin, topOrigin, userPresent, userVerified, backupFlags: String
        let pendingTitle: String
        /// `C.type`'s value for this ceremony.
        let expectedType: String
        let typeTitle: String

        init(
            _ kind: CeremonyKind, _ section: String, parse: String, clientDataFrom first: Int, flagsFrom flags: Int,
            expectedType: String
        ) {
            func step(_ number: Int) -> String { "\(section) step \(number)" }
            self.kind = kind
            let ceremony = kind == .registration ? "a registration" : "an authentication"
            pendingTitle = "the challenge was issued for \(ceremony) and has not expired"
            self.parse = "\(section) steps \(parse)"
            (type, challenge, origin) = (step(first), step(first + 1), step(first + 2))
            (crossOrigin, topOrigin) = (step(first + 3), step(first + 4))
            (userPresent, userVerified, backupFlags) = (step(flags), step(flags + 1), step(flags + 2))
            self.expectedType = expectedType
            typeTitle = "C.type is \(expectedType)"
        }

        static let registration = SharedSteps(
            .registration, "§7.1", parse: "5-6", clientDataFrom: 7, flagsFrom: 15, expectedType: "webauthn.create")
        static let authentication = SharedSteps(
            .authentication, "§7.2", parse: "7-9", clientDataFrom: 10, flagsFrom: 16, expectedType: "webauthn.get")
    }

    /// The first step of both ceremonies: the challenge was issued for this kind of ceremony and
    /// is still pending at `now`.
    static func verifyPending(
        _ issued: IssuedChallenge, steps: SharedSteps, now: Date, trace: inout CeremonyTrace
    ) throws(WebAuthnError) {
        try trace.check("pending", steps.pendingTitle) { () throws(WebAuthnError) in
            try checkIssued(issued, kind: steps.kind, now: now)
        }
    }

    /// The client-data steps, the same in both ceremonies but for their numbers (§7.1 steps
    /// 5-11, §7.2 steps 7-14): parse `clientDataJSON` (unless the caller already did, to find
    /// the challenge), then check type, challenge, origin, crossOrigin and topOrigin.
    /// `checkingTokenBinding` (the FIDO conformance profile only) refuses at the parse step a
    /// `tokenBinding` member without its Level 2 shape, which L3 leaves unverified.
    static func verifyClientData(
        _ json: ArraySlice<UInt8>, parsed: CollectedClientData?, steps: SharedSteps,
        issued: IssuedChallenge, relyingParty: RelyingParty, checkingTokenBinding: Bool, trace: inout CeremonyTrace
    ) throws(WebAuthnError) -> CollectedClientData {
        let clientData = try trace.check(steps.parse, "clientDataJSON is UTF-8 JSON client data") { () throws(WebAuthnError) in
            let clientData: CollectedClientData
            if let parsed { clientData = parsed } else { clientData = try CollectedClientData(jsonBytes: json) }
            if checkingTokenBinding, let fault = clientData.tokenBindingFault {
                throw WebAuthnError(.malformed, "clientDataJSON: \(fault) (the FIDO conformance profile checks it)")
            }
            return clientData
        }
        try trace.check(steps.type, steps.typeTitle) { () throws(WebAuthnError) in
            try checkType(clientData, expected: steps.expectedType)
        }
        try trace.check(steps.challenge, "C.challenge is the issued challenge") { () throws(WebAuthnError) in
            try checkChallenge(clientData, issued: issued)
        }
        try trace.check(steps.origin, "C.origin is an expected origin", detail: clientData.origin) { () throws(WebAuthnError) in
            try checkOrigin(clientData, relyingParty: relyingParty)
        }
        try trace.check(steps.crossOrigin, "crossOrigin only where the RP expects iframes") { () throws(WebAuthnError) in
            try checkCrossOrigin(clientData, relyingParty: relyingParty)
        }
        if clientData.topOrigin == nil {
            trace.skip(steps.topOrigin, "topOrigin is an expected top origin", because: "no topOrigin in client data")
        } else {
            try trace.check(steps.topOrigin, "topOrigin is an expected top origin") { () throws(WebAuthnError) in
                try checkTopOrigin(clientData, relyingParty: relyingParty)
            }
        }
        return clientData
    }

    /// The flag steps, the same in both ceremonies but for their numbers (§7.1 steps 15-17,
    /// §7.2 steps 16-18): UP set (unless a conditional create made presence optional), UV set
    /// when required, BS not set without BE.
    static func verifyFlags(
        _ authData: AuthenticatorData, steps: SharedSteps, userPresenceOptional: Bool,
        because reason: String = "conditional mediation was requested",
        requirement: UserVerificationRequirement, trace: inout CeremonyTrace
    ) throws(WebAuthnError) {
        if userPresenceOptional {
            trace.skip(steps.userPresent, "UP flag set", because: reason)
        } else {
            try trace.check(steps.userPresent, "UP flag set") { () throws(WebAuthnError) in
                try checkUserPresent(authData)
            }
        }
        try trace.check(
            steps.userVerified, "UV flag set when user verification is required",
            detail: "userVerification \(requirement.rawValue)"
        ) { () throws(WebAuthnError) in
            try checkUserVerified(authData, requirement: requirement)
        }
        try trace.check(steps.backupFlags, "BS is not set without BE") { () throws(WebAuthnError) in
            try checkBackupFlags(authData)
        }
    }

    static func checkType(_ clientData: CollectedClientData, expected: String) throws(WebAuthnError) {
        guard clientData.type == expected else {
            throw WebAuthnError(.type, "clientData.type is \"\(clientData.type)\", expected \"\(expected)\"")
        }
    }

    static func checkChallenge(_ clientData: CollectedClientData, issued: IssuedChallenge) throws(WebAuthnError) {
        // Compared against the canonical encoding without building it, in time that does not
        // depend on where the two differ.
        guard Base64URL.isEncoding(utf8: clientData.challengeUTF8, of: issued.challenge) else {
            let expected = Base64URL.encode(issued.challenge)
            throw WebAuthnError(.challenge, "clientData.challenge is \"\(clientData.challenge)\", expected \"\(expected)\"")
        }
    }

    static func checkOrigin(_ clientData: CollectedClientData, relyingParty: RelyingParty) throws(WebAuthnError) {
        guard relyingParty.isAllowedOrigin(utf8: clientData.originUTF8) else {
            throw WebAuthnError(.origin, "origin \"\(clientData.origin)\" is not one of \(relyingParty.origins)")
        }
    }

    static func checkCrossOrigin(_ clientData: CollectedClientData, relyingParty: RelyingParty) throws(WebAuthnError) {
        if clientData.crossOrigin == true, !relyingParty.allowCrossOrigin {
            throw WebAuthnError(.origin, "crossOrigin is true but the relying party does not expect cross-origin iframes")
        }
    }

    static func checkTopOrigin(_ clientData: CollectedClientData, relyingParty: RelyingParty) throws(WebAuthnError) {
        guard let topOrigin = clientData.topOrigin else { return }
        guard relyingParty.allowCrossOrigin else {
            throw WebAuthnError(.origin, "topOrigin \"\(topOrigin)\" present but cross-origin ceremonies are not expected")
        }
        guard clientData.crossOrigin == true else {
            throw WebAuthnError(.origin, "topOrigin \"\(topOrigin)\" present while crossOrigin is not true")
        }
        guard relyingParty.isAllowedTopOrigin(topOrigin) else {
            throw WebAuthnError(.origin, "topOrigin \"\(topOrigin)\" is not one of \(relyingParty.topOrigins)")
        }
    }

    /// The RP ID the options named is nearly always the relying party's own, whose hash
    /// `RelyingParty` computed once; only a different RP ID is hashed here.
    static func checkRPIDHash(
        _ authData: AuthenticatorData, rpId: String,
        relyingParty: RelyingParty
    ) throws(WebAuthnError) {
        let expected = rpId == relyingParty.id ? relyingParty.rpIdHash : Digest.sha256.hash(Array(rpId.utf8))
        guard ConstantTime.equals(authData.rpIdHash, expected) else {
            throw WebAuthnError(.rpIdHash, "rpIdHash is not SHA-256(\"\(rpId)\")")
        }
    }

    static func checkUserPresent(_ authData: AuthenticatorData) throws(WebAuthnError) {
        guard authData.flags.contains(.userPresent) else {
            throw WebAuthnError(.userPresence, "the UP flag is clear")
        }
    }

    static func checkUserVerified(_ authData: AuthenticatorData, requirement: UserVerificationRequirement) throws(WebAuthnError) {
        guard requirement == .required else { return }
        guard authData.flags.contains(.userVerified) else {
            throw WebAuthnError(.userVerification, "user verification is required and the UV flag is clear")
        }
    }

    static func checkBackupFlags(_ authData: AuthenticatorData) throws(WebAuthnError) {
        if authData.flags.contains(.backupState), !authData.flags.contains(.backupEligible) {
            throw WebAuthnError(.backupFlags, "BS is set while BE is clear")
        }
    }

    /// COSE key options for a credential: RS1 (SHA-1) keys are refused unless the relying
    /// party both accepts RS1 in its policy and offered it for this ceremony.
    static func credentialKeyOptions(offered: [COSEAlgorithm], policy: VerificationPolicy) -> COSEKeyOptions {
        var options = COSEKeyOptions.default
        options.allowRS1 = offered.contains(.rs1) && policy.acceptedAlgorithms.contains(.rs1)
        return options
    }

    /// Maps a COSE key failure: an algorithm the library cannot verify is `algorithm`,
    /// anything else about the key is `malformed`.
    static func coseKeyError(_ error: CryptoError, context: String) -> WebAuthnError {
        switch error.code {
        case .unsupportedAlgorithm, .unsupportedByLibCrypto:
            return WebAuthnError(.algorithm, "\(context): \(error)")
        default:
            return WebAuthnError(.malformed, "\(context): \(error)")
        }
    }
}
