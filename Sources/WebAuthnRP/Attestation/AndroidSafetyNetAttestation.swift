import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// `android-safetynet` (W3C L3 §8.5): a SafetyNet attestation API response (a JWS
/// signed by Google for the host name `attest.android.com`) whose nonce binds the
/// authenticator data and client data.
struct AndroidSafetyNetAttestation: AttestationFormat {
    let identifier = "android-safetynet"
    /// Vouches for the AAGUID: the JWS nonce is SHA-256 of authenticatorData || clientDataHash.
    let attestsAAGUID = true

    /// The host name the SafetyNet attestation certificate is issued to.
    static let attestationHostname = "attest.android.com"

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        try context.requireMapStatement()
        let ver = try context.member("ver", is: "a text string") { $0.text }
        guard !ver.isEmpty else { throw context.failure("ver is an empty text string") }
        let response = try context.member("response", is: "a byte string") { $0.bytes }

        // "Verify that response is a valid SafetyNet response of version ver by following the steps
        // indicated by the SafetyNet online documentation." The response is a JWS whose header names
        // the signature algorithm and carries the signing chain (x5c, standard base64 DER).
        let jws: CompactJWS
        do {
            jws = try CompactJWS(response)
        } catch {
            throw context.failure("response (ver \(ver)) is not a compact JWS: \(error)")
        }
        if jws.header["crit"] != nil {
            // RFC 7515 §4.1.11: a recipient that does not understand a critical extension must reject.
            throw context.failure("JWS header has crit extensions this verifier does not understand")
        }
        let algName = try jsonMember(jws.header["alg"], "JWS header alg", is: "a string") { $0.stringValue }
        guard let algorithm = CompactJWS.Algorithm.named(algName) else {
            throw context.failure("JWS alg \(algName) is not supported")
        }
        let (leaf, chain) = try headerCertificates(jws.header["x5c"])

        let signature: [UInt8]
        do {
            signature = try jws.signatureForVerification(algorithm)
        } catch {
            throw context.failure("JWS signature: \(error)")
        }
        try context.requireSignature(
            signature[...], over: jws.signingInput, key: leaf.publicKey,
            algorithm: algorithm.cose, signer: "JWS (\(algName))")

        let payloadValue: JSONValue
        do {
            payloadValue = try JSONReader.parse(jws.payload[...])
        } catch {
            throw context.failure("JWS payload is not JSON: \(error)")
        }
        guard let payload = payloadValue.objectValue else {
            throw context.failure("JWS payload is not a JSON object")
        }

        // "Verify that the nonce attribute in the payload of response is identical to the Base64
        // encoding of the SHA-256 hash of the concatenation of authenticatorData and clientDataHash."
        let nonce = try jsonMember(payload["nonce"], "payload nonce", is: "a string") { $0.stringValue }
        let expectedNonce = StandardBase64.encode(Digest.sha256.hash(context.signedData))
        guard nonce == expectedNonce else {
            throw context.failure("payload nonce is not base64(SHA-256(authenticatorData || clientDataHash))")
        }

        // "Verify that the SafetyNet response actually came from the SafetyNet service by following
        // the steps in the SafetyNet online documentation": the signing certificate is issued to the
        // host name attest.android.com. (Chaining x5c to a Google root is the trust step, done with
        // the policy's anchors like every other format's trust path.)
        try checkHostname(leaf)

        // "Verify that the ctsProfileMatch attribute in the payload of response is true."
        guard payload["ctsProfileMatch"] == .bool(true) else {
            throw context.failure("payload ctsProfileMatch is not true: the device failed the compatibility check")
        }

        // The SafetyNet documentation: check timestampMs, the time the response was generated, so an old
        // response cannot be replayed. It must lie within safetyNetMaximumAge of the verification time,
        // on either side (the same window also absorbs clock skew).
        try checkTimestamp(payload["timestampMs"], context: context)

        // "If successful, return implementation-specific values representing attestation type Basic
        // and attestation trust path x5c."
        return AttestationOutcome(type: .basic, trustPath: chain)
    }

    /// The header's `x5c`, a non-empty array of standard base64 DER certificates: its leaf and the
    /// whole chain, leaf first.
    private func headerCertificates(_ value: JSONValue?) throws(WebAuthnError) -> (leaf: Certificate, chain: [Certificate]) {
        let entries = try jsonMember(value, "JWS header x5c", is: "an array") { $0.arrayValue }
        try AttestationContext.checkChainLength(entries.count, "JWS header x5c", format: identifier)
        var chain: [Certificate] = []
        for (index, entry) in entries.enumerated() {
            guard let text = entry.stringValue else {
                throw AttestationContext.failure(identifier, "JWS header x5c[\(index)] is not a string")
            }
            let der: [UInt8]
            do {
                der = try StandardBase64.decode(text)
            } catch {
                throw AttestationContext.failure(identifier, "JWS header x5c[\(index)] is not base64: \(error)")
            }
            do {
                chain.append(try Certificate(derEncoded: der))
            } catch {
                throw AttestationContext.failure(identifier, "JWS header x5c[\(index)] does not parse: \(error)")
            }
        }
        guard let leaf = chain.first else { throw AttestationContext.failure(identifier, "JWS header x5c is an empty array") }
        return (leaf, chain)
    }

    /// The leaf must be issued to attest.android.com: by a dNSName when the certificate has
    /// any (RFC 6125 §6.4.4: then the subject CN is not consulted), otherwise by the subject CN.
    /// The comparison is exact apart from ASCII case; wildcards are not accepted.
    private func checkHostname(_ leaf: Certificate) throws(WebAuthnError) {
        let dnsNames = leaf.subjectAlternativeNames.compactMap { name -> String? in
            if case .dnsName(let value) = name { return value }
            return nil
        }
        let names = dnsNames.isEmpty ? [leaf.subject.commonName].compactMap { $0 } : dnsNames
        guard names.contains(where: { Self.hostnameEquals($0, Self.attestationHostname) }) else {
            let shown = names.isEmpty ? "no dNSName and no CN" : names.joined(separator: ", ")
            throw AttestationContext.failure(
                identifier,
                "the JWS signing certificate is not issued to \(Self.attestationHostname) (\(shown))")
        }
    }

    private static func hostnameEquals(_ a: String, _ b: String) -> Bool {
        let lower: (UInt8) -> UInt8 = { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        return a.utf8.map(lower) == b.utf8.map(lower)
    }

    /// A required JSON member of the JWS header or payload: "missing" when absent, "not …" when
    /// of another type.
    private func jsonMember<T>(
        _ value: JSONValue?, _ name: String, is kind: String,
        _ read: (JSONValue) -> T?
    ) throws(WebAuthnError) -> T {
        guard let value else { throw AttestationContext.failure(identifier, "\(name) is missing") }
        guard let typed = read(value) else { throw AttestationContext.failure(identifier, "\(name) is not \(kind)") }
        return typed
    }

    private func checkTimestamp(_ value: JSONValue?, context: AttestationContext) throws(WebAuthnError) {
        let milliseconds = try jsonMember(value, "payload timestampMs", is: "a number") { $0.numberValue }
        guard milliseconds >= 0, milliseconds.rounded(.towardZero) == milliseconds, milliseconds < 1e15 else {
            throw AttestationContext.failure(identifier, "payload timestampMs \(milliseconds) is not a non-negative integer")
        }
        let generated = Date(timeIntervalSince1970: milliseconds / 1000)
        let age = context.verificationTime.timeIntervalSince(generated)
        let limit = context.options.safetyNetMaximumAge
        guard age <= limit else {
            throw AttestationContext.failure(
                identifier,
                "the SafetyNet response is \(Int(age.rounded(.down))) s old, more than the \(limit) s allowed")
        }
        guard -age <= limit else {
            throw AttestationContext.failure(
                identifier,
                "the SafetyNet response is dated \(Int((-age).rounded(.down))) s in the future, more than the \(limit) s allowed")
        }
    }
}
