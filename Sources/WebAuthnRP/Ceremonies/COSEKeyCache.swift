import Synchronization
import WebAuthnCrypto

/// Keeps built credential keys so a login does not rebuild the libcrypto key from
/// CBOR each time (building a P-256 key costs about a third of a verification).
/// Bounded, safe under concurrency.
///
/// Keyed by the credential id together with the stored COSE bytes and algorithm (which
/// decides the key options): only the id is hashed, and a hit also needs the key bytes
/// and algorithm to be equal, so a record whose key changed, or two records that share
/// an id, can never be served a key built from other bytes or under other options.
/// App Attest keys, stored as a bare P-256 point rather than COSE, are kept beside them
/// by that point.
final class COSEKeyCache: Sendable {
    struct Key: Hashable, Sendable {
        let credentialId: [UInt8]
        let publicKey: [UInt8]
        let algorithm: Int

        func hash(into hasher: inout Hasher) { ByteKey(credentialId).hash(into: &hasher) }
        static func == (a: Key, b: Key) -> Bool {
            a.algorithm == b.algorithm && a.credentialId == b.credentialId && a.publicKey == b.publicKey
        }
    }

    private let entries = Mutex([Key: COSEKey]())
    /// App Attest keys, by the stored uncompressed P-256 point (`04 ‖ x ‖ y`): a hit is the key
    /// those very bytes build.
    private let points = Mutex([[UInt8]: PublicKey]())
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    func key(for record: CredentialRecord) -> COSEKey? {
        let key = Key(credentialId: record.id, publicKey: record.publicKey, algorithm: record.algorithm)
        return entries.withLock { $0[key] }
    }

    func insert(_ coseKey: COSEKey, for record: CredentialRecord) {
        let key = Key(credentialId: record.id, publicKey: record.publicKey, algorithm: record.algorithm)
        entries.withLock { dict in
            if dict.count >= capacity { dict.removeAll(keepingCapacity: true) }
            dict[key] = coseKey
        }
    }

    func key(forPoint point: [UInt8]) -> PublicKey? {
        points.withLock { $0[point] }
    }

    func insert(_ key: PublicKey, forPoint point: [UInt8]) {
        points.withLock { dict in
            if dict.count >= capacity { dict.removeAll(keepingCapacity: true) }
            dict[point] = key
        }
    }
}
