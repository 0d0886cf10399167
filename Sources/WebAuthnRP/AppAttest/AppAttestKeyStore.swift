import Foundation

/// What a server keeps for one attested App Attest key.
public struct AttestedAppKey: Sendable, Hashable {
    /// The key identifier: SHA-256 of the public key's uncompressed point (32 bytes).
    public let keyId: [UInt8]
    /// The public key as an uncompressed P-256 point `04 ‖ x ‖ y` (65 bytes).
    public let publicKey: [UInt8]
    /// The last counter value seen (0 right after attestation).
    public var signCount: UInt32
    /// The App Attest receipt from the attestation (`attStmt.receipt`), for Apple's
    /// fraud-metric exchange; empty for keys known without their attestation.
    public let receipt: [UInt8]
    /// The environment the key was attested in.
    public let environment: AppAttestEnvironment

    /// A key record.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - publicKey: the uncompressed P-256 point.
    ///   - signCount: the last counter value.
    ///   - receipt: the attestation receipt.
    ///   - environment: the environment it was attested in.
    public init(
        keyId: [UInt8], publicKey: [UInt8], signCount: UInt32, receipt: [UInt8] = [],
        environment: AppAttestEnvironment
    ) {
        self.keyId = keyId
        self.publicKey = publicKey
        self.signCount = signCount
        self.receipt = receipt
        self.environment = environment
    }
}

/// Attested App Attest keys. A server backs this with its database; the in-memory
/// implementation serves tests, the replay tool and small deployments.
public protocol AppAttestKeyStore: Sendable {
    /// Stores a new key only if no key has its id.
    /// - Parameter key: the key.
    /// - Returns: false when a key with this id exists (nothing is changed).
    /// - Throws: ``WebAuthnError`` `serverFault` (or the store's own error) when storage fails.
    func create(_ key: AttestedAppKey) async throws -> Bool
    /// The key with this id.
    /// - Parameter keyId: the key identifier.
    /// - Returns: the key, or nil.
    func key(id keyId: [UInt8]) async throws -> AttestedAppKey?
    /// Sets the counter of a key to `newValue` only if it is still `expected` (compare and swap),
    /// so that two assertions racing with the same counter cannot both succeed.
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - expected: the counter the assertion was checked against.
    ///   - newValue: the assertion's counter.
    /// - Returns: false when the key is gone or its counter changed meanwhile.
    func updateSignCount(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool
}

/// A bounded in-memory ``AppAttestKeyStore``, safe under concurrent use.
public final class InMemoryAppAttestKeyStore: AppAttestKeyStore {
    private let keys: BoundedTable<AttestedAppKey>
    /// The most keys held.
    var capacity: Int { keys.capacity }

    /// Creates a store.
    /// - Parameters:
    ///   - initial: keys known from the start (the `keys:` argument).
    ///   - capacity: the most keys held (default 1,000,000).
    public init(keys initial: [AttestedAppKey] = [], capacity: Int = 1_000_000) {
        keys = BoundedTable(
            initial.map { ($0.keyId, $0) }, capacity: capacity, store: "App Attest key store", noun: "App Attest keys are stored")
    }

    /// Stores a new key only if no key has its id.
    /// - Parameter key: the key.
    /// - Returns: false when a key with this id exists (nothing is changed).
    /// - Throws: ``WebAuthnError`` `serverFault` (step `App Attest key store`) when the store holds its capacity of keys.
    public func create(_ key: AttestedAppKey) async throws -> Bool {
        try keys.insertIfAbsent(key, id: key.keyId)
    }

    /// The key with this id.
    /// - Parameter keyId: the key identifier.
    /// - Returns: the key, or nil.
    public func key(id keyId: [UInt8]) async throws -> AttestedAppKey? {
        keys.value(id: keyId)
    }

    /// Sets the counter of a key to `newValue` only if it is still `expected` (compare and swap, under one lock).
    /// - Parameters:
    ///   - keyId: the key identifier.
    ///   - expected: the counter the assertion was checked against.
    ///   - newValue: the assertion's counter.
    /// - Returns: false when the key is gone or its counter changed meanwhile.
    public func updateSignCount(keyId: [UInt8], from expected: UInt32, to newValue: UInt32) async throws -> Bool {
        keys.replace(id: keyId, if: { $0.signCount == expected }) { $0.signCount = newValue }
    }
}
