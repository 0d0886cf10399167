import WebAuthnCoding
import WebAuthnCrypto

/// `android-key` (W3C L3 §8.4): attestation by the Android Keystore (Keymaster or
/// KeyMint), whose attestation certificate describes the key in an extension.
struct AndroidKeyAttestation: AttestationFormat {
    let identifier = "android-key"
    /// Vouches for the AAGUID: sig, made with the attested key, covers authenticatorData.
    let attestsAAGUID = true

    func verify(_ context: AttestationContext) throws(WebAuthnError) -> AttestationOutcome {
        try context.requireMapStatement()
        let alg = try context.algorithm()
        let sig = try context.signature()
        let (credCert, chain) = try context.certificates()

        // "Verify that sig is a valid signature over the concatenation of authenticatorData and
        // clientDataHash using the public key in the first certificate in x5c with the algorithm
        // specified in alg."
        try context.requireSignature(
            sig, over: context.signedData, key: credCert.publicKey, algorithm: alg,
            signer: "attestation certificate")

        // "Verify that the public key in the first certificate in x5c matches the credentialPublicKey
        // in the attestedCredentialData in authenticatorData."
        guard credCert.publicKey.isEqual(to: context.credentialKey.publicKey) else {
            throw context.failure("the first certificate's public key (\(credCert.publicKey.keyKind)) is not the credential public key")
        }

        guard let ext = credCert.extension(oid: AndroidKeyDescription.extensionOID) else {
            throw context.failure("the certificate lacks the key description extension \(AndroidKeyDescription.extensionOID)")
        }
        let description: AndroidKeyDescription
        do {
            description = try AndroidKeyDescription(derEncoded: ext.value)
        } catch {
            throw context.failure("the key description extension does not parse: \(error)")
        }

        // "Verify that the attestationChallenge field in the attestation certificate extension data is
        // identical to clientDataHash."
        guard description.attestationChallenge == context.clientDataHash else {
            throw context.failure("attestationChallenge is not clientDataHash")
        }

        // "The AuthorizationList.allApplications field is not present on either authorization list
        // (softwareEnforced nor teeEnforced), since PublicKeyCredential MUST be scoped to the RP ID."
        guard !description.softwareEnforced.allApplications else {
            throw context.failure("softwareEnforced has allApplications: the key is not scoped to the RP ID")
        }
        guard !description.teeEnforced.allApplications else {
            throw context.failure("teeEnforced has allApplications: the key is not scoped to the RP ID")
        }

        // "For the following, use only the teeEnforced authorization list if the RP wants to accept
        // only keys from a trusted execution environment, otherwise use the union of teeEnforced and
        // softwareEnforced."
        let lists: [(name: String, list: AndroidAuthorizationList)]
        let listNames: String
        switch context.options.androidKeyAuthorizations {
        case .teeEnforcedOnly:
            lists = [("teeEnforced", description.teeEnforced)]
            listNames = "teeEnforced"
        case .teeOrSoftware:
            lists = [("teeEnforced", description.teeEnforced), ("softwareEnforced", description.softwareEnforced)]
            listNames = "teeEnforced or softwareEnforced"
        }

        // "The value in the AuthorizationList.origin field is equal to KM_ORIGIN_GENERATED."
        // An absent origin is not "equal to KM_ORIGIN_GENERATED"; an origin stated by either list
        // in the union must be GENERATED (a list may not contradict the other).
        var originFound = false
        for (name, list) in lists {
            guard let origin = list.origin else { continue }
            guard origin == AndroidAuthorizationList.originGenerated else {
                throw context.failure("\(name) origin is \(origin), not KM_ORIGIN_GENERATED (0): the key was not generated in the keystore")
            }
            originFound = true
        }
        guard originFound else {
            throw context.failure("no origin in \(listNames): the key is not known to be generated in the keystore")
        }

        // "The value in the AuthorizationList.purpose field is equal to KM_PURPOSE_SIGN."
        // purpose is a SET OF INTEGER: "equal to" means the set is exactly {KM_PURPOSE_SIGN}, not a
        // set that also allows DECRYPT, AGREE_KEY… A key the keystore would also use for other
        // operations is not the single-purpose signing key the spec asks for. As with origin, every
        // list that states a purpose must state exactly that, and at least one consulted list must.
        var purposeFound = false
        for (name, list) in lists {
            guard let purposes = list.purposes else { continue }
            try Self.requireSignOnly(purposes, in: name)
            purposeFound = true
        }
        guard purposeFound else {
            throw context.failure("no purpose in \(listNames): the key is not known to be a signing key")
        }
        // With teeEnforcedOnly the software list is not consulted for what the key is, but it may
        // not contradict the TEE: a softwareEnforced purpose other than SIGN is refused too.
        if context.options.androidKeyAuthorizations == .teeEnforcedOnly, let purposes = description.softwareEnforced.purposes {
            try Self.requireSignOnly(purposes, in: "softwareEnforced")
        }

        // "If successful, return implementation-specific values representing attestation type Basic
        // and attestation trust path x5c."
        return AttestationOutcome(type: .basic, trustPath: chain)
    }

    /// Refuses a purpose set other than exactly {KM_PURPOSE_SIGN} (an empty set included).
    static func requireSignOnly(_ purposes: [Int], in list: String) throws(WebAuthnError) {
        guard !purposes.isEmpty, purposes.allSatisfy({ $0 == AndroidAuthorizationList.purposeSign }) else {
            let stated = purposes.map(String.init).joined(separator: ", ")
            throw AttestationContext.failure(
                "android-key",
                "\(list) purpose is {\(stated)}, not exactly {KM_PURPOSE_SIGN (2)}")
        }
    }
}
