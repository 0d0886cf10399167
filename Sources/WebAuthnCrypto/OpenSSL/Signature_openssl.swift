internal import CWebAuthnOpenSSL

extension EVPKey {
    /// Starts a sign or verify operation with the scheme's digest and padding.
    package func initialize(_ mdContext: OpaquePointer, scheme: AlgorithmProfile.Scheme, signing: Bool) throws(CryptoError) {
        var md: OpaquePointer?
        var pss = false
        switch scheme {
        case .ecdsa(let digest), .rsaPKCS1(let digest): md = digest.evpMD
        case .rsaPSS(let digest): md = digest.evpMD; pss = true
        case .eddsa, .mlDSA: md = nil
        }
        var keyContext: OpaquePointer?
        let started = signing
            ? EVP_DigestSignInit(mdContext, &keyContext, md, nil, pointer)
            : EVP_DigestVerifyInit(mdContext, &keyContext, md, nil, pointer)
        guard started == 1 else {
            throw libcryptoFailure(signing ? "EVP_DigestSignInit" : "EVP_DigestVerifyInit", code: .algorithmMismatch)
        }
        if pss {
            guard let keyContext,
                  EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, md) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
            else { throw libcryptoFailure("setting RSASSA-PSS parameters") }
        }
    }

    /// The one verification entry: a signature over `first`, or over `first || digest`
    /// without joining them (an assertion signs `authenticatorData || SHA-256(clientDataJSON)`).
    /// Digest schemes stream both parts through `EVP_DigestVerifyUpdate`; EdDSA, which is
    /// one-shot, gets them side by side in a temporary buffer on the stack.
    /// `false` when the signature does not verify.
    func verify(signature: ArraySlice<UInt8>, over first: ArraySlice<UInt8>, then digest: InlineArray<32, UInt8>?,
                scheme: AlgorithmProfile.Scheme) throws(CryptoError) -> Bool {
        guard let digest else {
            return try verifyParts(signature, first, UnsafeBufferPointer(start: nil, count: 0), scheme)
        }
        return try digest.span.withUnsafeBufferPointer { (second) throws(CryptoError) -> Bool in
            try verifyParts(signature, first, second, scheme)
        }
    }

    /// The worker behind ``verify(signature:over:then:scheme:)``, with the second part as raw memory.
    private func verifyParts(_ signature: ArraySlice<UInt8>, _ first: ArraySlice<UInt8>, _ second: UnsafeBufferPointer<UInt8>,
                             _ scheme: AlgorithmProfile.Scheme) throws(CryptoError) -> Bool {
        clearLibcryptoErrors()
        if case .ecdsa = scheme { try ECDSASignature.requireStrictDER(signature) }
        guard let mdContext = takeVerifyContext() else { throw libcryptoFailure("EVP_MD_CTX_new") }
        // Given back for the next verification only after it ran to the end; a context
        // left by a failure is freed.
        var reusable = false
        defer { if reusable { returnVerifyContext(mdContext) } else { EVP_MD_CTX_free(mdContext) } }
        try initialize(mdContext, scheme: scheme, signing: false)
        // The context verifies once: no copy of the key context is kept for a later update.
        EVP_MD_CTX_set_flags(mdContext, EVP_MD_CTX_FLAG_FINALISE)
        let result: Int32
        switch scheme {
        case .ecdsa, .rsaPKCS1, .rsaPSS:
            let updated = withBytePointer(first) { EVP_DigestVerifyUpdate(mdContext, $0, $1) } == 1
                && (second.isEmpty || second.baseAddress.map { EVP_DigestVerifyUpdate(mdContext, $0, second.count) } == 1)
            result = updated ? withBytePointer(signature) { EVP_DigestVerifyFinal(mdContext, $0, $1) } : 0
        case .eddsa, .mlDSA:
            if second.isEmpty {
                result = withBytePointer(signature) { sig, sigCount in
                    withBytePointer(first) { tbs, tbsCount in EVP_DigestVerify(mdContext, sig, sigCount, tbs, tbsCount) }
                }
            } else {
                let total = first.count + second.count
                result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { buffer in
                    guard let base = buffer.baseAddress else { return 0 }
                    first.withUnsafeBufferPointer { part in
                        if let p = part.baseAddress { base.update(from: p, count: part.count) }
                    }
                    if let p = second.baseAddress { (base + first.count).update(from: p, count: second.count) }
                    return withBytePointer(signature) { sig, sigCount in
                        EVP_DigestVerify(mdContext, sig, sigCount, UnsafePointer(base), total)
                    }
                }
            }
        }
        // 1 = verified; 0 = bad signature; < 0 = malformed input (for example an RSA
        // signature longer than the modulus), which is also "does not verify".
        clearLibcryptoErrors()
        reusable = result >= 0
        return result == 1
    }
}
