import Foundation
import Synchronization
import WebAuthnRP

/// What the example needs of a credential store beyond the library's ``CredentialStore``:
/// removing one of a user's passkeys.
protocol PasskeyCredentialStore: CredentialStore {
    /// Deletes the credential if it belongs to `userHandle`.
    /// - Returns: whether a row was deleted.
    func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool
    /// When each of the user's credentials was registered and last used (for the passkey list).
    func usage(userHandle: [UInt8]) async throws -> [ByteString: CredentialUsage]
}

/// Registration and last-use times of a credential.
struct CredentialUsage: Sendable {
    var createdAt: Date
    var lastUsedAt: Date?
}

/// Accounts: a username and the random user handle its passkeys carry.
protocol AccountStore: Sendable {
    /// The user handle of a username, if the account exists.
    func userHandle(username: String) async throws -> [UInt8]?
    /// A username-first login's lookup: the account's user handle and, when the store can read
    /// them in the same round trip, its credentials as `allowCredentials` (nil: the library reads
    /// them from the credential store). Nil when the account does not exist.
    func loginLookup(username: String) async throws -> (userHandle: [UInt8], allowCredentials: [PublicKeyCredentialDescriptorJSON]?)?
    /// The username of a user handle.
    func username(userHandle: [UInt8]) async throws -> String?
    /// Creates the account only if the username is free (a unique key).
    /// - Returns: false when the username is taken.
    func create(username: String, userHandle: [UInt8]) async throws -> Bool
}

/// A login's `update` lost a race: another login of the same credential stored a counter at
/// least as high first, or the credential was deleted meanwhile. The login is refused (401),
/// exactly as a serialized verification would have refused it.
struct ConcurrentUpdateError: Error, CustomStringConvertible {
    let description: String
}

/// Byte strings as dictionary keys.
struct ByteString: Hashable, Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// Whether a login's new counter may replace the stored one: it must move forward, or both be
/// zero (an authenticator without a counter). The same rule as the Postgres `UPDATE … WHERE`.
func counterMayAdvance(stored: UInt32, new: UInt32) -> Bool {
    new > stored || (new == 0 && stored == 0)
}

/// The in-memory credential store used without a database: the library's contract plus
/// delete, with the same conditional update as the Postgres store.
final class MemoryCredentialStore: PasskeyCredentialStore {
    private struct Entry { var record: CredentialRecord; var usage: CredentialUsage }
    private let entries = Mutex([ByteString: Entry]())
    private let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    func create(_ record: CredentialRecord) async throws -> Bool {
        try entries.withLock { entries in
            guard entries[ByteString(record.id)] == nil else { return false }
            guard entries.count < capacity else { throw RegistryError(.capacityExceeded, "\(capacity) credentials are stored") }
            entries[ByteString(record.id)] = Entry(record: record, usage: CredentialUsage(createdAt: Date()))
            return true
        }
    }

    func credential(id: [UInt8]) async throws -> CredentialRecord? {
        entries.withLock { $0[ByteString(id)]?.record }
    }

    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        entries.withLock { $0.values.map(\.record).filter { $0.userHandle == userHandle } }
    }

    func update(_ record: CredentialRecord) async throws {
        try entries.withLock { entries in
            guard var entry = entries[ByteString(record.id)],
                  counterMayAdvance(stored: entry.record.signCount, new: record.signCount) else {
                throw ConcurrentUpdateError(description: "credential was deleted or another login stored counter ≥ \(record.signCount) first")
            }
            entry.record = record
            entry.usage.lastUsedAt = Date()
            entries[ByteString(record.id)] = entry
        }
    }

    func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        entries.withLock { entries in
            guard entries[ByteString(id)]?.record.userHandle == userHandle else { return false }
            entries[ByteString(id)] = nil
            return true
        }
    }

    func usage(userHandle: [UInt8]) async throws -> [ByteString: CredentialUsage] {
        entries.withLock { entries in
            var out: [ByteString: CredentialUsage] = [:]
            for (key, entry) in entries where entry.record.userHandle == userHandle { out[key] = entry.usage }
            return out
        }
    }
}

/// The in-memory account store.
final class MemoryAccountStore: AccountStore {
    private struct State { var byName: [String: [UInt8]] = [:]; var byHandle: [ByteString: String] = [:] }
    private let state = Mutex(State())

    func userHandle(username: String) async throws -> [UInt8]? { state.withLock { $0.byName[username] } }

    func loginLookup(username: String) async throws -> (userHandle: [UInt8], allowCredentials: [PublicKeyCredentialDescriptorJSON]?)? {
        try await userHandle(username: username).map { ($0, nil) }
    }

    func username(userHandle: [UInt8]) async throws -> String? { state.withLock { $0.byHandle[ByteString(userHandle)] } }

    func create(username: String, userHandle: [UInt8]) async throws -> Bool {
        state.withLock { state in
            guard state.byName[username] == nil, state.byHandle[ByteString(userHandle)] == nil else { return false }
            state.byName[username] = userHandle
            state.byHandle[ByteString(userHandle)] = username
            return true
        }
    }
}

/// For the end-to-end tests only (`E2E_UPDATE_DELAY_MS`): waits before each login's update so a
/// second login of the same credential can overtake it, which makes the lost-update race of
/// two concurrent logins deterministic. Never set in production.
final class DelayedUpdateStore: PasskeyCredentialStore {
    let base: any PasskeyCredentialStore
    let delay: Duration

    init(_ base: any PasskeyCredentialStore, milliseconds: Int) {
        self.base = base
        delay = .milliseconds(milliseconds)
    }

    func create(_ record: CredentialRecord) async throws -> Bool { try await base.create(record) }
    func credential(id: [UInt8]) async throws -> CredentialRecord? { try await base.credential(id: id) }
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] { try await base.credentials(userHandle: userHandle) }
    func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool { try await base.delete(id: id, userHandle: userHandle) }
    func usage(userHandle: [UInt8]) async throws -> [ByteString: CredentialUsage] { try await base.usage(userHandle: userHandle) }

    func update(_ record: CredentialRecord) async throws {
        try await Task.sleep(for: delay)
        try await base.update(record)
    }
}
