import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import NIOPosix
import PasskeyBackend
import PasskeyBackendFluent
import PasskeyBackendPostgres
import SQLKit
import ServiceLifecycle
import Testing
import WebAuthnRP

#if canImport(Glibc)
import Glibc
#endif

/// A database that does not answer, or a SQLite file another process holds locked, is the
/// stores' `serverFault` (the routes' 503) within the call's deadline, on Fluent as on the
/// PostgresNIO stores: no call hangs and no driver error escapes.
@Suite struct StoreFailureTests {
    /// A loopback port that accepts connections (the kernel completes the handshake) and never
    /// says a word: a PostgreSQL server that hangs.
    final class SilentListener: Sendable {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let listening = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Int32 in
                    guard bind(fd, raw, length) == 0, listen(fd, 16) == 0 else { return -1 }
                    return getsockname(fd, raw, &length)
                }
            }
            guard fd >= 0, listening == 0 else {
                if fd >= 0 { close(fd) }
                throw PostgresCluster.Failure(description: "cannot listen: errno \(errno)")
            }
            (self.fd, port) = (fd, Int(UInt16(bigEndian: address.sin_port)))
        }

        deinit { close(fd) }
    }

    static func expectServerFault(_ call: () async throws -> Void) async {
        let started = ContinuousClock.now
        let error = await #expect(throws: WebAuthnError.self) { try await call() }
        #expect(error?.category == .serverFault)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func fluentOnAPostgreSQLThatDoesNotAnswerIsAServerFault() async throws {
        let listener = try SilentListener()
        let databases = StoreKind.databases()
        let configuration = SQLPostgresConfiguration(
            hostname: "127.0.0.1", port: listener.port, username: "passkeys", password: nil, database: "passkeys", tls: .disable)
        databases.use(.postgres(configuration: configuration, connectionPoolTimeout: .seconds(30)), as: .psql)
        let stores = PasskeyStores.fluent(databases, timeout: .seconds(1), logger: StoreKind.logger)
        await Self.expectServerFault { _ = try await stores.accounts.username(userHandle: [1]) }
        await Self.expectServerFault { _ = try await stores.challenges.consume([1]) }
        await databases.shutdownAsync()
    }

    @Test func thePostgresNIOStoresOnAPostgreSQLThatDoesNotAnswerGiveTheSameFault() async throws {
        let listener = try SilentListener()
        var configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: listener.port, username: "passkeys", password: nil, database: "passkeys", tls: .disable)
        configuration.options.connectTimeout = .seconds(1)
        let (stores, connections) = PasskeyStores.postgres(
            configuration, connections: 2, timeout: .seconds(1), logger: StoreKind.logger)
        let group = ServiceGroup(services: [connections], logger: StoreKind.logger)
        let running = Task { try await group.run() }
        await Self.expectServerFault { _ = try await stores.accounts.username(userHandle: [1]) }
        await group.triggerGracefulShutdown()
        _ = await running.result
    }

    /// Another process's exclusive lock on the file: the call waits at most its deadline, then
    /// fails as the store's fault; once the lock is gone the stores work again.
    @Test func fluentOnASQLiteFileLockedByAnotherProcessIsAServerFault() async throws {
        let path = NSTemporaryDirectory() + "passkeys-locked-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let databases = StoreKind.databases()
        databases.use(.sqlite(.file(path)), as: .sqlite)
        let stores = PasskeyStores.fluent(databases, timeout: .seconds(1), logger: StoreKind.logger)
        try await stores.migrate?()
        // The other process: its own connections, on a thread pool of its own.
        let otherPool = NIOThreadPool(numberOfThreads: 1)
        otherPool.start()
        let other = Databases(threadPool: otherPool, on: MultiThreadedEventLoopGroup.singleton)
        other.use(.sqlite(.file(path)), as: .sqlite)
        let locker = try #require(other.database(logger: StoreKind.logger, on: MultiThreadedEventLoopGroup.singleton.any()))
        try await locker.withConnection { connection in
            let sql = try #require(connection as? any SQLDatabase)
            try await sql.raw("BEGIN EXCLUSIVE").run()
            await Self.expectServerFault { _ = try await stores.accounts.username(userHandle: [1]) }
            try await sql.raw("ROLLBACK").run()
        }
        #expect(try await stores.accounts.username(userHandle: [1]) == nil)
        await other.shutdownAsync()
        try await otherPool.shutdownGracefully()
        await databases.shutdownAsync()
    }
}
