import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A call that passed its deadline.
package struct DeadlineExceeded: Error, CustomStringConvertible {
    package let limit: Duration
    package init(limit: Duration) { self.limit = limit }
    package var description: String { "passed its deadline of \(limit)" }
}

/// Runs `body` and answers within `limit`: its result, its error, or ``DeadlineExceeded``.
///
/// The work runs in a task of its own and the caller waits on a continuation, not on that task,
/// so a call that ignores cancellation (a PostgresNIO query on a connection the server just
/// closed never completes: README, "Faults"; a SQLite call waiting for another process's lock)
/// cannot hold the request. The PostgreSQL and the Fluent stores run every call under it. On the deadline the work
/// is cancelled and left to finish or not; the caller is answered either way. The caller's
/// own cancellation also answers at once.
///
/// The timer is a task scheduled on an event loop of NIO's singleton group (the one the caller
/// runs on, when it runs on one), not a sleeping Swift task: `Task.sleep` arms a libdispatch
/// timer, whose manager thread wakes for every call and cost about a tenth of the server's CPU
/// per PostgreSQL login (Docs/Performance.md).
package func withDeadline<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.start(
                continuation,
                work: Task {
                    do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
                },
                timer: MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(limit)) {
                    race.finish(.failure(DeadlineExceeded(limit: limit)))
                })
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of the work, the timer and the caller's cancellation resumes the continuation;
/// the others find it gone. The work and the timer are both cancelled once it is decided.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var work: Task<Void, Never>?
        var timer: Scheduled<Void>?
        /// An outcome that arrived before `start` (the caller was already cancelled).
        var early: Result<T, any Error>?
        var decided = false
    }
    private let state = Mutex(State())

    package func start(_ continuation: CheckedContinuation<T, any Error>, work: Task<Void, Never>, timer: Scheduled<Void>) {
        let early: Result<T, any Error>? = state.withLock { state in
            if state.decided { return state.early ?? .failure(CancellationError()) }
            state.continuation = continuation
            (state.work, state.timer) = (work, timer)
            return nil
        }
        if let early {
            work.cancel()
            timer.cancel()
            continuation.resume(with: early)
        }
    }

    package func finish(_ result: Result<T, any Error>) {
        let decided: (CheckedContinuation<T, any Error>, Task<Void, Never>?, Scheduled<Void>?)? = state.withLock { state in
            guard !state.decided else { return nil }
            state.decided = true
            guard let continuation = state.continuation else {
                state.early = result
                return nil
            }
            defer { (state.continuation, state.work, state.timer) = (nil, nil, nil) }
            return (continuation, state.work, state.timer)
        }
        guard let (continuation, work, timer) = decided else { return }
        work?.cancel()
        timer?.cancel()
        continuation.resume(with: result)
    }
}
