/// Runs one call at a time, in the order they arrive: the SQLite stores' serialization (one
/// writer per file; see ``FluentStoreDatabase``). Not reentrant: a call that waits for another
/// call of the same gate never starts.
actor SerialGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once every call that arrived before it has finished.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer { handOn() }
        return try await body()
    }

    /// Lets the next waiting call run, or marks the gate free.
    private func handOn() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
