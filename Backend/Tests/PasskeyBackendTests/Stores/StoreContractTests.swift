import FluentPostgresDriver
import Foundation
import PasskeyBackendFluent
import Synchronization
import Testing
import WebAuthnRP

@testable import PasskeyBackend

/// One contract for every store implementation: the same assertions on the memory stores,
/// Fluent on SQLite (a temporary file), Fluent on PostgreSQL and the PostgresNIO stores (on a
/// cluster the suite starts itself). Each test gets fresh, migrated stores.
@Suite(.postgresCluster) struct StoreContractTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    /// Runs `body` on fresh stores of `kind`, and removes them afterwards.
    static func with(_ kind: StoreKind, _ body: (PasskeyStores) async throws -> Void) async throws {
        let (stores, close) = try await kind.make()
        do {
            try await body(stores)
        } catch {
            await close()
            throw error
        }
        await close()
    }

    static func bytes(_ byte: UInt8, _ count: Int = 16) -> [UInt8] { Array(repeating: byte, count: count) }

    static func record(_ id: UInt8, user: [UInt8], signCount: UInt32 = 0) -> CredentialRecord {
        CredentialRecord(
            id: bytes(id), publicKey: [0xA5, 0x01, 0x02, 0x03, 0x26], signCount: signCount, userHandle: user,
            backupEligible: true, transports: ["internal"])
    }

    static func session(_ byte: UInt8, at time: Date = now) -> PendingSession {
        PendingSession(id: bytes(byte, 32), signedInAt: time, expiresAt: time.addingTimeInterval(3600))
    }

    static func family(_ id: String, token: UInt8, keyId: AppKey? = nil) -> PendingTokenFamily {
        PendingTokenFamily(
            id: id, authTime: now, audience: "aud", refreshTokenHash: bytes(token, 32),
            refreshTokenExpiresAt: now.addingTimeInterval(3600), appKey: keyId)
    }

    /// An account `name` with one passkey (`id`), signed in by `signIn`.
    static func account(
        _ stores: PasskeyStores, _ name: String, handle: UInt8, id: UInt8, signIn: PendingSignIn? = nil
    ) async throws {
        let outcome = try await stores.credentials.create(
            record(id, user: bytes(handle)), newAccount: try Username(name), cap: 10, starting: signIn)
        #expect(outcome == .created)
    }

    static func change(_ id: UInt8, user: UInt8, from expected: UInt32, to count: UInt32) -> CredentialUpdate {
        var updated = record(id, user: bytes(user), signCount: count)
        updated.backupState = true
        return CredentialUpdate(expectedSignCount: expected, record: updated)
    }

    // MARK: Migrations

    /// Two nodes that start at once on one PostgreSQL database both come up: Fluent does not
    /// serialize them, so the one that loses the race for a table tries its batch again.
    @Test func twoFluentNodesMigratingAtOnceBothStart() async throws {
        let cluster = try StoreKind.cluster()
        let name = try await cluster.createDatabase()
        let nodes = (0..<2).map { _ in
            let databases = StoreKind.databases()
            let configuration = SQLPostgresConfiguration(
                hostname: "127.0.0.1", port: cluster.port, username: PostgresCluster.user, password: nil, database: name,
                tls: .disable)
            databases.use(.postgres(configuration: configuration), as: .psql)
            return (databases, PasskeyStores.fluent(databases, logger: StoreKind.logger))
        }
        let (one, two) = (nodes[0].1, nodes[1].1)
        async let first: Void = Self.migrate(one)
        async let second: Void = Self.migrate(two)
        try await first
        try await second
        try await Self.account(nodes[0].1, "nia", handle: 1, id: 10)
        #expect(try await nodes[1].1.accounts.username(userHandle: Self.bytes(1)) == "nia")
        for (databases, _) in nodes { await databases.shutdownAsync() }
    }

    static func migrate(_ stores: PasskeyStores) async throws {
        let migrate = try #require(stores.migrate)
        try await migrate()
    }

    // MARK: Accounts and credentials

    @Test(arguments: StoreKind.allCases)
    func accountsAndCredentialsWithTheirRefusals(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            let alice = Self.bytes(1)
            let created = try await stores.credentials.create(
                Self.record(10, user: alice), newAccount: try Username("Alice"), cap: 2, starting: .session(Self.session(1)))
            #expect(created == .created)
            #expect(try await stores.accounts.userHandle(username: try Username("alice")) == alice)
            #expect(try await stores.accounts.username(userHandle: alice) == "Alice")
            let lookup = try await stores.accounts.loginLookup(username: try Username("ALICE"))
            #expect(lookup?.userHandle == alice && lookup?.username == "Alice")
            // A store that reads the credentials in the same round trip names them; nil leaves them to the library.
            if let allowed = lookup?.allowCredentials {
                #expect(allowed == [PublicKeyCredentialDescriptorJSON(id: Base64URLBytes(Self.bytes(10)), transports: [.internal])])
            }
            #expect(try await stores.accounts.loginLookup(username: try Username("nobody")) == nil)
            let stored = try #require(try await stores.credentials.credential(id: Self.bytes(10)))
            #expect(stored.userHandle == alice && stored.signCount == 0 && stored.backupEligible && stored.transports == ["internal"])
            #expect(try await stores.sessions.session(id: Self.bytes(1, 32), now: Self.now)?.credentialId == Self.bytes(10))

            // The name is taken (compared folded): nothing of the second sign-up is stored.
            let taken = try await stores.credentials.create(
                Self.record(20, user: Self.bytes(2)), newAccount: try Username("ALICE"), cap: 2, starting: nil)
            #expect(taken == .usernameTaken)
            #expect(try await stores.credentials.credential(id: Self.bytes(20)) == nil)
            #expect(try await stores.accounts.username(userHandle: Self.bytes(2)) == nil)

            // A second passkey, then the cap; a credential id registered already; a gone account.
            #expect(try await stores.credentials.create(Self.record(11, user: alice), newAccount: nil, cap: 2, starting: nil) == .created)
            #expect(
                try await stores.credentials.create(Self.record(12, user: alice), newAccount: nil, cap: 2, starting: nil) == .capReached)
            #expect(
                try await stores.credentials.create(Self.record(11, user: alice), newAccount: nil, cap: 5, starting: nil)
                    == .duplicateCredential)
            #expect(
                try await stores.credentials.create(Self.record(13, user: Self.bytes(3)), newAccount: nil, cap: 5, starting: nil)
                    == .accountGone)
            #expect(try await stores.credentials.count(userHandle: alice) == 2)
            #expect(Set(try await stores.credentials.credentials(userHandle: alice).map(\.id)) == [Self.bytes(10), Self.bytes(11)])
            // The library's own insert-if-absent.
            #expect(try await stores.credentials.create(Self.record(11, user: alice)) == false)
        }
    }

    // MARK: The counter's compare and swap

    @Test(arguments: StoreKind.allCases)
    func theCounterMovesOnlyFromTheCounterALoginWasVerifiedAgainst(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "bob", handle: 1, id: 10)
            #expect(try await stores.credentials.update(Self.change(10, user: 1, from: 0, to: 5)))
            // A stale update matches nothing.
            #expect(try await stores.credentials.update(Self.change(10, user: 1, from: 0, to: 6)) == false)
            let stored = try #require(try await stores.credentials.credential(id: Self.bytes(10)))
            #expect(stored.signCount == 5 && stored.backupState)
            // A stale login starts no session; a current one does.
            #expect(
                try await stores.credentials.update(Self.change(10, user: 1, from: 4, to: 7), starting: .session(Self.session(2)))
                    == false)
            #expect(try await stores.sessions.session(id: Self.bytes(2, 32), now: Self.now) == nil)
            #expect(try await stores.credentials.update(Self.change(10, user: 1, from: 5, to: 7), starting: .session(Self.session(3))))
            #expect(try await stores.sessions.session(id: Self.bytes(3, 32), now: Self.now)?.userHandle == Self.bytes(1))
            // A gone credential matches nothing either.
            #expect(try await stores.credentials.update(Self.change(99, user: 1, from: 0, to: 1)) == false)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func ofTwoConcurrentLoginsOfOnePasskeyExactlyOneWins(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "carol", handle: 1, id: 10)
            for round in UInt32(0)..<4 {
                let credentials = stores.credentials
                async let first = credentials.update(
                    Self.change(10, user: 1, from: round, to: round + 1),
                    starting: .tokenFamily(Self.family("a\(round)", token: UInt8(2 * round + 1))))
                async let second = credentials.update(
                    Self.change(10, user: 1, from: round, to: round + 1),
                    starting: .tokenFamily(Self.family("b\(round)", token: UInt8(2 * round + 2))))
                let wins = try await [first, second]
                #expect(wins.filter { $0 }.count == 1)
                // The loser's token family was never written.
                let alive = [
                    try await stores.refreshTokens.family(id: "a\(round)", now: Self.now),
                    try await stores.refreshTokens.family(id: "b\(round)", now: Self.now),
                ]
                #expect(alive.compactMap { $0 }.count == 1)
            }
            #expect(try await stores.credentials.credential(id: Self.bytes(10))?.signCount == 4)
        }
    }

    // MARK: One transaction per ceremony

    /// A sign-in whose insert fails (its id is taken) rolls the whole write back: a login's
    /// counter does not move, a registration leaves no account or credential.
    @Test(arguments: StoreKind.transactional)
    func aFailingSignInLeavesNoCredentialOrCounterChange(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "dave", handle: 1, id: 10, signIn: .session(Self.session(7)))
            try await Self.account(stores, "dora", handle: 2, id: 20, signIn: .tokenFamily(Self.family("f", token: 7)))
            await #expect(throws: WebAuthnError.self) {
                try await stores.credentials.update(Self.change(10, user: 1, from: 0, to: 1), starting: .session(Self.session(7)))
            }
            await #expect(throws: WebAuthnError.self) {
                try await stores.credentials.update(
                    Self.change(10, user: 1, from: 0, to: 1), starting: .tokenFamily(Self.family("f", token: 8)))
            }
            #expect(try await stores.credentials.credential(id: Self.bytes(10))?.signCount == 0)
            await #expect(throws: WebAuthnError.self) {
                try await stores.credentials.create(
                    Self.record(30, user: Self.bytes(3)), newAccount: try Username("erin"), cap: 10, starting: .session(Self.session(7)))
            }
            #expect(try await stores.accounts.userHandle(username: try Username("erin")) == nil)
            #expect(try await stores.credentials.credential(id: Self.bytes(30)) == nil)
            // Nothing was left half-written: the same login and sign-up succeed afterwards.
            #expect(try await stores.credentials.update(Self.change(10, user: 1, from: 0, to: 1), starting: .session(Self.session(8))))
            try await Self.account(stores, "erin", handle: 3, id: 30, signIn: .session(Self.session(9)))
        }
    }

    // MARK: Single use

    static func issued(_ byte: UInt8) throws -> IssuedChallenge {
        let json = """
            {"v":2,"challenge":"\(Base64URLBytes(bytes(byte, 32)).base64URL)","kind":"authentication","rpId":"example.org",
             "expiresAt":\(now.addingTimeInterval(300).timeIntervalSince1970)}
            """
        return try JSONDecoder().decode(IssuedChallenge.self, from: Data(json.utf8))
    }

    @Test(arguments: StoreKind.allCases)
    func challengesAndSealedMarksAreSingleUse(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await stores.challenges.issue(try Self.issued(1), now: Self.now)
            #expect(try await stores.challenges.consume(Self.bytes(1, 32)) == (try Self.issued(1)))
            #expect(try await stores.challenges.consume(Self.bytes(1, 32)) == nil)
            #expect(try await stores.challenges.consume(Self.bytes(9, 32)) == nil)
            // Two nodes consuming one challenge at once: one gets it.
            try await stores.challenges.issue(try Self.issued(2), now: Self.now)
            let challenges = stores.challenges
            async let one = challenges.consume(Self.bytes(2, 32))
            async let two = challenges.consume(Self.bytes(2, 32))
            #expect(try await [one, two].compactMap { $0 }.count == 1)

            let expires = Self.now.addingTimeInterval(300)
            #expect(try await stores.sealedReplay.markUsed(Self.bytes(3, 32), expiresAt: expires, now: Self.now))
            #expect(try await stores.sealedReplay.markUsed(Self.bytes(3, 32), expiresAt: expires, now: Self.now) == false)
            let replay = stores.sealedReplay
            async let a = replay.markUsed(Self.bytes(4, 32), expiresAt: expires, now: Self.now)
            async let b = replay.markUsed(Self.bytes(4, 32), expiresAt: expires, now: Self.now)
            async let c = replay.markUsed(Self.bytes(4, 32), expiresAt: expires, now: Self.now)
            #expect(try await [a, b, c].filter { $0 }.count == 1)
        }
    }

    // MARK: Refresh tokens

    /// Rotates `token` into `next` at `at`; `issued` counts the access tokens signed.
    static func rotate(
        _ stores: PasskeyStores, _ token: UInt8, into next: UInt8, at time: Date = now, audience: String = "aud",
        keyId: AppKey? = nil, reuse: TimeInterval = 0, issued: SignedCount? = nil
    ) async throws -> RefreshOutcome {
        try await stores.refreshTokens.rotate(
            tokenHash: bytes(token, 32), newHash: bytes(next, 32), newExpiresAt: time.addingTimeInterval(3600),
            audience: audience, appKey: keyId, reuseInterval: reuse, now: time,
            issue: { _ in issued?.count.withLock { $0 += 1 } })
    }

    /// How many access tokens a rotation's `issue` signed.
    final class SignedCount: Sendable { let count = Mutex(0) }

    static func isRotated(_ outcome: RefreshOutcome, _ family: String) -> Bool {
        if case .rotated(let rotated) = outcome { return rotated.id == family && rotated.audience == "aud" }
        return false
    }

    @Test(arguments: StoreKind.allCases)
    func refreshRotatesOnceAndAReuseRevokesTheFamily(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "fay", handle: 1, id: 10, signIn: .tokenFamily(Self.family("f", token: 1)))
            let issued = SignedCount()
            #expect(Self.isRotated(try await Self.rotate(stores, 1, into: 2, issued: issued), "f"))
            #expect(issued.count.withLock { $0 } == 1)
            #expect(try await stores.refreshTokens.isStored(tokenHash: Self.bytes(2, 32)))
            // Presented again: someone holds a copy; the family ends, its newest token with it.
            #expect(try await Self.rotate(stores, 1, into: 3, issued: issued) == .reused)
            #expect(try await stores.refreshTokens.family(id: "f", now: Self.now) == nil)
            #expect(try await Self.rotate(stores, 2, into: 4, issued: issued) == .invalid)
            #expect(issued.count.withLock { $0 } == 1)
            #expect(try await stores.refreshTokens.isStored(tokenHash: Self.bytes(3, 32)) == false)
            #expect(try await Self.rotate(stores, 99, into: 5) == .invalid)

            // A failure while signing spends nothing; another audience and an expired token refresh nothing.
            try await stores.refreshTokens.create(
                family: TokenFamily(id: "g", userHandle: Self.bytes(1), credentialId: Self.bytes(10), authTime: Self.now, audience: "aud"),
                tokenHash: Self.bytes(10, 32), expiresAt: Self.now.addingTimeInterval(60), now: Self.now)
            // (The error may come back as the store's own failure: the transaction rolled back either way.)
            struct SigningFailed: Error {}
            await #expect(throws: (any Error).self) {
                try await stores.refreshTokens.rotate(
                    tokenHash: Self.bytes(10, 32), newHash: Self.bytes(11, 32), newExpiresAt: Self.now.addingTimeInterval(3600),
                    audience: "aud", appKey: nil, reuseInterval: 0, now: Self.now, issue: { _ in throw SigningFailed() })
            }
            #expect(try await stores.refreshTokens.isStored(tokenHash: Self.bytes(11, 32)) == false)
            #expect(try await Self.rotate(stores, 10, into: 12, audience: "other") == .invalid)
            #expect(try await Self.rotate(stores, 10, into: 13, at: Self.now.addingTimeInterval(120)) == .invalid)
            #expect(Self.isRotated(try await Self.rotate(stores, 10, into: 14), "g"))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func ofTwoConcurrentRefreshesOfOneTokenOneRotatesAndTheOtherRevokes(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "gina", handle: 1, id: 10, signIn: .tokenFamily(Self.family("f", token: 1)))
            async let one = Self.rotate(stores, 1, into: 2)
            async let two = Self.rotate(stores, 1, into: 3)
            let outcomes = try await [one, two]
            #expect(outcomes.filter { Self.isRotated($0, "f") }.count == 1)
            #expect(outcomes.filter { $0 == .reused }.count == 1)
            #expect(try await stores.refreshTokens.family(id: "f", now: Self.now) == nil)
        }
    }

    /// Within the reuse interval a spent token rotates again (both successors stay usable);
    /// after it, presenting it revokes the family. The interval counts from the first use.
    @Test(arguments: StoreKind.allCases)
    func aReuseWithinTheIntervalRotatesAgain(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "hana", handle: 1, id: 10, signIn: .tokenFamily(Self.family("f", token: 1)))
            #expect(Self.isRotated(try await Self.rotate(stores, 1, into: 2, reuse: 60), "f"))
            #expect(Self.isRotated(try await Self.rotate(stores, 1, into: 3, at: Self.now.addingTimeInterval(30), reuse: 60), "f"))
            #expect(Self.isRotated(try await Self.rotate(stores, 2, into: 4, reuse: 60), "f"))
            #expect(Self.isRotated(try await Self.rotate(stores, 3, into: 5, reuse: 60), "f"))
            #expect(try await Self.rotate(stores, 1, into: 6, at: Self.now.addingTimeInterval(61), reuse: 60) == .reused)
            #expect(try await stores.refreshTokens.family(id: "f", now: Self.now) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aFamilyBoundToAnAppAttestKeyRefreshesOnlyWithIt(_ kind: StoreKind) async throws {
        try await familyBoundToOneKey(
            kind, .appAttest(Self.bytes(5, 32)), others: [.appAttest(Self.bytes(6, 32)), .android(Self.bytes(5, 32))])
    }

    @Test(arguments: StoreKind.allCases)
    func aFamilyBoundToAnAndroidKeyRefreshesOnlyWithIt(_ kind: StoreKind) async throws {
        try await familyBoundToOneKey(
            kind, .android(Self.bytes(5, 32)), others: [.android(Self.bytes(6, 32)), .appAttest(Self.bytes(5, 32))])
    }

    /// A family bound to `key` refreshes with no other key (another key of its platform, the
    /// same bytes as the other platform's key id, none), and with `key`, which it keeps.
    func familyBoundToOneKey(_ kind: StoreKind, _ key: AppKey, others: [AppKey]) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "ida", handle: 1, id: 10, signIn: .tokenFamily(Self.family("f", token: 1, keyId: key)))
            #expect(try await Self.rotate(stores, 1, into: 2) == .wrongKey)
            for (index, other) in others.enumerated() {
                #expect(try await Self.rotate(stores, 1, into: UInt8(3 + index), keyId: other) == .wrongKey)
            }
            let outcome = try await Self.rotate(stores, 1, into: 9, keyId: key)
            #expect(Self.isRotated(outcome, "f"))
            if case .rotated(let family) = outcome { #expect(family.appKey == key) }
            #expect(try await stores.refreshTokens.family(id: "f", now: Self.now)?.appKey == key)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func revocationByTokenFamilyAndUser(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            try await Self.account(stores, "jo", handle: 1, id: 10, signIn: .tokenFamily(Self.family("f", token: 1)))
            for (family, token) in [("g", UInt8(2)), ("h", 3), ("i", 4)] {
                try await stores.refreshTokens.create(
                    family: TokenFamily(id: family, userHandle: Self.bytes(1), credentialId: Self.bytes(10), authTime: Self.now),
                    tokenHash: Self.bytes(token, 32), expiresAt: Self.now.addingTimeInterval(3600), now: Self.now)
            }
            #expect(try await stores.refreshTokens.revoke(tokenHash: Self.bytes(1, 32), now: Self.now))
            #expect(try await stores.refreshTokens.revoke(tokenHash: Self.bytes(1, 32), now: Self.now) == false)
            #expect(try await stores.refreshTokens.revoke(tokenHash: Self.bytes(99, 32), now: Self.now) == false)
            #expect(try await stores.refreshTokens.revoke(familyID: "g", now: Self.now))
            #expect(try await stores.refreshTokens.revoke(familyID: "g", now: Self.now) == false)
            #expect(try await stores.refreshTokens.family(id: "h", now: Self.now)?.userHandle == Self.bytes(1))
            #expect(try await stores.refreshTokens.revokeAll(userHandle: Self.bytes(1), now: Self.now) == 2)
            #expect(try await stores.refreshTokens.family(id: "h", now: Self.now) == nil)
            #expect(try await Self.rotate(stores, 4, into: 5) == .invalid)
        }
    }

    // MARK: Signing keys

    static func key(_ kid: String) -> StoredSigningKey { StoredSigningKey(kid: kid, privateKey: bytes(7, 32), createdAt: now) }

    @Test(arguments: StoreKind.allCases)
    func signingKeysRotateByAgeAndNodesAddOneBetweenThem(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            let keys = stores.signingKeys
            // Two nodes find no key at once: one key is added between them.
            async let one = keys.keys(rotateAfter: 3600, now: Self.now, usable: { _ in true }, make: { Self.key("one") })
            async let two = keys.keys(rotateAfter: 3600, now: Self.now, usable: { _ in true }, make: { Self.key("two") })
            let (first, second) = try await (one, two)
            #expect(first.map(\.kid) == second.map(\.kid) && first.count == 1)
            let kid = try #require(first.first?.kid)
            #expect(first.first?.privateKey == Self.bytes(7, 32))
            let later = Self.now.addingTimeInterval(4000)
            #expect(
                try await keys.keys(rotateAfter: 3600, now: Self.now.addingTimeInterval(10), usable: { _ in true }, make: { Self.key("x") })
                    .map(\.kid) == [kid])
            let rotated = try await keys.keys(
                rotateAfter: 3600, now: later, usable: { _ in true },
                make: { StoredSigningKey(kid: "three", privateKey: Self.bytes(8, 32), createdAt: later) })
            #expect(rotated.map(\.kid) == ["three", kid])
            // A key that does not open under this node's SESSION_KEY is passed over.
            #expect(
                try await keys.keys(rotateAfter: 3600, now: later, usable: { $0.kid != "three" }, make: { Self.key("y") })
                    .map(\.kid).first == "y")
        }
    }

    // MARK: App Attest and Android keys

    @Test(arguments: StoreKind.allCases)
    func appAttestKeysAreCreatedOnceAndTheirCounterMovesByCompareAndSwap(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            let keys = stores.appAttestKeys
            try await Self.keyStoreContract(
                AttestedAppKey(
                    keyId: Self.bytes(1, 32), publicKey: Self.bytes(4, 65), signCount: 0, receipt: [1, 2, 3], environment: .development),
                create: { try await keys.create($0) }, find: { try await keys.key(id: $0) }, counter: \.signCount,
                update: { try await keys.updateSignCount(keyId: $0, from: $1, to: $2) })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func androidKeysAreCreatedOnceAndTheirCounterMovesByCompareAndSwap(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            let keys = stores.androidAppKeys
            try await Self.keyStoreContract(
                AttestedAndroidKey(keyId: Self.bytes(1, 32), publicKey: Self.bytes(4, 65), counter: 0, packageName: "org.example.app"),
                create: { try await keys.create($0) }, find: { try await keys.key(id: $0) }, counter: \.counter,
                update: { try await keys.updateCounter(keyId: $0, from: $1, to: $2) })
        }
    }

    /// What both platforms' key stores keep, for `key` (id `bytes(1, 32)`, counter 0): created
    /// once, found by id, and its counter moved only by compare-and-swap, one of two racing
    /// updates from one value winning; an unknown key is neither found nor updated.
    static func keyStoreContract<Key: Equatable & Sendable>(
        _ key: Key, create: (Key) async throws -> Bool, find: ([UInt8]) async throws -> Key?, counter: (Key) -> UInt32,
        update: @escaping @Sendable ([UInt8], UInt32, UInt32) async throws -> Bool
    ) async throws {
        #expect(try await create(key))
        #expect(try await create(key) == false)
        #expect(try await find(bytes(1, 32)) == key)
        #expect(try await find(bytes(9, 32)) == nil)
        #expect(try await update(bytes(1, 32), 0, 3))
        #expect(try await update(bytes(1, 32), 0, 4) == false)
        async let one = update(bytes(1, 32), 3, 5)
        async let two = update(bytes(1, 32), 3, 6)
        #expect(try await [one, two].filter { $0 }.count == 1)
        let stored = try await find(bytes(1, 32)).map(counter)
        #expect(stored == 5 || stored == 6)
        #expect(try await update(bytes(9, 32), 0, 1) == false)
    }

    // MARK: Names, pages, sessions and deletes

    @Test(arguments: StoreKind.allCases)
    func namesPagesSessionsAndDeletes(_ kind: StoreKind) async throws {
        try await Self.with(kind) { stores in
            let kim = Self.bytes(1)
            try await Self.account(stores, "kim", handle: 1, id: 12, signIn: .session(Self.session(1)))
            for id: UInt8 in [10, 11] {
                #expect(
                    try await stores.credentials.create(Self.record(id, user: kim), newAccount: nil, cap: 10, starting: nil) == .created)
            }
            try await Self.account(stores, "lee", handle: 2, id: 20)
            #expect(try await stores.credentials.rename(id: Self.bytes(10), userHandle: kim, name: try PasskeyName("Laptop")))
            #expect(
                try await stores.credentials.rename(id: Self.bytes(10), userHandle: Self.bytes(2), name: try PasskeyName("Mine")) == false)
            let first = try await stores.credentials.page(userHandle: kim, after: nil, limit: 2)
            #expect(first.map(\.record.id) == [Self.bytes(10), Self.bytes(11)])
            #expect(first.map(\.name) == ["Laptop", nil])
            let rest = try await stores.credentials.page(userHandle: kim, after: Self.bytes(11), limit: 2)
            #expect(rest.map(\.record.id) == [Self.bytes(12)])
            #expect(try await stores.credentials.page(userHandle: kim, after: Self.bytes(12), limit: 2).isEmpty)
            #expect(try await stores.credentials.rename(id: Self.bytes(10), userHandle: kim, name: nil))
            #expect(try await stores.credentials.page(userHandle: kim, after: nil, limit: 1).first?.name == nil)

            // Sessions: expiry, sign-out, sign-out everywhere.
            try await stores.sessions.create(
                Session(
                    id: Self.bytes(2, 32), userHandle: kim, credentialId: Self.bytes(10), signedInAt: Self.now,
                    expiresAt: Self.now.addingTimeInterval(60)))
            #expect(try await stores.sessions.session(id: Self.bytes(2, 32), now: Self.now.addingTimeInterval(61)) == nil)
            #expect(try await stores.sessions.session(id: Self.bytes(2, 32), now: Self.now)?.credentialId == Self.bytes(10))
            try await stores.sessions.delete(id: Self.bytes(2, 32))
            #expect(try await stores.sessions.session(id: Self.bytes(2, 32), now: Self.now) == nil)

            // Deleting a passkey ends its sessions and token families; another user's is not theirs to delete.
            try await stores.refreshTokens.create(
                family: TokenFamily(id: "f", userHandle: kim, credentialId: Self.bytes(12), authTime: Self.now),
                tokenHash: Self.bytes(3, 32), expiresAt: Self.now.addingTimeInterval(3600), now: Self.now)
            #expect(try await stores.credentials.delete(id: Self.bytes(12), userHandle: Self.bytes(2)) == false)
            #expect(try await stores.credentials.delete(id: Self.bytes(12), userHandle: kim))
            try await stores.sessions.credentialDeleted(Self.bytes(12))
            try await stores.refreshTokens.credentialDeleted(Self.bytes(12))
            #expect(try await stores.credentials.credential(id: Self.bytes(12)) == nil)
            #expect(try await stores.sessions.session(id: Self.bytes(1, 32), now: Self.now) == nil)
            #expect(try await stores.refreshTokens.family(id: "f", now: Self.now) == nil)
            #expect(try await stores.credentials.count(userHandle: kim) == 2)
            #expect(try await stores.credentials.delete(id: Self.bytes(12), userHandle: kim) == false)
            for byte: UInt8 in [4, 5] {
                try await stores.sessions.create(
                    Session(
                        id: Self.bytes(byte, 32), userHandle: kim, credentialId: Self.bytes(10), signedInAt: Self.now,
                        expiresAt: Self.now.addingTimeInterval(60)))
            }
            #expect(try await stores.sessions.deleteAll(userHandle: kim) == 2)
            #expect(try await stores.sessions.deleteAll(userHandle: kim) == 0)
        }
    }
}
