import FluentKit
import Foundation
import Logging
import PasskeyBackend
import PostgresNIO
import SQLKit
import WebAuthnRP

/// The database every Fluent store runs on, and what every call needs: a handle from
/// `Databases` (the configured id, or the default), SQL for the statements Fluent's query
/// builder cannot say (a compare and swap, an insert if absent, a locking read), and one
/// failure for every way the database can fail. A refused connection, a pool that timed out,
/// a PostgreSQL error, SQLite's busy and locked, and a call that passed its deadline
/// (`withDeadline`: a database that does not answer, a SQLite file another process
/// holds locked) all become the library's `WebAuthnError` `serverFault` (503, a client may
/// retry), as the PostgresNIO stores raise them.
///
/// On SQLite every call of this process runs alone (``SerialGate``): SQLite writes one
/// transaction at a time per file, and a deferred transaction that reads and then writes would
/// otherwise fail with SQLITE_BUSY the moment a second connection wrote first. One process is
/// one node there, so serializing its calls is the whole fleet's serialization.
struct FluentStoreDatabase: Sendable {
    let databases: Databases
    let id: DatabaseID?
    let logger: Logger
    /// The longest any one call may take, waiting for its turn on SQLite included.
    let timeout: Duration
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
        try await call(inTransaction: false, body)
    }

    /// Runs `body` in one transaction: it commits when `body` returns, and rolls back when it
    /// throws (a ``Rollback`` comes back as itself, anything else as the database failure).
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any Database, any SQLDatabase) async throws -> T) async throws -> T {
        try await call(inTransaction: true, body)
    }

    /// One call, within its deadline, with every failure as the store's fault.
    private func call<T: Sendable>(
        inTransaction: Bool, _ body: @escaping @Sendable (any Database, any SQLDatabase) async throws -> T
    ) async throws -> T {
        let database = try database()
        guard let sql = database as? any SQLDatabase else {
            throw WebAuthnError(.serverFault, step: "database", "the Fluent database \(id?.string ?? "(default)") does not speak SQL")
        }
        do {
            guard sql.dialect.name == "sqlite" else {
                return try await onOneConnection(database, inTransaction: inTransaction, body)
            }
            return try await withDeadline(timeout) {
                try await gate.run {
                    guard inTransaction else { return try await body(database, sql) }
                    return try await database.transaction { transaction in
                        guard let sql = transaction as? any SQLDatabase else {
                            throw WebAuthnError(.serverFault, step: "database", "the Fluent transaction does not speak SQL")
                        }
                        return try await body(transaction, sql)
                    }
                }
            }
        } catch let error as DeadlineExceeded {
            throw WebAuthnError(.serverFault, step: "database", "database call \(error)")
        } catch let error as Rollback {
            throw error
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.serverFault, step: "database", "database: \(String(reflecting: error))")
        }
    }

    /// A call on PostgreSQL holds one connection of Fluent's pool from its first statement to its
    /// last, and gives it back by its deadline whatever the connection does. A statement written
    /// while PostgreSQL closes the connection (a restart, a failover) never completes in
    /// PostgresNIO (the Hummingbird example's README, "Faults"); a lease held by it would be lost
    /// to the pool for good, and Fluent's PostgreSQL pool has one connection per event loop by
    /// default, so a few such calls stopped the node until it restarted. At the deadline the
    /// connection is closed, so the pool makes a new one instead of lending it again with the
    /// hung statement on it. A transaction is BEGIN, `body` and COMMIT on that connection.
    private func onOneConnection<T: Sendable>(
        _ database: any Database, inTransaction: Bool, _ body: @escaping @Sendable (any Database, any SQLDatabase) async throws -> T
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        let timeout = timeout
        // The outer deadline also bounds the wait for a connection; a lease that arrives after
        // it is given back at once.
        return try await withDeadline(timeout) {
            try await database.withConnection { pinned in
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { throw DeadlineExceeded(limit: timeout) }
                guard let sql = pinned as? any SQLDatabase else {
                    throw WebAuthnError(.serverFault, step: "database", "the Fluent connection does not speak SQL")
                }
                do {
                    return try await withDeadline(remaining) {
                        guard inTransaction else { return try await body(pinned, sql) }
                        try await sql.raw("BEGIN").run()
                        let result: T
                        do { result = try await body(pinned, sql) } catch {
                            // A connection whose ROLLBACK failed is in a state nobody knows.
                            do { try await sql.raw("ROLLBACK").run() } catch { await Self.close(pinned) }
                            throw error
                        }
                        try await sql.raw("COMMIT").run()
                        return result
                    }
                } catch let error as DeadlineExceeded {
                    await Self.close(pinned)
                    throw error
                }
            }
        }
    }

    /// Closes the connection `database` runs on (PostgreSQL's; another driver's is left to its
    /// pool), so the pool replaces it when the call gives it back.
    private static func close(_ database: any Database) async {
        guard let postgres = database as? any PostgresDatabase else { return }
        try? await postgres.withConnection { connection in connection.close() }.get()
    }
}
