import Foundation
import Synchronization
import WebAuthnRP

/// What the example needs of a credential store beyond the library's ``CredentialStore`` (whose
/// lookups the library's service reads through): the application's own last write of each
/// ceremony, which the controllers hand to the library's `finish…` as its `commit:`, so that a
/// registration writes its account, its credential and its sign-in, and a login its counter and
/// its sign-in, in one transaction; a count, a page of the list, and removing one of a user's
/// passkeys.
package protocol PasskeyCredentialStore: CredentialStore {
    /// A registration's write, in one transaction: `newAccount` creates the account row (the
    /// name must be free), nil requires the record's account to exist; the account must hold
    /// fewer than `cap` credentials; the credential; and `signIn` (a new account's session or
    /// token family), so nothing that can fail is left once the registration has committed.
    func create(_ record: CredentialRecord, newAccount: Username?, cap: Int, starting signIn: PendingSignIn?) async throws -> CreateOutcome
    /// A login's write: the library's compare and swap (``CredentialStore/update(_:)``) and,
    /// when it matches, `signIn` for the user and credential of the updated row, in one step.
    /// - Returns: whether the update matched (false: nothing was written or started).
    func update(_ change: CredentialUpdate, starting signIn: PendingSignIn) async throws -> Bool
    /// How many credentials the user has.
    func count(userHandle: [UInt8]) async throws -> Int
    /// At most `limit` of the user's credentials whose ids sort after `after` (nil: the first
    /// page), by id, with when each was registered and last used.
    func page(userHandle: [UInt8], after: [UInt8]?, limit: Int) async throws -> [ListedPasskey]
    /// Deletes the credential if it belongs to `userHandle`.
    /// - Returns: whether a row was deleted.
    func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool
    /// Gives the credential, if it belongs to `userHandle`, the user's `name` (nil: none).
    /// - Returns: whether it was found.
    func rename(id: [UInt8], userHandle: [UInt8], name: PasskeyName?) async throws -> Bool
}

/// What a login starts once its assertion verifies, for the user and the credential of the
/// verified record: the web page's session, or an app's token family with its first refresh token.
package enum PendingSignIn: Sendable {
    case session(PendingSession)
    case tokenFamily(PendingTokenFamily)
}

/// A session a login will start: its id (the token's SHA-256) and times.
package struct PendingSession: Sendable {
    package var id: [UInt8]
    package var signedInAt: Date
    package var expiresAt: Date
}

/// A token family a login will begin: its id, when the login happened (`auth_time`), and its
/// first refresh token (the SHA-256 of the value the app receives) with that token's expiry.
package struct PendingTokenFamily: Sendable {
    package var id: String
    package var authTime: Date
    /// The audience its tokens are issued for (``TokenFamily/audience``).
    package var audience: String
    package var refreshTokenHash: [UInt8]
    package var refreshTokenExpiresAt: Date
    /// The app key (App Attest or Android) the sign-in's request was asserted by (``TokenFamily/appKey``).
    package var appKey: AppKey? = nil
}

/// What a registration's store step came to.
package enum CreateOutcome: Sendable, Equatable {
    case created
    /// The credential id is registered already (§7.1 step 27).
    case duplicateCredential
    /// The new account's name was taken meanwhile.
    case usernameTaken
    /// The account already holds its cap of passkeys.
    case capReached
    /// The account to add to no longer exists.
    case accountGone
}

/// One entry of the passkey list.
package struct ListedPasskey: Sendable {
    package var record: CredentialRecord
    package var usage: CredentialUsage
    /// The name the user gave it, if any.
    package var name: String?

    package init(record: CredentialRecord, usage: CredentialUsage, name: String? = nil) {
        self.record = record
        self.usage = usage
        self.name = name
    }
}

/// Registration and last-use times of a credential.
package struct CredentialUsage: Sendable {
    package var createdAt: Date
    package var lastUsedAt: Date?

    package init(createdAt: Date, lastUsedAt: Date? = nil) {
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// Accounts: a username and the random user handle its passkeys carry. An account is created
/// with its first passkey (``PasskeyCredentialStore/create(_:newAccount:cap:)``).
package protocol AccountStore: Sendable {
    /// The user handle of a username (compared by its folded key), if the account exists.
    func userHandle(username: Username) async throws -> [UInt8]?
    /// A username-first login's lookup: the account's user handle, its name as stored and, when the store can read
    /// them in the same round trip, its credentials as `allowCredentials` (nil: the library reads
    /// them from the credential store). Nil when the account does not exist.
    func loginLookup(
        username: Username
    ) async throws -> (userHandle: [UInt8], username: String, allowCredentials: [PublicKeyCredentialDescriptorJSON]?)?
    /// The username of a user handle.
    func username(userHandle: [UInt8]) async throws -> String?
}

/// A signed-in session as the server keeps it. The cookie carries a random 32-byte token; the
/// store keys the session by the token's SHA-256, so a copy of the table signs nobody in.
package struct Session: Sendable {
    package var id: [UInt8]
    package var userHandle: [UInt8]
    /// The passkey that signed this session in: deleting it ends the session.
    package var credentialId: [UInt8]
    /// When the passkey assertion (or registration) happened: adding or deleting a passkey
    /// needs this to be recent.
    package var signedInAt: Date
    package var expiresAt: Date

    package init(id: [UInt8], userHandle: [UInt8], credentialId: [UInt8], signedInAt: Date, expiresAt: Date) {
        self.id = id
        self.userHandle = userHandle
        self.credentialId = credentialId
        self.signedInAt = signedInAt
        self.expiresAt = expiresAt
    }
}

/// Server-side sessions: a session exists until it expires, its user signs it out, signs out
/// everywhere, or the passkey that signed it in is deleted.
package protocol SessionStore: Sendable {
    func create(_ session: Session) async throws
    /// The session, if it exists and has not expired at `now`.
    func session(id: [UInt8], now: Date) async throws -> Session?
    func delete(id: [UInt8]) async throws
    /// Ends every session of the user. - Returns: how many there were.
    func deleteAll(userHandle: [UInt8]) async throws -> Int
    /// Ends the sessions a just-deleted passkey signed in.
    func credentialDeleted(_ id: [UInt8]) async throws
}

/// Byte strings as dictionary keys.
package struct ByteString: Hashable, Sendable {
    package let bytes: [UInt8]
    package init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// The in-memory credential store used without a database: the library's contract plus
/// delete, with the same compare-and-swap update as the Postgres store. A ceremony's write
/// starts its sign-in in the memory session and token stores right after its own (one process,
/// nothing to roll back).
package final class MemoryCredentialStore: PasskeyCredentialStore {
    private struct Entry { var record: CredentialRecord; var usage: CredentialUsage; var name: String? }
    private let entries = Mutex([ByteString: Entry]())
    private let capacity: Int
    /// The accounts a registration creates in the same step (their lock is taken first, then ours).
    package let accounts: MemoryAccountStore
    /// Where a ceremony's sign-in is started.
    package let sessions: MemorySessionStore
    package let refreshTokens: MemoryRefreshTokenStore

    package init(
        accounts: MemoryAccountStore, sessions: MemorySessionStore, refreshTokens: MemoryRefreshTokenStore,
        capacity: Int = 100_000
    ) {
        self.accounts = accounts
        self.sessions = sessions
        self.refreshTokens = refreshTokens
        self.capacity = capacity
    }

    package func create(_ record: CredentialRecord) async throws -> Bool {
        try await create(record, newAccount: nil, cap: Int.max, starting: nil) == .created
    }

    package func create(
        _ record: CredentialRecord, newAccount: Username?, cap: Int, starting signIn: PendingSignIn?
    ) async throws -> CreateOutcome {
        let outcome = try insert(record, newAccount: newAccount, cap: cap)
        if outcome == .created, let signIn { try await start(signIn, record: record) }
        return outcome
    }

    private func insert(_ record: CredentialRecord, newAccount: Username?, cap: Int) throws -> CreateOutcome {
        guard let userHandle = record.userHandle else {
            throw WebAuthnError(.serverFault, step: "credential store", "a record without a user handle")
        }
        return try accounts.state.withLock { state in
            if let newAccount {
                guard state.byName[newAccount.key] == nil, state.byHandle[ByteString(userHandle)] == nil else { return .usernameTaken }
            } else {
                guard state.byHandle[ByteString(userHandle)] != nil else { return .accountGone }
            }
            let outcome: CreateOutcome = try entries.withLock { entries in
                guard entries[ByteString(record.id)] == nil else { return .duplicateCredential }
                guard entries.values.count(where: { $0.record.userHandle == userHandle }) < cap else { return .capReached }
                guard entries.count < capacity else {
                    throw WebAuthnError(.serverFault, step: "credential store", "full: \(capacity) credentials are stored")
                }
                entries[ByteString(record.id)] = Entry(record: record, usage: CredentialUsage(createdAt: Date()))
                return .created
            }
            if outcome == .created, let newAccount {
                state.byName[newAccount.key] = userHandle
                state.byHandle[ByteString(userHandle)] = newAccount.display
            }
            return outcome
        }
    }

    package func count(userHandle: [UInt8]) async throws -> Int {
        entries.withLock { $0.values.count(where: { $0.record.userHandle == userHandle }) }
    }

    package func page(userHandle: [UInt8], after: [UInt8]?, limit: Int) async throws -> [ListedPasskey] {
        entries.withLock { entries in
            // Ids compare byte by byte, as PostgreSQL compares bytea.
            let mine = entries.values.filter { entry in
                entry.record.userHandle == userHandle && (after.map { $0.lexicographicallyPrecedes(entry.record.id) } ?? true)
            }
            return mine.sorted { $0.record.id.lexicographicallyPrecedes($1.record.id) }.prefix(limit)
                .map { ListedPasskey(record: $0.record, usage: $0.usage, name: $0.name) }
        }
    }

    package func credential(id: [UInt8]) async throws -> CredentialRecord? {
        entries.withLock { $0[ByteString(id)]?.record }
    }

    package func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        entries.withLock { $0.values.map(\.record).filter { $0.userHandle == userHandle } }
    }

    package func update(_ change: CredentialUpdate, starting signIn: PendingSignIn) async throws -> Bool {
        guard try await update(change) else { return false }
        try await start(signIn, record: change.record)
        return true
    }

    /// Starts a ceremony's sign-in for the user and credential of `record`.
    private func start(_ signIn: PendingSignIn, record: CredentialRecord) async throws {
        let userHandle = record.userHandle ?? []
        switch signIn {
        case .session(let session):
            try await sessions.create(
                Session(
                    id: session.id, userHandle: userHandle, credentialId: record.id, signedInAt: session.signedInAt,
                    expiresAt: session.expiresAt))
        case .tokenFamily(let family):
            try await refreshTokens.create(
                family: TokenFamily(
                    id: family.id, userHandle: userHandle, credentialId: record.id, authTime: family.authTime,
                    audience: family.audience, appKey: family.appKey),
                tokenHash: family.refreshTokenHash, expiresAt: family.refreshTokenExpiresAt, now: family.authTime)
        }
    }

    /// The library's compare and swap: stored only while the counter is the one verified against.
    package func update(_ change: CredentialUpdate) async throws -> Bool {
        entries.withLock { entries in
            guard var entry = entries[ByteString(change.record.id)],
                entry.record.signCount == change.expectedSignCount
            else { return false }
            entry.record = change.record
            entry.usage.lastUsedAt = Date()
            entries[ByteString(change.record.id)] = entry
            return true
        }
    }

    package func rename(id: [UInt8], userHandle: [UInt8], name: PasskeyName?) async throws -> Bool {
        entries.withLock { entries in
            guard entries[ByteString(id)]?.record.userHandle == userHandle else { return false }
            entries[ByteString(id)]?.name = name?.text
            return true
        }
    }

    package func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        entries.withLock { entries in
            guard entries[ByteString(id)]?.record.userHandle == userHandle else { return false }
            entries[ByteString(id)] = nil
            return true
        }
    }
}

/// The in-memory account store (accounts are created by ``MemoryCredentialStore``).
package final class MemoryAccountStore: AccountStore {
    package struct State { var byName: [String: [UInt8]] = [:]; var byHandle: [ByteString: String] = [:] }
    package let state = Mutex(State())

    package func userHandle(username: Username) async throws -> [UInt8]? { state.withLock { $0.byName[username.key] } }

    package func loginLookup(
        username: Username
    ) async throws -> (userHandle: [UInt8], username: String, allowCredentials: [PublicKeyCredentialDescriptorJSON]?)? {
        state.withLock { state in
            state.byName[username.key].map { ($0, state.byHandle[ByteString($0)] ?? username.display, nil) }
        }
    }

    package func username(userHandle: [UInt8]) async throws -> String? { state.withLock { $0.byHandle[ByteString(userHandle)] } }
}

/// In-memory sessions (one node), bounded: at capacity the oldest-expiring session is dropped.
package final class MemorySessionStore: SessionStore {
    private let sessions = Mutex([ByteString: Session]())
    private let capacity: Int

    package init(capacity: Int = 100_000) { self.capacity = capacity }

    package func create(_ session: Session) async throws {
        sessions.withLock { sessions in
            if sessions.count >= capacity {
                let now = Date()
                sessions = sessions.filter { $0.value.expiresAt > now }
                if sessions.count >= capacity, let oldest = sessions.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                    sessions[oldest.key] = nil
                }
            }
            sessions[ByteString(session.id)] = session
        }
    }

    package func session(id: [UInt8], now: Date) async throws -> Session? {
        sessions.withLock { $0[ByteString(id)] }.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    package func delete(id: [UInt8]) async throws { sessions.withLock { $0[ByteString(id)] = nil } }

    package func deleteAll(userHandle: [UInt8]) async throws -> Int {
        sessions.withLock { sessions in
            let before = sessions.count
            sessions = sessions.filter { $0.value.userHandle != userHandle }
            return before - sessions.count
        }
    }

    package func credentialDeleted(_ id: [UInt8]) async throws {
        sessions.withLock { sessions in sessions = sessions.filter { $0.value.credentialId != id } }
    }
}
