package import Foundation
import WebAuthnCoding
import WebAuthnCrypto

/// A server key that seals an ``IssuedChallenge`` into a token the client carries back, for a
/// fleet that shares nothing but this key (no shared challenge store).
///
/// The token is the challenge's storable form (``IssuedChallenge`` `Codable`) encrypted and
/// authenticated with AES-256-GCM (libcrypto) under a random 12-byte nonce, base64url:
/// `0x01 ‖ nonce ‖ ciphertext ‖ tag`. Opening it checks the tag, the version and the expiry; any
/// change to a single bit, a token sealed under another key, or one past its `expiresAt` is
/// refused with ``WebAuthnError/Category/challenge``.
///
/// What it guarantees: only this server (a holder of the key) made the token, its ceremony
/// binding (kind, RP ID, user, allowed credentials, UV, algorithms) is exactly what was issued,
/// and it is accepted only until its expiry. Single use comes from the
/// ``SealedChallengeReplayStore`` of the service's ``ChallengeTransport/sealed(_:replayStore:)``: the token answers once per store.
/// A store every node shares (a database table) makes that once across the deployment; an
/// ``InMemorySealedChallengeReplayStore`` makes it once per process, so a restart, a deploy or
/// another node accepts a captured response again until the token expires.
public struct SealedChallengeKey: Sendable {
    /// The token format this library writes and reads.
    static let version: UInt8 = 1
    /// Authenticated with every token, so a ciphertext made by the same key for another purpose
    /// never opens as a challenge.
    static let associatedData = Array("webauthn-rp sealed IssuedChallenge v1".utf8)
    /// The longest token opened (base64url characters); longer input is refused before decoding.
    static let maximumTokenLength = 16_384

    private let key: [UInt8]

    /// A key from 32 secret bytes (keep them in the server's secret store; every node that opens
    /// tokens needs the same bytes).
    /// - Parameter bytes: exactly 32 bytes.
    /// - Throws: ``CryptoError`` `malformedKey` for any other length.
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count == AES256GCM.keySize else {
            throw CryptoError(.malformedKey, "a sealed-challenge key is \(AES256GCM.keySize) bytes, not \(bytes.count)")
        }
        key = bytes
    }

    /// A new random key (libcrypto's CSPRNG), for tests: a server's key comes from its secret
    /// store, since every node and every restart must open the same tokens.
    /// - Returns: the key.
    /// - Throws: ``CryptoError`` when the generator fails.
    static func generate() throws -> SealedChallengeKey {
        try SealedChallengeKey(try SecureRandom.bytes(count: AES256GCM.keySize))
    }

    /// Seals an issued challenge: ``RelyingPartyService`` does for its ceremonies, and
    /// ``AppAttestService`` for App Attest's.
    /// - Parameter issued: the challenge and its ceremony binding.
    /// - Returns: the token (base64url), for the client to send back with its response.
    /// - Throws: ``CryptoError`` when libcrypto fails; ``WebAuthnError`` `malformed` for a time
    ///   JSON cannot carry (never for what the service issues).
    package func seal(_ issued: IssuedChallenge) throws -> String {
        let plaintext = try issued.storedJSON()
        let nonce = try SecureRandom.bytes(count: AES256GCM.nonceSize)
        let sealed = try AES256GCM.seal(plaintext, key: key, nonce: nonce, aad: Self.associatedData)
        return Base64URL.encode([Self.version] + nonce + sealed)
    }

    /// Opens a token this key sealed and checks it has not expired. Single use is the caller's:
    /// the services record the challenge in a ``SealedChallengeReplayStore`` before acting on it.
    /// - Parameters:
    ///   - token: the token as the client sent it.
    ///   - now: the current time; a token is accepted through its `expiresAt` instant.
    /// - Returns: the issued challenge.
    /// - Throws: ``WebAuthnError`` `challenge` for a token that is too long, not base64url, of an
    ///   unknown version, does not authenticate under this key (tampered, truncated, another
    ///   key), does not decode, or has expired.
    package func open(_ token: String, now: Date) throws(WebAuthnError) -> IssuedChallenge {
        let step = "sealed challenge"
        guard token.utf8.count <= Self.maximumTokenLength else {
            throw WebAuthnError(.challenge, step: step, "the sealed challenge is longer than \(Self.maximumTokenLength) characters")
        }
        let bytes: [UInt8]
        do { bytes = try Base64URL.decode(token) } catch {
            throw WebAuthnError(.challenge, step: step, "the sealed challenge is not base64url")
        }
        let headerSize = 1 + AES256GCM.nonceSize
        guard bytes.count >= headerSize + AES256GCM.tagSize else {
            throw WebAuthnError(.challenge, step: step, "the sealed challenge is truncated (\(bytes.count) bytes)")
        }
        guard bytes[0] == Self.version else {
            throw WebAuthnError(.challenge, step: step, "the sealed challenge has version \(bytes[0]), not \(Self.version)")
        }
        let nonce = Array(bytes[1..<headerSize])
        let opened: [UInt8]?
        do {
            opened = try AES256GCM.open(Array(bytes[headerSize...]), key: key, nonce: nonce, aad: Self.associatedData)
        } catch {
            throw WebAuthnError(.challenge, step: step, "the sealed challenge could not be opened: \(error)")
        }
        guard let plaintext = opened else {
            throw WebAuthnError(
                .challenge, step: step, "the sealed challenge does not authenticate under this key (tampered or another key)")
        }
        let issued: IssuedChallenge
        // The library's one JSON reader, as for every other document it reads.
        do { issued = try JSONTreeDecoder.value(IssuedChallenge.self, try JSONReader.parse(plaintext[...]), []) } catch {
            throw WebAuthnError(.challenge, step: step, "the sealed challenge does not decode: \(error)")
        }
        guard !(now > issued.expiresAt), !issued.expiresAt.timeIntervalSinceReferenceDate.isNaN else {
            throw WebAuthnError(.challenge, step: step, "the sealed challenge expired at \(issued.expiresAt)")
        }
        return issued
    }
}

/// The challenge store of a sealed `finish…`: holds the one challenge its token opened to.
/// The service consumes only after the body has parsed and its client data has named a
/// challenge, so the token is recorded as used only when that challenge is the sealed one.
final class OpenedSealedChallenge: ChallengeStore {
    let issued: IssuedChallenge
    private let replayStore: any SealedChallengeReplayStore
    private let now: Date

    init(_ issued: IssuedChallenge, replayStore: any SealedChallengeReplayStore, now: Date) {
        self.issued = issued
        self.replayStore = replayStore
        self.now = now
    }

    func issue(_ challenge: IssuedChallenge, now: Date) async throws {
        throw WebAuthnError(.serverFault, step: "challenge store", "a sealed challenge is opened, not issued")
    }

    /// The sealed challenge when `challenge` is it and this is its first use; nil otherwise
    /// (the service refuses that as a challenge that was not issued or was already used).
    func consume(_ challenge: [UInt8]) async throws -> IssuedChallenge? {
        guard challenge == issued.challenge,
            try await replayStore.markUsed(issued.challenge, expiresAt: issued.expiresAt, now: now)
        else { return nil }
        return issued
    }
}
