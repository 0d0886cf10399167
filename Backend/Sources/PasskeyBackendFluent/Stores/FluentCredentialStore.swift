import FluentKit
import Foundation
import PasskeyBackend
import SQLKit
import Synchronization
import WebAuthnRP

/// Credential records on the Fluent database, with each ceremony's last write in one
/// transaction: a registration's account, credential and sign-in; a login's compare and swap
/// and sign-in. A login's `UPDATE … WHERE sign_count = expected` changes the row only while the
/// counter is the one the login was verified against: of two logins of one passkey verified
/// against the same counter, PostgreSQL makes the second wait for the first's commit and then
/// match nothing, and SQLite runs them one after the other (``SerialGate``); either way exactly
/// one signs in, and the other leaves nothing behind.
final class FluentCredentialStore: PasskeyCredentialStore {
    let database: FluentStoreDatabase
    /// Sessions and token families started by logins since the last sweep of expired ones.
    private let signInSweeps = Mutex(0)

    init(database: FluentStoreDatabase) { self.database = database }

    func create(_ record: CredentialRecord) async throws -> Bool {
        try await create(record, newAccount: nil, cap: Int.max, starting: nil) == .created
    }

    /// One transaction: the new account's row (its unique name key decides a race for the
    /// name), or a locking read of the existing account's row (so two concurrent additions
    /// count one after the other), the count against `cap`, the credential, and the sign-in it
    /// starts (if any).
    func create(
        _ record: CredentialRecord, newAccount: Username?, cap: Int, starting signIn: PendingSignIn?
    ) async throws -> CreateOutcome {
        guard let userHandle = record.userHandle else {
            throw WebAuthnError(.serverFault, step: "database", "a record without a user handle")
        }
        let json = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        let now = Date()
        do {
            return try await database.transaction { database, sql in
                if let newAccount {
                    let created = try await sql.raw(
                        """
                        INSERT INTO passkey_users (user_handle, username, username_key, created_at)
                        VALUES (\(bind: Data(userHandle)), \(bind: newAccount.display), \(bind: newAccount.key), \(bind: now))
                        ON CONFLICT DO NOTHING RETURNING user_handle
                        """
                    ).all().count
                    guard created == 1 else { throw FluentStoreDatabase.Rollback(outcome: .usernameTaken) }
                } else {
                    let found = try await sql.select().column("user_handle").from(AccountModel.schema)
                        .where("user_handle", .equal, Data(userHandle)).for(.update).all().count
                    guard found == 1 else { throw FluentStoreDatabase.Rollback(outcome: .accountGone) }
                }
                let count = try await CredentialModel.query(on: database).filter(\.$userHandle == Data(userHandle)).count()
                guard count < cap else { throw FluentStoreDatabase.Rollback(outcome: .capReached) }
                let inserted = try await sql.raw(
                    """
                    INSERT INTO passkey_credentials (id, user_handle, sign_count, backup_state, uv_initialized, prf_enabled,
                                                     record, created_at)
                    VALUES (\(bind: Data(record.id)), \(bind: Data(userHandle)), \(bind: Int64(record.signCount)),
                            \(bind: record.backupState), \(bind: record.uvInitialized), \(bind: record.extensions.prfEnabled),
                            \(bind: json), \(bind: now))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """
                ).all().count
                guard inserted == 1 else { throw FluentStoreDatabase.Rollback(outcome: .duplicateCredential) }
                if let signIn { try await Self.start(signIn, userHandle: userHandle, credentialId: record.id, on: database) }
                return CreateOutcome.created
            }
        } catch let rollback as FluentStoreDatabase.Rollback {
            return rollback.outcome
        }
    }

    func credential(id: [UInt8]) async throws -> CredentialRecord? {
        let row = try await database.run { database, _ in try await CredentialModel.find(Data(id), on: database) }
        return try row.map(Self.record)
    }

    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        let rows = try await database.run { database, _ in
            try await CredentialModel.query(on: database).filter(\.$userHandle == Data(userHandle)).sort(\.$createdAt).all()
        }
        return try rows.map(Self.record)
    }

    func count(userHandle: [UInt8]) async throws -> Int {
        try await database.run { database, _ in
            try await CredentialModel.query(on: database).filter(\.$userHandle == Data(userHandle)).count()
        }
    }

    /// The library's compare and swap: one row changes only while `sign_count` is still the
    /// counter the login was verified against; none is a lost race (or a deleted credential).
    func update(_ change: CredentialUpdate) async throws -> Bool {
        try await database.run { _, sql in try await Self.swap(change, on: sql) != nil }
    }

    /// The same compare and swap and, when it matched, the login's session or token family
    /// (with its first refresh token) for the updated row, in one transaction: no row matched,
    /// nothing started; the sign-in's insert failed, the counter did not move.
    func update(_ change: CredentialUpdate, starting signIn: PendingSignIn) async throws -> Bool {
        let updated = try await database.transaction { database, sql in
            guard let userHandle = try await Self.swap(change, on: sql) else { return false }
            try await Self.start(signIn, userHandle: userHandle, credentialId: change.record.id, on: database)
            return true
        }
        if everyNth(signInSweeps) {
            // The session and token stores sweep at their own creations; these are made here.
            switch signIn {
            case .session: await FluentSessionStore.sweep(database, now: Date())
            case .tokenFamily(let family): await FluentRefreshTokenStore.sweep(database, now: family.authTime)
            }
        }
        return updated
    }

    /// The conditional UPDATE. - Returns: the updated row's user handle, nil when none matched.
    private static func swap(_ change: CredentialUpdate, on sql: any SQLDatabase) async throws -> [UInt8]? {
        let record = change.record
        let userHandle = try await sql.raw(
            """
            UPDATE passkey_credentials
            SET sign_count = \(bind: Int64(record.signCount)), backup_state = \(bind: record.backupState),
                uv_initialized = \(bind: record.uvInitialized), prf_enabled = \(bind: record.extensions.prfEnabled),
                last_used_at = \(bind: Date())
            WHERE id = \(bind: Data(record.id)) AND sign_count = \(bind: Int64(change.expectedSignCount))
            RETURNING user_handle
            """
        ).first(decodingColumn: "user_handle", as: Data.self)
        return userHandle.map(Array.init)
    }

    /// Writes a ceremony's sign-in for the user and credential it verified, on `database`
    /// (the ceremony's transaction).
    private static func start(
        _ signIn: PendingSignIn, userHandle: [UInt8], credentialId: [UInt8], on database: any Database
    ) async throws {
        switch signIn {
        case .session(let pending):
            try await FluentSessionStore.insert(
                Session(
                    id: pending.id, userHandle: userHandle, credentialId: credentialId, signedInAt: pending.signedInAt,
                    expiresAt: pending.expiresAt), on: database)
        case .tokenFamily(let pending):
            try await FluentRefreshTokenStore.insert(
                family: TokenFamily(
                    id: pending.id, userHandle: userHandle, credentialId: credentialId, authTime: pending.authTime,
                    audience: pending.audience, appKey: pending.appKey),
                tokenHash: pending.refreshTokenHash, expiresAt: pending.refreshTokenExpiresAt, on: database)
        }
    }

    /// Deletes the passkey and, in the same transaction, the sessions it signed in and the
    /// token families it began (the foreign keys would cascade too; this holds on a database
    /// that does not enforce them, such as SQLite with foreign keys off).
    func delete(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        try await database.transaction { database, sql in
            let deleted = try await sql.raw(
                "DELETE FROM passkey_credentials WHERE id = \(bind: Data(id)) AND user_handle = \(bind: Data(userHandle)) RETURNING id"
            ).all().count
            guard deleted == 1 else { return false }
            try await SessionModel.query(on: database).filter(\.$credentialId == Data(id)).delete()
            try await TokenFamilyModel.query(on: database).filter(\.$credentialId == Data(id)).delete()
            return true
        }
    }

    func rename(id: [UInt8], userHandle: [UInt8], name: PasskeyName?) async throws -> Bool {
        try await database.run { _, sql in
            try await sql.raw(
                """
                UPDATE passkey_credentials SET name = \(bind: name?.text)
                WHERE id = \(bind: Data(id)) AND user_handle = \(bind: Data(userHandle)) RETURNING id
                """
            ).all().count == 1
        }
    }

    /// Ids compare byte by byte (bytea in PostgreSQL, BLOB in SQLite: memcmp, then length).
    func page(userHandle: [UInt8], after: [UInt8]?, limit: Int) async throws -> [ListedPasskey] {
        let rows = try await database.run { database, _ in
            var query = CredentialModel.query(on: database).filter(\.$userHandle == Data(userHandle))
            if let after { query = query.filter(\.$id > Data(after)) }
            return try await query.sort(\.$id).limit(max(0, limit)).all()
        }
        return try rows.map { row in
            ListedPasskey(
                record: try Self.record(row), usage: CredentialUsage(createdAt: row.createdAt, lastUsedAt: row.lastUsedAt),
                name: row.name)
        }
    }

    /// The stored record with the columns a login updates laid over it.
    static func record(_ row: CredentialModel) throws -> CredentialRecord {
        var record = try JSONDecoder().decode(CredentialRecord.self, from: Data(row.record.utf8))
        guard let count = UInt32(exactly: row.signCount) else {
            throw WebAuthnError(.serverFault, step: "database", "sign_count out of range")
        }
        record.signCount = count
        record.backupState = row.backupState
        record.uvInitialized = row.uvInitialized
        record.extensions.prfEnabled = row.prfEnabled
        return record
    }
}
