import FluentKit
import Foundation
import PasskeyBackend
import WebAuthnRP

/// Accounts on the Fluent database, found by the folded name (unique) or the user handle.
/// Accounts are created with their first passkey (``FluentCredentialStore``).
final class FluentAccountStore: AccountStore {
    let database: FluentStoreDatabase

    init(database: FluentStoreDatabase) { self.database = database }

    func userHandle(username: Username) async throws -> [UInt8]? {
        let account = try await database.run { database, _ in
            try await AccountModel.query(on: database).filter(\.$usernameKey == username.key).first()
        }
        return account?.id.map(Array.init)
    }

    /// The account; its credentials are left to the library's read of the credential store.
    func loginLookup(
        username: Username
    ) async throws -> (userHandle: [UInt8], username: String, allowCredentials: [PublicKeyCredentialDescriptorJSON]?)? {
        let account = try await database.run { database, _ in
            try await AccountModel.query(on: database).filter(\.$usernameKey == username.key).first()
        }
        guard let account, let userHandle = account.id else { return nil }
        return (Array(userHandle), account.username, nil)
    }

    func username(userHandle: [UInt8]) async throws -> String? {
        try await database.run { database, _ in try await AccountModel.find(Data(userHandle), on: database)?.username }
    }
}
