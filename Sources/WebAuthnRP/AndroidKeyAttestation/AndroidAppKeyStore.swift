import Foundation

/// What a server keeps for one attested Android app key.
public struct AttestedAndroidKey: Sendable, Hashable {
    /// The key identifier: SHA-256 of the public key's uncompressed point (32 bytes).
    public let keyId: [UInt8]
    /// The public key as an uncompressed P-256 point `04 ‖ x ‖ y` (65 bytes).
    public let publicKey: [UInt8]
    /// The last request counter accepted (0 right after attestation).
    public var counter: UInt32
    /// The package the attestation named, of the apps the relying party declares.
    public let packageName: String

    /// A key record.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - publicKey: the uncompressed P-256 point.
    ///   - counter: the last counter accepted.
    ///   - packageName: the app's package.
    public init(keyId: [UInt8], publicKey: [UInt8], counter: UInt32, packageName: String) {
        self.keyId = keyId
        self.publicKey = publicKey
        self.counter = counter
        self.packageName = packageName
    }
}

/// Attested Android app keys. A server backs this with its database; the in-memory
/// implementation serves tests, the replay tool and small deployments.
public protocol AndroidAppKeyStore: Sendable {
    /// Stores a new key only if no key has its id.
    /// - Parameter key: the key.
    /// - Returns: false when a key with this id exists (nothing is changed).
    /// - Throws: ``WebAuthnError`` `serverFault` (or the store's own error) when storage fails.
    func create(_ key: AttestedAndroidKey) async throws -> Bool
    /// The key with this id.
    /// - Parameter keyId: the key identifier.
    /// - Returns: the key, or nil.
    func key(id keyId: [UInt8]) async throws -> AttestedAndroidKey?
    /// Sets the counter of a key to `newValue` only if it is still `expected` (compare and swap),
    /// so that one signed request presented twice, even to two nodes at once, succeeds once.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - expected: the counter the assertion was checked against.
    ///   - newValue: the assertion's counter.
    /// - Returns: false when the key is gone or its counter changed meanwhile.
    func updateCounter(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool
}

/// A bounded in-memory ``AndroidAppKeyStore``, safe under concurrent use.
public final class InMemoryAndroidAppKeyStore: AndroidAppKeyStore {
    private let keys: BoundedTable<AttestedAndroidKey>

    /// Creates a store.
    /// - Parameters:
    ///   - initial: keys known from the start (the `keys:` argument).
    ///   - capacity: the most keys held (default 1,000,000).
    public init(keys initial: [AttestedAndroidKey] = [], capacity: Int = 1_000_000) {
        keys = BoundedTable(
            initial.map { ($0.keyId, $0) }, capacity: capacity, store: "Android key store",
            noun: "Android app keys are stored")
    }

    /// Stores a new key only if no key has its id.
    /// - Parameter key: the key.
    /// - Returns: false when a key with this id exists (nothing is changed).
    /// - Throws: ``WebAuthnError`` `serverFault` (step `Android key store`) when the store holds its capacity of keys.
    public func create(_ key: AttestedAndroidKey) async throws -> Bool {
        try keys.insertIfAbsent(key, id: key.keyId)
    }

    /// The key with this id.
    /// - Parameter keyId: the key identifier.
    /// - Returns: the key, or nil.
    public func key(id keyId: [UInt8]) async throws -> AttestedAndroidKey? {
        keys.value(id: keyId)
    }

    /// Sets the counter of a key to `newValue` only if it is still `expected` (compare and swap, under one lock).
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - expected: the counter the assertion was checked against.
    ///   - newValue: the assertion's counter.
    /// - Returns: false when the key is gone or its counter changed meanwhile.
    public func updateCounter(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool {
        keys.replace(id: keyId, if: { $0.counter == expected }) { $0.counter = newValue }
    }
}
