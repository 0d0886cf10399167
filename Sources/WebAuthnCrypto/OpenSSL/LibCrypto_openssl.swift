// The crypto layer: the only module that imports libcrypto (CWebAuthnOpenSSL), and
// only from files under OpenSSL/.
internal import CWebAuthnOpenSSL

/// Facts about the libcrypto this build is linked against.
enum LibCrypto {
    /// The linked libcrypto's version text, as `OpenSSL_version(OPENSSL_VERSION)` reports it.
    static var versionText: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }

    /// Whether the linked libcrypto provides ML-DSA (OpenSSL 3.5 and later). Decided at
    /// run time by asking for an `ML-DSA-44` key context.
    static var supportsMLDSA: Bool { providesKeyAlgorithm("ML-DSA-44") }

    /// Whether libcrypto can make a key context for the named algorithm.
    static func providesKeyAlgorithm(_ name: String) -> Bool {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            ERR_clear_error()
            return false
        }
        EVP_PKEY_CTX_free(ctx)
        return true
    }
}

/// One byte that gives libcrypto a non-null pointer for empty input.
private let emptyInputByte: [UInt8] = [0]

/// Calls `body` with a pointer to the bytes and their count; the pointer is never nil,
/// even for empty input (some libcrypto calls treat NULL specially).
func withBytePointer<R, E: Error>(
    _ bytes: ArraySlice<UInt8>, _ body: (UnsafePointer<UInt8>, Int) throws(E) -> R
) throws(E) -> R {
    let result: Result<R, E> = bytes.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress, buffer.count > 0 {
            do throws(E) { return .success(try body(base, buffer.count)) } catch { return .failure(error) }
        }
        return emptyInputByte.withUnsafeBufferPointer { empty in
            // `emptyInputByte` has one element, so its base address exists.
            guard let base = empty.baseAddress else { preconditionFailure("one-element array has storage") }
            do throws(E) { return .success(try body(base, 0)) } catch { return .failure(error) }
        }
    }
    return try result.get()
}

/// A `CryptoError` of code `libcrypto` carrying libcrypto's queued error text.
func libcryptoFailure(_ context: String, code: CryptoError.Code = .libcrypto) -> CryptoError {
    CryptoError(code, libcryptoErrorText(context))
}
