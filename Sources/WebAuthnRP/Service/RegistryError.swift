/// Why a store refused an operation. Store failures are not ceremony verdicts: they
/// mean the server could not record state, and are reported as such.
public struct RegistryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable category.
    public enum Code: String, Sendable, Hashable {
        /// The store is full (the in-memory stores have a capacity limit).
        case capacityExceeded
        /// The same challenge bytes are already outstanding.
        case duplicateChallenge
        /// The backing storage failed.
        case storage
    }
    /// The category.
    public let code: Code
    /// Details.
    public let message: String
    /// Creates an error.
    /// - Parameters:
    ///   - code: the category.
    ///   - message: details.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    /// `registry.<code>: <message>`.
    public var description: String { "registry.\(code.rawValue): \(message)" }

    /// A text safe to send to the client; it says nothing about the store. Log ``description``.
    public var clientMessage: String {
        switch code {
        case .capacityExceeded, .storage: return "The service is busy. Please try again shortly."
        case .duplicateChallenge: return "Please try again."
        }
    }

    /// The suggested HTTP status: 503 (Service Unavailable) for a full or failing store, which
    /// a client may retry; 500 for a challenge issued twice, which is the server's own fault.
    public var httpStatus: Int {
        switch code {
        case .capacityExceeded, .storage: return 503
        case .duplicateChallenge: return 500
        }
    }
}
