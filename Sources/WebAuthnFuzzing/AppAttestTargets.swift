import Foundation
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP

/// Apple App Attest: the attestation object and the assertion, each verified in full by
/// `AppAttestVerifier` (the stateless core of `AppAttestService`) against a fixed context taken
/// from `Fixtures/app-attest/` (the test App Attestation root, the key id and challenge of
/// `production.json`'s `attest`, the key and client data of `preloaded-keys.json`'s `assert-6`),
/// so the seeds from those files verify completely and mutations start from ceremonies that pass.
enum AppAttestTargets {
    static let all: [FuzzTarget] = [attestation, assertion]

    static let app = AppleApp(teamId: "0352187391", bundleId: "com.example.app")
    /// 2025-06-01T00:00:00Z, the fixtures' verification time.
    static let time = Date(timeIntervalSince1970: 1_748_736_000)

    static let trustAnchors: [Certificate] = {
        let text =
            "MIIBmDCCAT6gAwIBAgIBATAKBggqhkjOPQQDAjBDMSUwIwYDVQQDDBxUZXN0IEFwcCBBdHRlc3RhdGlvbiBSb290IENBMQ0wCwYD"
            + "VQQKDARUZXN0MQswCQYDVQQGEwJBQTAeFw0yNDAxMDIwMDAwMDBaFw0zNDEyMzAwMDAwMDBaMEMxJTAjBgNVBAMMHFRlc3QgQXBw"
            + "IEF0dGVzdGF0aW9uIFJvb3QgQ0ExDTALBgNVBAoMBFRlc3QxCzAJBgNVBAYTAkFBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"
            + "DVgkEgvBARmd3LKvvGUSMT7zEFN08aD6QT1gcyhsc-EumpshsJ-niwpt-kLk7uQDLl41sQxXK-0L4uVJcyLVRKMjMCEwDwYDVR0T"
            + "AQH_BAUwAwEB_zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwIDSAAwRQIgesCCI0mdeR7pzLI_eLrgc6rpk-wYH0HDs0wrx47n"
            + "sQACIQClRcji5VOkjdN2L_qEcNLqcKzTxfUfi_I0oOx1NLMswg"
        guard let der = try? Base64URL.decode(text), let certificate = try? Certificate(derEncoded: der) else { return [] }
        return [certificate]
    }()

    static let verifier = AppAttestVerifier(app: app, environment: .production, trustAnchors: trustAnchors)

    static func bytes(_ text: String) -> [UInt8] { (try? Base64URL.decode(text)) ?? [] }

    static let attestationKeyId = bytes("f0oapHiUWQJ0tReGs0_RusUEtRnuARHBIQY647b-U-Y")
    static let attestationChallenge = bytes("ddIA9Dy5OTmDUBLaYIU5Hob7oqne1Tjor7gnWLbA8VE")

    static let storedKey = AttestedAppKey(
        keyId: bytes("v1_tb2KUPmebYBiJN5cv2sTVafPt_iDhmYdn7nVRztA"),
        publicKey: bytes("BKi-MtGPYt5GLah37Yc6fIxHuzoqidWqRyosRYSgfE7uomzc0HDNYwex3q84FxkM8McDcKsx43pJjZJev0Qymp8"),
        signCount: 5, environment: .production)
    static let clientData = bytes(
        "VIj33b4paJSl1GWBGUf_iS5YapmQGk5wu5x86r6VFXtQT1NUIC92MS9vcmRlcnMgeyJpdGVtIjo0MiwiY2VyZW1vbnkiOiJhc3NlcnQtNiJ9")

    static let attestation = FuzzTarget(
        "appattest-attestation",
        checks: """
            the input as an App Attest attestation object, verified by AppAttestVerifier (chain to the \
            fixtures' App Attest root, nonce extension, key id, rpIdHash, counter, AAGUID, credential id): \
            the same verdict twice; an accepted attestation's key hashes to the key id and has counter 0
            """
    ) { bytes, check in
        let run = { () -> (String, VerifiedAppAttestation?) in
            var trace = CeremonyTrace()
            return Verdict.of(
                { () throws(WebAuthnError) in
                    try verifier.verifyAttestation(
                        Array(bytes), keyId: attestationKeyId,
                        clientDataHash: Digest.sha256.hash(attestationChallenge), at: time, trace: &trace)
                }, describe: { "\($0.key) chain \($0.certificateChain.map(\.derBytes))" })
        }
        let (first, verified) = run()
        check.requireSame(first, run().0, "verifying twice gives the same verdict")
        if let verified {
            check.require(
                Digest.sha256.hash(verified.key.publicKey) == attestationKeyId && verified.key.signCount == 0,
                "an accepted key hashes to the key id and starts at counter 0", "\(verified.key)")
        }
    }

    static let assertion = FuzzTarget(
        "appattest-assertion",
        checks: """
            the input as an App Attest assertion, verified by AppAttestVerifier against a stored key with \
            counter 5: the same verdict twice; an accepted assertion's counter is above 5 and its rpIdHash the App ID's
            """
    ) { bytes, check in
        let run = { () -> (String, VerifiedAppAssertion?) in
            var trace = CeremonyTrace()
            return Verdict.of(
                { () throws(WebAuthnError) in
                    try verifier.verifyAssertion(Array(bytes), clientData: clientData, key: storedKey, trace: &trace)
                }, describe: { "\($0.updatedKey) \(Array($0.authenticatorData.rawBytes))" })
        }
        let (first, verified) = run()
        check.requireSame(first, run().0, "verifying twice gives the same verdict")
        if let verified {
            let rpIdHash = Digest.sha256.hash(Array(app.appID.utf8))
            check.require(
                verified.updatedKey.signCount > storedKey.signCount && verified.authenticatorData.rpIdHash.elementsEqual(rpIdHash),
                "an accepted assertion advances the counter and names the app", "\(verified.updatedKey)")
        }
    }
}
