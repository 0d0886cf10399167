import FluentKit

/// A row of `passkey_store_locks`: a named row a transaction updates to serialize one job
/// across nodes (PostgreSQL's row lock; the portable stand-in for an advisory lock). The one
/// row, `signing_keys`, makes nodes that rotate the signing key at once add one key between them.
final class StoreLockModel: Model, @unchecked Sendable {
    static let schema = "passkey_store_locks"
    static let signingKeys = "signing_keys"

    @ID(custom: "name", generatedBy: .user) var id: String?

    init() {}

    init(name: String) { self.id = name }
}
