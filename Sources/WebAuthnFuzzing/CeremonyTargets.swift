import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP
import WebAuthnReplay

/// One target per whole ceremony (§7.1 registration and §7.2 authentication from the JSON a
/// client posts) and one for loading a recorded-ceremony fixture file.
///
/// The relying party, policy, clock and credential records are fixed: `example.org` at
/// `https://example.org`, 2025-06-01T00:00:00Z, the fixtures' attestation root as the only
/// anchor, and the records of the recorded registrations (``RecordedInputs``). The issued
/// challenge is the one the input's client data names (a fixed one when it names none that
/// decodes): a fuzzer cannot find a 32-byte challenge by mutation, and with a fixed challenge
/// every mutated input would stop at step 8. The challenge comparison itself is covered by
/// the unit tests and the fixtures.
enum CeremonyTargets {
    static let all: [FuzzTarget] = [registration, authentication, fixture]

    static let relyingParty = RelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])
    static let now = ParserTargets.verificationTime
    static let fallbackChallenge = [UInt8](repeating: 0x42, count: 32)
    static let policy = VerificationPolicy(
        acceptedAlgorithms: VerificationPolicy.defaultAlgorithms + [.rs1, .mlDSA44, .mlDSA65, .mlDSA87],
        attestation: AttestationPolicy(source: FixedTrustAnchors(AttestationStatementTargets.trustAnchors)))
    static let records: [CredentialRecord] = RecordedInputs.records.compactMap { record in
        guard let id = try? Base64URL.decode(record.id), let key = try? Base64URL.decode(record.publicKey),
            let user = try? Base64URL.decode(record.userHandle)
        else { return nil }
        return CredentialRecord(
            id: id, publicKey: key, signCount: record.signCount,
            userHandle: user, backupEligible: record.backupEligible)
    }

    /// The challenge the client data names, or the fixed fallback.
    static func challenge(in clientDataJSON: [UInt8]) -> [UInt8] {
        CollectedClientDataReading.challenge(in: clientDataJSON) ?? fallbackChallenge
    }

    /// The challenge the fixed relying party is taken to have issued for a response (see the
    /// type's comment): the one its client data names, for `example.org`, user verification
    /// preferred, answerable until five minutes after ``now``.
    static func issuedChallenge(
        _ kind: CeremonyKind, answeredBy clientDataJSON: [UInt8], userHandle: [UInt8]? = nil,
        allowCredentials: [[UInt8]] = [], offeredAlgorithms: [COSEAlgorithm] = [],
        attestation: AttestationConveyancePreference? = nil
    ) -> IssuedChallenge {
        IssuedChallenge(
            challenge: challenge(in: clientDataJSON), kind: kind, rpId: relyingParty.id, userHandle: userHandle,
            allowCredentials: allowCredentials, userVerification: .preferred, offeredAlgorithms: offeredAlgorithms,
            attestation: attestation, expiresAt: now.addingTimeInterval(300))
    }

    // MARK: Registration

    static let registration = FuzzTarget(
        "registration",
        checks: """
            RegistrationResponseJSON bytes through RegistrationVerifier (§7.1, every step) against the fixed \
            relying party, policy and clock: the same verdict and the same step trace twice; an accepted \
            registration's record names the credential of the response, with a key that parses again
            """
    ) { bytes, check in
        let (first, verified) = verifyRegistration(bytes)
        let (second, _) = verifyRegistration(bytes)
        check.requireSame(first, second, "verifying twice gives the same verdict and trace")
        guard let verified else { return }
        let record = verified.record
        check.require(
            verified.authenticatorData.attestedCredentialData?.credentialId.elementsEqual(record.id) == true,
            "the record's id is authData's credential id", record.id.hex)
        var options = COSEKeyOptions()
        options.allowRS1 = true
        let key = try? COSEKey(cbor: record.publicKey[...], options: options)
        check.require(
            key?.algorithm.rawValue == record.algorithm, "the record's key parses again with the record's algorithm",
            record.publicKey.hex)
    }

    static func verifyRegistration(_ bytes: ArraySlice<UInt8>) -> (String, VerifiedRegistration?) {
        verifyBody(
            bytes, decode: RegistrationResponseJSON.init(jsonData:), response: RegistrationResponse.init(json:),
            verify: { (response: RegistrationResponse, trace: inout CeremonyTrace) throws(WebAuthnError) in
                let issued = issuedChallenge(
                    .registration, answeredBy: response.clientDataJSON, userHandle: [1, 2, 3, 4],
                    offeredAlgorithms: policy.acceptedAlgorithms, attestation: .direct)
                let verifier = RegistrationVerifier(relyingParty: relyingParty, policy: policy)
                return try verifier.verify(response, issued: issued, now: now, trace: &trace)
            }, describe: { (verified: VerifiedRegistration) in describe(verified) })
    }

    /// Decodes a response body (an undecodable one is a `reject:` verdict with no trace), then
    /// verifies it with a fresh trace: the verdict and the trace as text, and what was verified.
    static func verifyBody<JSON, Response, Verified>(
        _ bytes: ArraySlice<UInt8>, decode: (Data) throws -> JSON, response: (JSON) -> Response,
        verify: (Response, inout CeremonyTrace) throws(WebAuthnError) -> Verified,
        describe describeVerified: (Verified) -> String
    ) -> (String, Verified?) {
        let json: JSON
        do { json = try decode(Data(bytes)) } catch { return ("reject: \(error)", nil) }
        let decoded = response(json)
        var trace = CeremonyTrace()
        let (verdict, verified) = Verdict.of(
            { () throws(WebAuthnError) in try verify(decoded, &trace) }, describe: describeVerified)
        return (verdict + "\n" + describe(trace), verified)
    }

    static func describe(_ verified: VerifiedRegistration) -> String {
        "record \(verified.record) attestation \(AttestationStatementTargets.describe(verified.attestation))"
    }

    static func describe(_ trace: CeremonyTrace) -> String {
        trace.rows.map { "\($0.step) \($0.title) \($0.outcome) \($0.note ?? "")" }.joined(separator: "\n")
    }

    // MARK: Authentication

    static let authentication = FuzzTarget(
        "authentication",
        checks: """
            AuthenticationResponseJSON bytes through AuthenticationVerifier (§7.2, every step) against the \
            fixed relying party and the recorded credential records (all listed in allowCredentials): the \
            same verdict and trace twice; an accepted login updates exactly the record it names, to the \
            received counter
            """
    ) { bytes, check in
        let (first, verified) = verifyAuthentication(bytes)
        let (second, _) = verifyAuthentication(bytes)
        check.requireSame(first, second, "verifying twice gives the same verdict and trace")
        guard let verified else { return }
        let original = records.first { $0.id == verified.updatedRecord.id }
        check.require(original != nil, "an accepted login belongs to a known record", verified.updatedRecord.id.hex)
        check.require(
            verified.updatedRecord.signCount == verified.authenticatorData.signCount,
            "the updated record holds the received counter", "\(verified.updatedRecord.signCount)")
        check.require(verified.updatedRecord.publicKey == original?.publicKey, "the key is unchanged", verified.updatedRecord.id.hex)
    }

    static func verifyAuthentication(_ bytes: ArraySlice<UInt8>) -> (String, VerifiedAuthentication?) {
        verifyBody(
            bytes, decode: AuthenticationResponseJSON.init(jsonData:), response: AuthenticationResponse.init(json:),
            verify: { (response: AuthenticationResponse, trace: inout CeremonyTrace) throws(WebAuthnError) in
                let issued = issuedChallenge(.authentication, answeredBy: response.clientDataJSON, allowCredentials: records.map(\.id))
                let record = records.first { $0.id == response.rawId }
                let verifier = AuthenticationVerifier(relyingParty: relyingParty, policy: policy)
                return try verifier.verify(response, issued: issued, record: record, now: now, trace: &trace)
            }, describe: { "record \($0.updatedRecord) counterRegressed \($0.counterRegressed)" })
    }

    // MARK: Fixture files

    static let fixture = FuzzTarget(
        "fixture",
        checks: """
            a webauthn-ceremonies/1 document through WebAuthnReplay's loading (JSON decoding, format and \
            name checks, relying party, policy, trust anchors, credential records, each ceremony's issued \
            challenge): the same description, or the same error, twice
            """
    ) { bytes, check in
        let load = { () -> String in
            do {
                return "accept: " + (try Replayer.describeFixture(Data(bytes), file: "fuzz-input"))
            } catch {
                return "reject: \(error)"
            }
        }
        check.requireSame(load(), load(), "loading twice gives the same result")
    }
}
