import FluentKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SQLKit
import SoftwarePasskey
import Testing
import WebAuthnRP

@testable import PasskeyBackend
@testable import PasskeyBackendHummingbird

/// The application's main flow on Fluent's SQLite stores, the embedded default: a sign-up, a
/// login, a token login and its refresh (with the reuse of the rotated token refused), all
/// through the routes, with what they wrote read back from the SQLite file.
@Suite struct FluentFlowTests {
    @Test func signUpLoginAndTokenRefreshOnFluentSQLite() async throws {
        let (stores, close) = try StoreKind.fluentSQLite()
        do {
            try await Self.flow(stores)
        } catch {
            await close()
            throw error
        }
        await close()
    }

    static func flow(_ stores: PasskeyStores) async throws {
        try await stores.migrate?()
        // Migrating again finds nothing to do (Fluent's log has every migration).
        try await stores.migrate?()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = try await buildApplication(AppTests.config(), logger: logger, testing: TestingOptions(stores: stores))
        try await app.test(.router) { client in
            var user = Client(client)
            var passkey = try await user.register("alice")
            #expect(try await user.json("/api/me")["username"] as? String == "alice")
            try await user.logout()
            #expect(try await user.send("/api/me", method: .get).status == .unauthorized)
            try await user.login(&passkey, username: "Alice")
            #expect(try await user.json("/api/me")["username"] as? String == "alice")

            let (first, _) = try await TokenTests.tokens(client, "bob")
            let me = try await client.execute(uri: "/api/me", method: .get, headers: TokenTests.bearer(first.access))
            #expect(try AppTests.object(me)["username"] as? String == "bob")
            let refreshed = try await TokenTests.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(first.refresh)")
            #expect(refreshed.status == .ok)
            let second = try TokenPair(refreshed)
            #expect(second.refresh != first.refresh)
            let reused = try await TokenTests.form(client, "/oauth/token", "grant_type=refresh_token&refresh_token=\(first.refresh)")
            #expect(try TokenTests.error(reused) == "invalid_grant")
            #expect(
                try await client.execute(uri: "/api/me", method: .get, headers: TokenTests.bearer(second.access)).status == .unauthorized)
        }
        // What the flow wrote is in the file: two accounts, alice's login moved her counter.
        let accounts = try await stores.accounts.userHandle(username: try Username("alice"))
        let alice = try #require(accounts)
        #expect(try await stores.accounts.username(userHandle: alice) == "alice")
        #expect(try await stores.accounts.userHandle(username: try Username("bob")) != nil)
        #expect(try await stores.credentials.credentials(userHandle: alice).first?.signCount ?? 0 > 0)
    }
}
