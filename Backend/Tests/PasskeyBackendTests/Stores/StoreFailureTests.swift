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
import Synchronization
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

        init() throws { (fd, port) = try FreezingProxy.listenOnLoopback() }

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

    /// PostgreSQL restarts three times (fast shutdown, as a deploy or a failover does) while
    /// calls run on every connection: a call in the window may fail, but only as the store's fault
    /// within its deadline, and once the server is back every call works again, on Fluent's pool
    /// (one connection per event loop, its default) as on the PostgresNIO stores. A connection
    /// the restart broke must not keep its place, which a call that hangs on it would.
    @Test(arguments: [StoreKind.fluentPostgres, .postgresNIO])
    func theStoresWorkAgainAfterPostgreSQLRestarts(_ kind: StoreKind) async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let database = try await cluster.createDatabase()
        // Ample: the test is about recovering, not speed, on a machine that may be busy.
        let timeout = Duration.seconds(5)
        let stores: PasskeyStores
        let close: @Sendable () async -> Void
        if kind == .fluentPostgres {
            let databases = StoreKind.databases()
            let configuration = SQLPostgresConfiguration(
                hostname: "127.0.0.1", port: cluster.port, username: PostgresCluster.user, password: nil, database: database,
                tls: .disable)
            databases.use(.postgres(configuration: configuration), as: .psql)
            (stores, close) = (.fluent(databases, timeout: timeout, logger: StoreKind.logger), { await databases.shutdownAsync() })
        } else {
            let (made, connections) = PasskeyStores.postgres(
                cluster.configuration(database: database), connections: 2, timeout: timeout, logger: StoreKind.logger)
            let group = ServiceGroup(services: [connections], logger: StoreKind.logger)
            let running = Task { try await group.run() }
            stores = made
            close = {
                await group.triggerGracefulShutdown()
                _ = await running.result
            }
        }
        do {
            try await stores.migrate?()
            let challenges = stores.challenges

            // One call: nil when it answered, else how it failed (anything but the store's fault,
            // or a call past its deadline, fails the test at once).
            @Sendable func call(_ byte: UInt8) async -> String? {
                let started = ContinuousClock.now
                do {
                    try await challenges.issue(try StoreContractTests.issued(byte), now: StoreContractTests.now)
                    _ = try await challenges.consume(StoreContractTests.bytes(byte, 32))
                    // A transaction (BEGIN, a locking read, ROLLBACK or COMMIT) as a refresh runs it.
                    _ = try await StoreContractTests.rotate(stores, byte, into: byte &+ 1)
                } catch let error as WebAuthnError where error.category == .serverFault {
                    #expect(ContinuousClock.now - started < timeout * 2 + .seconds(1), "a call took past its deadline")
                    return "\(error)"
                } catch {
                    Issue.record("not the store's fault: \(error)")
                    return "\(error)"
                }
                return nil
            }
            let restarts = Restarts()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { restarts.finished.withLock { $0 = true } }
                    for _ in 0..<3 {
                        do { try cluster.restart() } catch { Issue.record("\(error)") }
                        try? await Task.sleep(for: .milliseconds(300))
                    }
                }
                for worker in 0..<12 {
                    group.addTask {
                        var round = 0
                        while !restarts.finished.withLock({ $0 }) {
                            _ = await call(UInt8(worker * 16 + round % 16))
                            round += 1
                        }
                    }
                }
            }

            // Back: the first call may still meet a connection the last restart closed (it fails
            // and is replaced); within a few seconds every call answers.
            let back = ContinuousClock.now
            var lastFailure: String? = "no call made"
            while ContinuousClock.now - back < .seconds(20) {
                lastFailure = await call(200)
                if lastFailure == nil { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(lastFailure == nil, "no call answered in 20 s after the restarts: \(lastFailure ?? "")")
            let failures = await withTaskGroup(of: String?.self) { group in
                for index in 0..<8 { group.addTask { await call(UInt8(201 + index)) } }
                return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures.isEmpty, "calls after the restarts failed: \(failures)")
        } catch {
            // A Fluent pool dropped without its shutdown traps (AsyncKit's assertion).
            await close()
            throw error
        }
        await close()
    }

    /// Connections that stop answering without closing (frozen by a proxy, as a statement
    /// written while PostgreSQL closes its connection never completes): each call on one fails
    /// as the store's fault by its deadline and gives its connection back closed, so the calls
    /// after them get new connections. Were a lease kept by a hung call, Fluent's pool (one
    /// connection per event loop by default) would have none left to lend.
    @Test func fluentGivesBackAConnectionThatStoppedAnsweringByTheDeadline() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let proxy = try FreezingProxy(to: cluster.port)
        defer { proxy.stop() }
        let databases = StoreKind.databases()
        let configuration = SQLPostgresConfiguration(
            hostname: "127.0.0.1", port: proxy.port, username: PostgresCluster.user, password: nil,
            database: try await cluster.createDatabase(), tls: .disable)
        databases.use(.postgres(configuration: configuration, connectionPoolTimeout: .seconds(30)), as: .psql)
        // The calls on frozen connections give up after 1 s; the others may take long on a busy
        // machine (the point is that they answer at all).
        let stores = PasskeyStores.fluent(databases, timeout: .seconds(1), logger: StoreKind.logger)
        let patient = PasskeyStores.fluent(databases, timeout: .seconds(10), logger: StoreKind.logger)
        do {
            try await patient.migrate?()
            let challenges = stores.challenges, patientChallenges = patient.challenges
            // Every event loop's connection made and lent at least once, then frozen.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for byte in UInt8(1)...16 {
                    group.addTask { _ = try await patientChallenges.consume(StoreContractTests.bytes(byte, 32)) }
                }
                try await group.waitForAll()
            }
            proxy.freeze()
            #expect(proxy.frozenOpen() > 0)
            // Calls until every frozen connection has been met by one (the pool lends a random
            // event loop's), each failing by its deadline; the stores close each one they met.
            let freezing = ContinuousClock.now
            var byte: UInt8 = 20
            while proxy.frozenOpen() > 0, ContinuousClock.now - freezing < .seconds(30) {
                let started = ContinuousClock.now
                do {
                    _ = try await challenges.consume(StoreContractTests.bytes(byte, 32))
                } catch let error as WebAuthnError {
                    #expect(error.category == .serverFault)
                }
                #expect(ContinuousClock.now - started < .seconds(3), "a call on a frozen connection held its caller")
                byte = byte == 29 ? 20 : byte + 1
            }
            #expect(proxy.frozenOpen() == 0, "a frozen connection a call gave up on was not closed")
            // The frozen connections were closed and replaced: every call answers again.
            let failures = await withTaskGroup(of: String?.self) { group in
                for byte in UInt8(30)..<46 {
                    group.addTask {
                        do {
                            try await patientChallenges.issue(try StoreContractTests.issued(byte), now: StoreContractTests.now)
                            let consumed = try await patientChallenges.consume(StoreContractTests.bytes(byte, 32))
                            return consumed == nil ? "challenge \(byte) lost" : nil
                        } catch { return "\(error)" }
                    }
                }
                return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures.isEmpty, "calls after the frozen connections failed: \(failures)")
        } catch {
            // A Fluent pool dropped without its shutdown traps (AsyncKit's assertion).
            await databases.shutdownAsync()
            throw error
        }
        await databases.shutdownAsync()
    }

    /// Whether the restarts are over (the workers call until then).
    final class Restarts: Sendable {
        let finished = Mutex(false)
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
