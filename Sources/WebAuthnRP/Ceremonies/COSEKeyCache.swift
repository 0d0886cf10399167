import Synchronization

/// Keeps built credential keys so a login does not rebuild the libcrypto key from
/// CBOR each time. Keyed by the stored COSE bytes, bounded, safe under concurrency.
final class COSEKeyCache: Sendable {
    private let entries = Mutex([[UInt8]: COSEKey]())
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    func key(for cbor: [UInt8]) -> COSEKey? {
        entries.withLock { $0[cbor] }
    }

    func insert(_ key: COSEKey) {
        entries.withLock { dict in
            if dict.count >= capacity { dict.removeAll(keepingCapacity: true) }
            dict[key.cborBytes] = key
        }
    }
}
