import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Logging
import NIOPosix
import PasskeyBackend
import PasskeyBackendFluent
import PasskeyBackendPostgres
import ServiceLifecycle
import Testing

/// The store implementations the contract runs on: each makes fresh, migrated stores and
/// removes what it made afterwards.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case fluentSQLite
    case fluentPostgres
    case postgresNIO

    /// The kinds on a database, whose ceremony writes roll back as one transaction (the memory
    /// stores write in one process with nothing to roll back).
    static let transactional: [StoreKind] = [.fluentSQLite, .fluentPostgres, .postgresNIO]

    var testDescription: String { rawValue }

    static let logger: Logger = {
        var logger = Logger(label: "store-contract")
        logger.logLevel = .critical
        return logger
    }()

    /// Fresh stores, migrated, and what removes them.
    func make() async throws -> (stores: PasskeyStores, close: @Sendable () async -> Void) {
        let made: (stores: PasskeyStores, close: @Sendable () async -> Void)
        switch self {
        case .memory:
            made = (.memory(), {})
        case .fluentSQLite:
            made = try Self.fluentSQLite()
        case .fluentPostgres:
            let cluster = try Self.cluster()
            let databases = Self.databases()
            let configuration = SQLPostgresConfiguration(
                hostname: "127.0.0.1", port: cluster.port, username: PostgresCluster.user, password: nil,
                database: try await cluster.createDatabase(), tls: .disable)
            databases.use(.postgres(configuration: configuration, maxConnectionsPerEventLoop: 4), as: .psql)
            made = (.fluent(databases, logger: Self.logger), { await databases.shutdownAsync() })
        case .postgresNIO:
            let cluster = try Self.cluster()
            let database = try await cluster.createDatabase()
            let (stores, connections) = PasskeyStores.postgres(
                cluster.configuration(database: database), connections: 8, timeout: .seconds(10), logger: Self.logger)
            // The connections' service runs as in a server, and its graceful shutdown closes them.
            let group = ServiceGroup(services: [connections], logger: Self.logger)
            let running = Task { try await group.run() }
            made = (
                stores,
                {
                    await group.triggerGracefulShutdown()
                    _ = await running.result
                }
            )
        }
        do { try await made.stores.migrate?() } catch {
            // A Fluent pool dropped without its shutdown traps (AsyncKit's assertion).
            await made.close()
            throw error
        }
        return made
    }

    /// Fluent on SQLite in a new temporary file.
    static func fluentSQLite() throws -> (stores: PasskeyStores, close: @Sendable () async -> Void) {
        let path = NSTemporaryDirectory() + "passkeys-\(UUID().uuidString).sqlite"
        let databases = Self.databases()
        databases.use(.sqlite(.file(path)), as: .sqlite)
        return (
            .fluent(databases, logger: Self.logger),
            {
                await databases.shutdownAsync()
                for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        )
    }

    static func databases() -> Databases {
        Databases(threadPool: NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
    }

    static func cluster() throws -> PostgresCluster {
        guard let cluster = PostgresCluster.current else {
            throw PostgresCluster.Failure(description: "no PostgreSQL cluster: run the suite with the .postgresCluster trait")
        }
        return cluster
    }
}
