import FluentKit
import Foundation
import PasskeyBackend
import SQLKit
import Synchronization
import WebAuthnRP

/// Refresh tokens on the Fluent database: `passkey_token_families` (one row per sign-in of an
/// app; it goes with its passkey) and `passkey_refresh_tokens` (the SHA-256 of each token,
/// `used_at` once rotated). A rotation is one transaction that begins with a locking read of
/// the token's row and commits after the new access token is signed: of two nodes presenting
/// one token at once, PostgreSQL makes the second wait for the first's commit and read the
/// token spent (and SQLite runs them one after the other), so one rotates it and the other
/// revokes the family, unless its first use is within the reuse interval.
final class FluentRefreshTokenStore: RefreshTokenStore {
    let database: FluentStoreDatabase
    /// Sign-ins since the last sweep of expired rows (swept every 256 per node).
    private let creations = Mutex(0)

    init(database: FluentStoreDatabase) { self.database = database }

    func create(family: TokenFamily, tokenHash: [UInt8], expiresAt: Date, now: Date) async throws {
        try await database.transaction { database, _ in
            try await Self.insert(family: family, tokenHash: tokenHash, expiresAt: expiresAt, on: database)
        }
        if everyNth(creations) { await Self.sweep(database, now: now) }
    }

    /// Inserts the family and its first token on `database` (inside a transaction).
    static func insert(family: TokenFamily, tokenHash: [UInt8], expiresAt: Date, on database: any Database) async throws {
        let row = TokenFamilyModel()
        row.id = family.id
        row.userHandle = Data(family.userHandle)
        row.credentialId = Data(family.credentialId)
        row.authTime = family.authTime
        row.audience = family.audience
        row.appAttestKeyId = family.appKey?.appAttestKeyId.map { Data($0) }
        row.androidKeyId = family.appKey?.androidKeyId.map { Data($0) }
        try await row.create(on: database)
        try await token(tokenHash, family: family.id, expiresAt: expiresAt).create(on: database)
    }

    private static func token(_ hash: [UInt8], family: String, expiresAt: Date) -> RefreshTokenModel {
        let row = RefreshTokenModel()
        row.id = Data(hash)
        row.family = family
        row.expiresAt = expiresAt
        return row
    }

    /// Deletes expired refresh tokens and the families left without one (best effort).
    static func sweep(_ database: FluentStoreDatabase, now: Date) async {
        _ = try? await database.run { database, sql in
            try await RefreshTokenModel.query(on: database).filter(\.$expiresAt < now).delete()
            try await sql.raw(
                """
                DELETE FROM passkey_token_families
                WHERE NOT EXISTS (SELECT 1 FROM passkey_refresh_tokens t WHERE t.family = passkey_token_families.id)
                """
            ).run()
        }
    }

    /// The presented token and its family, as the rotation's locking read finds them.
    private struct Presented {
        var family: String, expiresAt: Date, usedAt: Date?
        var userHandle: Data, credentialId: Data, authTime: Date, audience: String?, appKey: AppKey?, revokedAt: Date?

        init(_ row: any SQLRow) throws {
            family = try row.decode(column: "family", as: String.self)
            expiresAt = try row.decode(column: "expires_at", as: Date.self)
            usedAt = try row.decode(column: "used_at", as: Date?.self)
            userHandle = try row.decode(column: "user_handle", as: Data.self)
            credentialId = try row.decode(column: "credential_id", as: Data.self)
            authTime = try row.decode(column: "auth_time", as: Date.self)
            audience = try row.decode(column: "audience", as: String?.self)
            appKey = AppKey(
                appAttestKeyId: try row.decode(column: "app_attest_key_id", as: Data?.self).map(Array.init),
                androidKeyId: try row.decode(column: "android_key_id", as: Data?.self).map(Array.init))
            revokedAt = try row.decode(column: "revoked_at", as: Date?.self)
        }
    }

    func rotate(
        tokenHash: [UInt8], newHash: [UInt8], newExpiresAt: Date, audience: String, appKey: AppKey?,
        reuseInterval: TimeInterval, now: Date,
        issue: @escaping @Sendable (TokenFamily) async throws -> Void
    ) async throws -> RefreshOutcome {
        try await database.transaction { database, sql -> RefreshOutcome in
            // Locks the token's row (and its family's) until the commit; SQLite has no locking
            // read and needs none (its calls run one at a time).
            let presented = try await sql.raw(
                """
                SELECT t.family, t.expires_at, t.used_at, f.user_handle, f.credential_id, f.auth_time, f.audience,
                    f.app_attest_key_id, f.android_key_id, f.revoked_at
                FROM passkey_refresh_tokens t JOIN passkey_token_families f ON f.id = t.family
                WHERE t.hash = \(bind: Data(tokenHash)) \(SQLLockingClause.update)
                """
            ).first().map(Presented.init)
            guard let presented, presented.revokedAt == nil, (presented.audience ?? audience) == audience else { return .invalid }
            // Bound to an app key the request was not asserted by: nothing changes.
            if let bound = presented.appKey, bound != appKey {
                return .wrongKey
            }
            if let usedAt = presented.usedAt, !(reuseInterval > 0 && now.timeIntervalSince(usedAt) <= reuseInterval) {
                // Reuse of a rotated token: the whole family ends, whoever holds its newest token.
                try await TokenFamilyModel.query(on: database).filter(\.$id == presented.family).set(\.$revokedAt, to: now).update()
                return .reused
            }
            guard presented.expiresAt > now else { return .invalid }
            // The first use's time stays: the reuse interval counts from it, not from each reuse.
            if presented.usedAt == nil {
                try await RefreshTokenModel.query(on: database).filter(\.$id == Data(tokenHash)).set(\.$usedAt, to: now).update()
            }
            try await Self.token(newHash, family: presented.family, expiresAt: newExpiresAt).create(on: database)
            // A family stored before audiences were is bound to this one.
            try await TokenFamilyModel.query(on: database).filter(\.$id == presented.family).filter(\.$audience == nil)
                .set(\.$audience, to: audience).update()
            let family = TokenFamily(
                id: presented.family, userHandle: Array(presented.userHandle), credentialId: Array(presented.credentialId),
                authTime: presented.authTime, audience: audience, appKey: presented.appKey)
            try await issue(family)
            return .rotated(family)
        }
    }

    func family(id: String, now: Date) async throws -> TokenFamily? {
        let row = try await database.run { database, _ in
            try await TokenFamilyModel.query(on: database).filter(\.$id == id).filter(\.$revokedAt == nil).first()
        }
        guard let row else { return nil }
        return TokenFamily(
            id: id, userHandle: Array(row.userHandle), credentialId: Array(row.credentialId), authTime: row.authTime,
            audience: row.audience,
            appKey: AppKey(appAttestKeyId: row.appAttestKeyId.map(Array.init), androidKeyId: row.androidKeyId.map(Array.init)))
    }

    func isStored(tokenHash: [UInt8]) async throws -> Bool {
        try await database.run { database, _ in
            try await RefreshTokenModel.query(on: database).filter(\.$id == Data(tokenHash)).count() == 1
        }
    }

    func revoke(tokenHash: [UInt8], now: Date) async throws -> Bool {
        try await database.run { _, sql in
            try await sql.raw(
                """
                UPDATE passkey_token_families SET revoked_at = \(bind: now)
                WHERE revoked_at IS NULL AND id = (SELECT family FROM passkey_refresh_tokens WHERE hash = \(bind: Data(tokenHash)))
                RETURNING id
                """
            ).all().count == 1
        }
    }

    func revoke(familyID: String, now: Date) async throws -> Bool {
        try await database.run { _, sql in
            try await sql.raw(
                """
                UPDATE passkey_token_families SET revoked_at = \(bind: now) WHERE id = \(bind: familyID) AND revoked_at IS NULL
                RETURNING id
                """
            ).all().count == 1
        }
    }

    func revokeAll(userHandle: [UInt8], now: Date) async throws -> Int {
        try await database.run { _, sql in
            try await sql.raw(
                """
                UPDATE passkey_token_families SET revoked_at = \(bind: now)
                WHERE user_handle = \(bind: Data(userHandle)) AND revoked_at IS NULL RETURNING id
                """
            ).all().count
        }
    }

    /// ``FluentCredentialStore/delete(id:userHandle:)`` removed them, in the delete's own transaction.
    func credentialDeleted(_ id: [UInt8]) async throws {}
}
