import FluentKit
import Foundation
import Logging
import PasskeyBackend
import SQLKit
import WebAuthnRP

/// The database every Fluent store runs on, and what every call needs: a handle from
/// `Databases` (the configured id, or the default), SQL for the statements Fluent's query
/// builder cannot say (a compare and swap, an insert if absent, a locking read), and one
/// failure for every way the database can fail. A refused connection, a pool that timed out,
/// a PostgreSQL error or SQLite's busy and locked all become the library's `WebAuthnError`
/// `serverFault` (503, a client may retry), as the PostgresNIO stores raise them.
///
/// On SQLite every call of this process runs alone (``SerialGate``): SQLite writes one
/// transaction at a time per file, and a deferred transaction that reads and then writes would
/// otherwise fail with SQLITE_BUSY the moment a second connection wrote first. One process is
/// one node there, so serializing its calls is the whole fleet's serialization.
struct FluentStoreDatabase: Sendable {
    let databases: Databases
    let id: DatabaseID?
    let logger: Logger
    let gate = SerialGate()

    /// Thrown inside a transaction to roll it back with an answer that is not a failure.
    struct Rollback: Error { let outcome: CreateOutcome }

    /// A handle on the configured database.
    func database() throws -> any Database {
        guard let database = databases.database(id, logger: logger, on: databases.eventLoopGroup.any()) else {
            throw WebAuthnError(.serverFault, step: "database", "no Fluent database is configured for \(id?.string ?? "the default id")")
        }
        return database
    }

    /// Runs `body` on the database (outside a transaction): each statement commits on its own.
    @discardableResult
    func run<T: Sendable>(_ body: @escaping @Sendable (any Database, any SQLDatabase) async throws -> T) async throws -> T {
        let database = try database()
        guard let sql = database as? any SQLDatabase else {
            throw WebAuthnError(.serverFault, step: "database", "the Fluent database \(id?.string ?? "(default)") does not speak SQL")
        }
        do {
            if sql.dialect.name == "sqlite" { return try await gate.run { try await body(database, sql) } }
            return try await body(database, sql)
        } catch let error as Rollback {
            throw error
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.serverFault, step: "database", "database: \(String(reflecting: error))")
        }
    }

    /// Runs `body` in one transaction: it commits when `body` returns, and rolls back when it
    /// throws (a ``Rollback`` comes back as itself, anything else as the database failure).
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any Database, any SQLDatabase) async throws -> T) async throws -> T {
        try await run { database, _ in
            try await database.transaction { transaction in
                guard let sql = transaction as? any SQLDatabase else {
                    throw WebAuthnError(.serverFault, step: "database", "the Fluent transaction does not speak SQL")
                }
                return try await body(transaction, sql)
            }
        }
    }
}
