import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// One target per attestation statement format: the input is the `attStmt` CBOR, verified by
/// that format's procedure against a fixed, recorded authenticator data and client data hash,
/// with the fixtures' attestation root as trust anchor so that trust paths run too.
///
/// The context of each format is a recorded registration of that format
/// (`Fixtures/attestation/<format>/es256.json`; packed: `packed-x5c`; android-safetynet, which
/// the fixtures do not record: the packed one), so the seed taken from that registration verifies
/// completely and the mutations start from a statement that passes.
enum AttestationStatementTargets {
    /// Every format of the library's one list except `none`, whose statement must be the empty
    /// map (one comparison, nothing for a fuzzer to explore).
    static let formats = AttestationFormatList.identifiers.filter { $0 != "none" }
    static let all: [FuzzTarget] = formats.map(target)

    static let trustAnchors: [Certificate] = RecordedInputs.trustAnchorsBase64URL.compactMap { text in
        guard let der = try? Base64URL.decode(text) else { return nil }
        return try? Certificate(derEncoded: der)
    }

    /// Any sub-statement of a compound statement suffices, so a compound that holds one good
    /// statement reaches the trust assessment of its components.
    static let policy = AttestationPolicy(
        source: FixedTrustAnchors(trustAnchors), formats: AttestationFormatOptions(compoundRequirement: .any))

    struct Context {
        let authenticatorData: AuthenticatorData
        let clientDataHash: [UInt8]
    }

    /// The parsed recorded contexts, by format.
    static let contexts: [String: Context] = RecordedInputs.contexts.compactMapValues { recorded in
        guard let auth = try? Base64URL.decode(recorded.authenticatorData), let parsed = try? AuthenticatorData(bytes: auth),
            let clientData = try? Base64URL.decode(recorded.clientDataJSON)
        else { return nil }
        return Context(authenticatorData: parsed, clientDataHash: Digest.sha256.hash(clientData))
    }

    /// The context a format's statements are verified against.
    static func context(for format: String) -> Context? { contexts[format] ?? contexts["packed"] }

    static func target(_ format: String) -> FuzzTarget {
        FuzzTarget(
            "attstmt-\(format)",
            checks: """
                the input as the attStmt of a \(format) statement (CBOR), verified by the \(format) procedure \
                against a recorded authenticator data and client data hash, with trust assessed against the \
                fixtures' root: the same verdict (result, trust path, trust, or error) twice
                """
        ) { bytes, check in
            guard let context = context(for: format) else {
                check.require(false, "the recorded context parses", "RecordedInputs does not hold a usable context")
                return
            }
            let run = { () -> String in
                let statement: CBORItem
                do {
                    statement = try CBOR.decode(bytes)
                } catch {
                    return "reject: \(error)"
                }
                return Verdict.of(
                    { () throws(WebAuthnError) in
                        try AttestationStatementCheck.verify(
                            format: format, statement: statement,
                            authenticatorData: context.authenticatorData,
                            clientDataHash: context.clientDataHash, policy: policy,
                            at: ParserTargets.verificationTime)
                    }, describe: describe
                ).0
            }
            check.requireSame(run(), run(), "verifying twice gives the same verdict")
        }
    }

    static func describe(_ result: AttestationResult) -> String {
        var out = "fmt \(result.format) type \(result.type) trusted \(result.trusted)"
        out += " anchor \(result.trustAnchor?.subject.description ?? "-") path \(result.trustPath.map { $0.derBytes.hex })"
        out += " untrusted \(result.untrustedReason ?? "-")"
        out += " details \(result.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
        out += " components [\(result.components.map(describe).joined(separator: "; "))]"
        return out
    }
}
