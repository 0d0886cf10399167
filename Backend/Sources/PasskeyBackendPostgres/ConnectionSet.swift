import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// A node's connections to PostgreSQL: a fixed number on each event loop of NIO's singleton
/// group, each lent to one call at a time, opened when a call first needs it and opened again
/// after it failed.
///
/// Why not PostgresNIO's `PostgresClient` (1.33): its pool arms a sleeping task (a libdispatch
/// timer) each time a connection goes back idle above its minimum, and a minimum above zero
/// trips its precondition (the process crashes) when a lease arrives while connections are
/// failing, as they do while PostgreSQL restarts (Docs/Performance.md). Here a call takes a
/// connection of the event loop it runs on, so its statements need no hop between threads,
/// nothing is scheduled per call, and a broken connection is dropped and replaced by the next
/// call that needs it: during an outage every call fails at once (connection refused) or at
/// its deadline, and none waits on a queue of retries.
package final class ConnectionSet: Service, Sendable {
    /// The set was closed (the node is shutting down).
    package struct Closed: Error, CustomStringConvertible {
        package var description: String { "the database connections are closed" }
    }

    private let configuration: PostgresConnection.Configuration
    private let keepAlive: Duration?
    private let timeout: Duration
    private let logger: Logger
    private let loops: [(loop: any EventLoop, connections: LoopConnections)]
    /// Numbers the connections (for PostgresNIO's logs) and spreads calls made off the loops.
    private let counter = Atomic(0)

    /// - Parameters:
    ///   - total: The node's connections at most, divided between the event loops (at least one each).
    ///   - keepAlive: Pings each idle connection this often (nil: never).
    ///   - timeout: The longest a ping may take.
    package init(
        configuration: PostgresConnection.Configuration, total: Int, keepAlive: Duration?, timeout: Duration, logger: Logger
    ) {
        let all = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let each = max(1, (total + all.count - 1) / all.count)
        loops = all.map { ($0, LoopConnections(count: each)) }
        (self.configuration, self.keepAlive, self.timeout, self.logger) = (configuration, keepAlive, timeout, logger)
    }

    /// Runs `body` on a connection of the caller's event loop, lent to it alone until it returns.
    ///
    /// When the calling task is cancelled (its deadline passed), the connection is closed and its
    /// place given back at once, whether or not `body` ever returns: PostgresNIO 1.33 can lose a
    /// statement written while its channel closes (README, "Faults"), and such a call must not keep
    /// its place. A connection an error may have left unusable is closed and replaced.
    package func withConnection<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let (loop, connections) = entry()
        let (slot, kept) = try await connections.lease()
        let lease = Lease()
        return try await withTaskCancellationHandler {
            let connection: PostgresConnection
            do {
                if let kept, !kept.isClosed {
                    connection = kept
                } else {
                    kept?.discard()
                    connection = try await PostgresConnection.connect(
                        on: loop, configuration: configuration, id: counter.wrappingAdd(1, ordering: .relaxed).oldValue, logger: logger)
                }
            } catch {
                lease.end { _ in connections.release(slot, keeping: nil) }
                throw error
            }
            guard lease.hold(connection) else {
                // Cancelled while it connected: its place is already given back, without it.
                connection.discard()
                throw CancellationError()
            }
            do {
                let result = try await body(connection)
                lease.end { _ in connections.release(slot, keeping: connection) }
                return result
            } catch {
                let usable = !connection.isClosed && Self.leavesConnectionUsable(error)
                lease.end { _ in
                    if !usable { connection.discard() }
                    connections.release(slot, keeping: usable ? connection : nil)
                }
                throw error
            }
        } onCancel: {
            lease.end { connection in
                connection?.discard()
                connections.release(slot, keeping: nil)
            }
        }
    }

    /// A statement PostgreSQL refused leaves its connection ready for the next (the protocol
    /// resynchronizes), as does a transaction rolled back; anything else may not.
    private static func leavesConnectionUsable(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError: return error.code == .server
        case let error as PostgresTransactionError:
            return error.beginError == nil && error.commitError == nil && error.rollbackError == nil
        default: return true
        }
    }

    /// The caller's event loop and its connections (another loop's when it runs on none).
    private func entry() -> (any EventLoop, LoopConnections) {
        if let current = MultiThreadedEventLoopGroup.currentEventLoop {
            for entry in loops where entry.loop === current { return entry }
        }
        return loops[Int(UInt(bitPattern: counter.wrappingAdd(1, ordering: .relaxed).oldValue) % UInt(loops.count))]
    }

    /// Waits for the graceful shutdown (pinging idle connections every `keepAlive` meanwhile),
    /// then closes every connection; calls after that fail with ``Closed``.
    package func run() async throws {
        if let keepAlive {
            try? await cancelWhenGracefulShutdown {
                while true {
                    try await Task.sleep(for: keepAlive)
                    await self.pingIdle()
                }
            }
        } else {
            try? await gracefulShutdown()
        }
        for entry in loops { entry.connections.close() }
    }

    /// `SELECT 1` on each idle connection (so a middlebox does not drop it); one that fails is
    /// closed and replaced at its next use.
    private func pingIdle() async {
        for (_, connections) in loops {
            for (slot, connection) in connections.takeIdle() {
                var usable = false
                if let connection {
                    let logger = logger
                    let answered = try? await withDeadline(timeout) {
                        try await connection.query("SELECT 1", logger: logger).collect().count
                    }
                    usable = answered != nil
                    if !usable { connection.discard() }
                }
                connections.release(slot, keeping: usable ? connection : nil)
            }
        }
    }
}

/// One call's hold on its place: given back once, by the call or by its cancellation, whichever
/// comes first.
private final class Lease: Sendable {
    private enum State { case connecting, holding(PostgresConnection), ended }
    private let state = Mutex(State.connecting)

    /// Records the connection; false when the lease already ended (the call was cancelled).
    func hold(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard case .connecting = state else { return false }
            state = .holding(connection)
            return true
        }
    }

    /// Ends the lease with `giveBack` (handed the connection held, if any), unless it already ended.
    func end(_ giveBack: (PostgresConnection?) -> Void) {
        let held: PostgresConnection?? = state.withLock { state in
            switch state {
            case .ended: return .none
            case .connecting: state = .ended; return .some(nil)
            case .holding(let connection): state = .ended; return .some(connection)
            }
        }
        if let held { giveBack(held) }
    }
}

/// The places of one event loop: each holds a connection (or none yet), and is lent to one call
/// at a time; calls that find none free wait in order.
private final class LoopConnections: Sendable {
    private struct State {
        var connections: [PostgresConnection?]
        /// Free places, the most recently used last (taken first: the others stay unopened while
        /// few calls run at once).
        var idle: [Int]
        var waiters: [(id: Int, continuation: CheckedContinuation<Int, any Error>)] = []
        var nextWaiter = 0
        var closed = false
    }
    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(connections: Array(repeating: nil, count: count), idle: Array((0..<count).reversed())))
    }

    /// A free place and its connection, waiting for one in order when none is free.
    func lease() async throws -> (slot: Int, connection: PostgresConnection?) {
        let free: Int? = try state.withLock { state in
            if state.closed { throw ConnectionSet.Closed() }
            return state.idle.popLast()
        }
        let slot: Int
        if let free {
            slot = free
        } else {
            let id = state.withLock { state in
                defer { state.nextWaiter += 1 }
                return state.nextWaiter
            }
            slot = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                    let now: Result<Int, any Error>? = state.withLock { state in
                        if state.closed { return .failure(ConnectionSet.Closed()) }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if let slot = state.idle.popLast() { return .success(slot) }
                        state.waiters.append((id, continuation))
                        return nil
                    }
                    if let now { continuation.resume(with: now) }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        }
        return (slot, state.withLock { $0.connections[slot] })
    }

    /// Gives `slot` back with the connection it now holds (nil: none, the next call opens one),
    /// to the first waiting call if any.
    func release(_ slot: Int, keeping connection: PostgresConnection?) {
        let (waiter, closing): (CheckedContinuation<Int, any Error>?, PostgresConnection?) = state.withLock { state in
            if state.closed {
                state.connections[slot] = nil
                return (nil, connection)
            }
            state.connections[slot] = connection
            guard !state.waiters.isEmpty else {
                state.idle.append(slot)
                return (nil, nil)
            }
            return (state.waiters.removeFirst().continuation, nil)
        }
        closing?.discard()
        waiter?.resume(returning: slot)
    }

    /// Every free place with its connection, taken until given back with ``release(_:keeping:)``.
    func takeIdle() -> [(slot: Int, connection: PostgresConnection?)] {
        state.withLock { state in
            defer { state.idle.removeAll() }
            return state.idle.map { ($0, state.connections[$0]) }
        }
    }

    /// Closes the idle connections and fails the waiting calls; a connection in use is closed
    /// when it is given back.
    func close() {
        let (connections, waiters) = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            let idle = state.idle.compactMap { state.connections[$0] }
            for slot in state.idle { state.connections[slot] = nil }
            return (idle, state.waiters.map(\.continuation))
        }
        for connection in connections { connection.discard() }
        for waiter in waiters { waiter.resume(throwing: ConnectionSet.Closed()) }
    }
}

extension PostgresConnection {
    /// Closes the connection without waiting for it (nothing needs the outcome). The completion
    /// holds the connection until its channel has closed: PostgresNIO asserts (in debug builds)
    /// that a connection is closed when it is deinitialized.
    fileprivate func discard() { close().whenComplete { _ in withExtendedLifetime(self) {} } }
}
