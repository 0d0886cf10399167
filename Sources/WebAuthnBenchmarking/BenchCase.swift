// The cases of the `webauthn-bench` executable (Benchmarks/ sub-package), as a library of the
// root package so that they can reach the `package` test authenticator, the seeded keys and
// libcrypto's own verify loop in WebAuthnTestSupport. Product `_WebAuthnBenchmarking`: not for
// servers (the leading underscore says so). The executable keeps the clock, the command line,
// the output and the valgrind markers.

/// One benchmark case. `prepare(operations:)` does everything outside the timed region
/// (issuing challenges, resetting records); `run(operations:)` is the timed region and
/// performs exactly that many operations, each of which must succeed.
public protocol BenchCase: AnyObject {
    /// The case name printed and accepted by `--case`.
    var name: String { get }
    /// The `limit.*` case this one is compared with, if any.
    var limit: String? { get }
    /// Operations per timed round.
    var operationsPerRound: Int { get }
    /// Untimed setup for the next `operations` operations.
    func prepare(operations: Int) async throws
    /// The timed region: exactly `operations` operations.
    func run(operations: Int) async throws
    /// A timed round of up to `operations` operations; returns how many ran. Only a case
    /// that runs several workers stops short (when its first worker is done).
    func runRound(operations: Int) async throws -> Int
}

extension BenchCase {
    /// No yardstick: a case compared with a `limit.*` case names it.
    var limit: String? { nil }

    /// Nothing to set up: a case that issues challenges or resets records outside the timed region says so.
    func prepare(operations: Int) async throws {}

    /// A round of exactly `operations` operations (every case but the concurrent one).
    public func runRound(operations: Int) async throws -> Int {
        try await run(operations: operations)
        return operations
    }
}

/// A case that cannot be made or an operation that did not succeed.
public struct BenchFailure: Error, CustomStringConvertible {
    /// What failed.
    public let description: String
    /// A failure described by `description`.
    public init(_ description: String) { self.description = description }
}
