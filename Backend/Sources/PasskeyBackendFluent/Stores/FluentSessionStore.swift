import FluentKit
import Foundation
import PasskeyBackend
import SQLKit
import Synchronization

/// Sessions on the Fluent database (``SessionStore``); expired rows are swept every 256
/// sign-ins per node.
final class FluentSessionStore: SessionStore {
    let database: FluentStoreDatabase
    private let creations = Mutex(0)

    init(database: FluentStoreDatabase) { self.database = database }

    func create(_ session: Session) async throws {
        try await database.run { database, _ in try await Self.insert(session, on: database) }
        if everyNth(creations) { await Self.sweep(database, now: Date()) }
    }

    /// Inserts the session's row on `database` (a ceremony's transaction, or a call of its own).
    static func insert(_ session: Session, on database: any Database) async throws {
        let row = SessionModel()
        row.id = Data(session.id)
        row.userHandle = Data(session.userHandle)
        row.credentialId = Data(session.credentialId)
        row.signedInAt = session.signedInAt
        row.expiresAt = session.expiresAt
        try await row.create(on: database)
    }

    /// Deletes expired sessions (best effort: a failure leaves them for the next sweep).
    static func sweep(_ database: FluentStoreDatabase, now: Date) async {
        _ = try? await database.run { database, _ in
            try await SessionModel.query(on: database).filter(\.$expiresAt < now).delete()
        }
    }

    func session(id: [UInt8], now: Date) async throws -> Session? {
        let row = try await database.run { database, _ in
            try await SessionModel.query(on: database).filter(\.$id == Data(id)).filter(\.$expiresAt > now).first()
        }
        guard let row else { return nil }
        return Session(
            id: id, userHandle: Array(row.userHandle), credentialId: Array(row.credentialId), signedInAt: row.signedInAt,
            expiresAt: row.expiresAt)
    }

    func delete(id: [UInt8]) async throws {
        try await database.run { database, _ in try await SessionModel.query(on: database).filter(\.$id == Data(id)).delete() }
    }

    func deleteAll(userHandle: [UInt8]) async throws -> Int {
        try await database.run { _, sql in
            try await sql.raw("DELETE FROM passkey_sessions WHERE user_handle = \(bind: Data(userHandle)) RETURNING id").all().count
        }
    }

    /// ``FluentCredentialStore/delete(id:userHandle:)`` removed them, in the delete's own transaction.
    func credentialDeleted(_ id: [UInt8]) async throws {}
}
