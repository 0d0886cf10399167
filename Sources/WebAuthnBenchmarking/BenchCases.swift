import Foundation
import Synchronization
import WebAuthnCoding
import WebAuthnCrypto
import WebAuthnRP
import WebAuthnTestSupport

/// Every case, in the order they run.
public enum BenchCases {
    /// The case names, in the order they run.
    public static let names = [
        "limit.es256", "assertion.es256", "assertion.es256.prf",
        "limit.eddsa", "assertion.eddsa",
        "limit.rs256", "assertion.rs256",
        "concurrent.assertion.es256",
        "registration.none.es256", "registration.packed.es256",
        "cbor.attestation-object", "cbor.attestation-object.packed", "x509.certificate",
        "metadata.blob.verify-index", "metadata.lookup.aaguid",
        "ceremony.begin.sealed", "ceremony.open.sealed",
    ]

    /// The cases to run, grouped: a case with its yardstick (`limit.*` with `assertion.*`,
    /// and the concurrent case with the single-core one), in the order of ``names``.
    public static func groups(of selected: [String]) -> [[String]] {
        let together = [
            ["limit.es256", "assertion.es256", "assertion.es256.prf", "concurrent.assertion.es256"],
            ["limit.eddsa", "assertion.eddsa"],
            ["limit.rs256", "assertion.rs256"],
        ]
        var groups: [[String]] = []
        var placed = Set<String>()
        for name in selected where !placed.contains(name) {
            let group = (together.first { $0.contains(name) } ?? [name]).filter { selected.contains($0) }
            groups.append(group)
            placed.formUnion(group)
        }
        return groups
    }

    /// Makes a case; `minimumRound` enlarges its round (and pool) for `--iterations`.
    public static func make(_ name: String, minimumRound: Int = 0) throws -> any BenchCase {
        func pool(_ size: Int) -> Int { max(size, minimumRound) }
        switch name {
        case "limit.es256": return try LimitCase(.es256)
        case "limit.eddsa": return try LimitCase(.eddsa)
        case "limit.rs256": return try LimitCase(.rs256)
        case "assertion.es256": return try AssertionCase(name: name, key: .es256, limit: "limit.es256", poolSize: pool(1000))
        case "assertion.es256.prf":
            return try AssertionCase(name: name, key: .es256, limit: "assertion.es256", poolSize: pool(1000), prf: true)
        case "assertion.eddsa": return try AssertionCase(name: name, key: .edDSA, limit: "limit.eddsa", poolSize: pool(1000))
        case "assertion.rs256": return try AssertionCase(name: name, key: .rs256, limit: "limit.rs256", poolSize: pool(250))
        case "concurrent.assertion.es256": return try ConcurrentAssertionCase(poolSize: pool(1000))
        case "registration.none.es256": return try RegistrationCase(name: name, packed: false, poolSize: pool(1000))
        case "registration.packed.es256": return try RegistrationCase(name: name, packed: true, poolSize: pool(500))
        case "cbor.attestation-object": return try CBORCase(name: name, packed: false)
        case "cbor.attestation-object.packed": return try CBORCase(name: name, packed: true)
        case "x509.certificate": return try CertificateParseCase()
        case "metadata.blob.verify-index": return try MetadataBLOBCase()
        case "metadata.lookup.aaguid": return try MetadataLookupCase()
        case "ceremony.begin.sealed": return try SealedBeginCase()
        case "ceremony.open.sealed": return try SealedOpenCase()
        default: throw BenchFailure("unknown case \(name)")
        }
    }

    /// The relying party every ceremony is made for.
    static let relyingParty = RelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])
    /// The time every ceremony is verified at; challenges expire an hour later.
    static let now = Date(timeIntervalSince1970: 1_735_689_600)
}

/// `limit.*`: libcrypto's verify with a prepared key, nothing of this library in the loop.
final class LimitCase: BenchCase {
    let name: String
    let operationsPerRound: Int
    let baseline: LibCryptoVerifyBaseline

    init(_ algorithm: LibCryptoVerifyBaseline.Algorithm) throws {
        name = "limit.\(algorithm.rawValue)"
        baseline = try LibCryptoVerifyBaseline(algorithm)
        operationsPerRound = algorithm == .rs256 ? 4000 : 2000
    }

    func run(operations: Int) async throws {
        guard baseline.run(iterations: operations) == operations else { throw BenchFailure("\(name): a verify failed") }
    }
}

/// A pool of complete assertions for one credential, each answering its own challenge.
///
/// Made once, outside any timed region (signing is the authenticator's cost, not the
/// relying party's). Before each round the credential's record is reset to signCount 0
/// and the round's challenges are issued again, so every timed operation finds an
/// outstanding challenge and a counter that increases, exactly as a live login would.
struct AssertionPool {
    let record: CredentialRecord
    let challenges: [IssuedChallenge]
    let bodies: [Data]

    /// - Parameter prf: ask for PRF evaluation (two inputs) and answer with both 32-byte results,
    ///   as a client does for a passkey that backs end-to-end encryption.
    init(key: TestAuthenticator.KeySpec, credentialId: [UInt8], size: Int, prf: Bool = false) throws {
        // Seeded: the same keys and signatures every run, so instruction counts repeat.
        var authenticator = try TestAuthenticator(
            key: key, credentialId: credentialId,
            seed: "webauthn-bench \(credentialId.first ?? 0)")
        record = authenticator.record()
        var challenges: [IssuedChallenge] = [], bodies: [Data] = []
        var requested: [String: JSONValue]?
        var options = TestAuthenticator.AuthenticationOptions()
        if prf {
            let inputs = AuthenticationExtensionInputs(prf: PRFInputs(eval: PRFValues(first: [1, 2, 3, 4], second: [5, 6, 7, 8])))
            requested = try inputs.validatedJSON(allowCredentials: [])
            let results: [String: JSONValue] = [
                "first": .string(Base64URL.encode(authenticator.prf([1, 2, 3, 4]))),
                "second": .string(Base64URL.encode(authenticator.prf([5, 6, 7, 8]))),
            ]
            options.extensions = TestAuthenticator.ExtensionOutputs(client: ["prf": .object(["results": .object(results)])])
        }
        for index in 0..<size {
            // 32 bytes: the credential id's first byte, the index, then random bytes.
            let challenge =
                [credentialId.first ?? 0] + withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
                + Digest.sha256.hash(withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)).prefix(27)
            challenges.append(
                IssuedChallenge(
                    challenge: challenge, kind: .authentication, rpId: "example.org",
                    extensions: requested, expiresAt: BenchCases.now.addingTimeInterval(3600)))
            let response = try authenticator.authenticate(challenge: challenge, options)
            bodies.append(try TestAuthenticator.json(response).jsonData())
        }
        self.challenges = challenges
        self.bodies = bodies
    }

    /// Untimed: resets the record and issues the first `count` challenges (withdrawing any
    /// a round that stopped early left outstanding).
    func prepare(_ service: RelyingPartyService, count: Int) async throws {
        guard count <= bodies.count else { throw BenchFailure("a round is larger than the pool") }
        // Removed and created again: an update never moves a stored counter backwards.
        guard let store = service.credentials as? InMemoryCredentialStore else { throw BenchFailure("the bench store is in memory") }
        store.remove(id: record.id)
        guard try await store.create(record) else { throw BenchFailure("the reset record was not stored") }
        for challenge in challenges { _ = try await service.challengeStore?.consume(challenge.challenge) }
        for challenge in challenges.prefix(count) { try await service.issue(challenge, now: BenchCases.now) }
    }

    /// Timed: finishes the first `count` logins from their JSON bodies, or fewer when
    /// `stop` is raised first; raises `stop` itself when it has done all `count`.
    /// - Returns: how many logins it finished.
    @discardableResult
    func run(_ service: RelyingPartyService, count: Int, stop: StopSignal? = nil) async throws -> Int {
        var done = 0
        for body in bodies.prefix(count) {
            if let stop, stop.isRaised { return done }
            _ = try await service.finishAuthentication(AuthenticationResponse(jsonData: body), now: BenchCases.now)
            done += 1
        }
        stop?.raise()
        return done
    }
}

/// Raised by the first worker of a concurrent round to finish its share.
final class StopSignal: Sendable {
    private let raised = Mutex(false)
    var isRaised: Bool { raised.withLock { $0 } }
    func raise() { raised.withLock { $0 = true } }
}

/// `assertion.*`: one login from the AuthenticationResponseJSON bytes to the stored record.
final class AssertionCase: BenchCase {
    let name: String
    let limit: String?
    let operationsPerRound: Int
    let service: RelyingPartyService
    let pool: AssertionPool

    init(name: String, key: TestAuthenticator.KeySpec, limit: String, poolSize: Int, prf: Bool = false) throws {
        self.name = name
        self.limit = limit
        operationsPerRound = poolSize
        pool = try AssertionPool(key: key, credentialId: Array(0..<32), size: poolSize, prf: prf)
        service = RelyingPartyService(
            relyingParty: BenchCases.relyingParty,
            credentials: InMemoryCredentialStore(records: [pool.record]))
    }

    func prepare(operations: Int) async throws { try await pool.prepare(service, count: operations) }
    func run(operations: Int) async throws { try await pool.run(service, count: operations) }
}

/// `concurrent.assertion.es256`: one worker per core, each logging in its own credential,
/// all against one shared service (one challenge store, one credential store, one key cache).
final class ConcurrentAssertionCase: BenchCase {
    let name = "concurrent.assertion.es256"
    let limit: String? = "assertion.es256"
    let operationsPerRound: Int
    let service: RelyingPartyService
    let pools: [AssertionPool]

    init(poolSize: Int) throws {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        pools = try (0..<workers).map { worker in
            try AssertionPool(key: .es256, credentialId: [UInt8(truncatingIfNeeded: worker)] + Array(1..<32), size: poolSize)
        }
        operationsPerRound = poolSize * workers
        service = RelyingPartyService(
            relyingParty: BenchCases.relyingParty,
            credentials: InMemoryCredentialStore(records: pools.map(\.record)))
    }

    func prepare(operations: Int) async throws {
        let share = (operations + pools.count - 1) / pools.count
        for pool in pools { try await pool.prepare(service, count: share) }
    }

    /// `--iterations`: every worker finishes its whole share.
    func run(operations: Int) async throws {
        let share = (operations + pools.count - 1) / pools.count
        let service = self.service
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pool in pools {
                group.addTask { try await pool.run(service, count: share) }
            }
            try await group.waitForAll()
        }
    }

    /// A timed round ends when the first worker has finished its share, and counts what
    /// every worker finished by then: the cores of a shared VM do not run at one speed, and
    /// waiting for the slowest would measure it alone, twice, instead of both cores.
    func runRound(operations: Int) async throws -> Int {
        let share = (operations + pools.count - 1) / pools.count
        let service = self.service
        let stop = StopSignal()
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for pool in pools {
                group.addTask { try await pool.run(service, count: share, stop: stop) }
            }
            return try await group.reduce(0, +)
        }
    }
}

/// `registration.*`: one registration from the RegistrationResponseJSON bytes to the stored record.
/// Each operation registers a new credential id; each round starts with an empty credential store.
final class RegistrationCase: BenchCase {
    let name: String
    let operationsPerRound: Int
    var service: RelyingPartyService
    let policy: VerificationPolicy
    /// Each registration's challenge, with the body that answers it.
    let pool: [(challenge: IssuedChallenge, body: Data)]

    init(name: String, packed: Bool, poolSize: Int) throws {
        self.name = name
        operationsPerRound = poolSize
        var authenticator = try TestAuthenticator(key: .es256, seed: "webauthn-bench registration")
        var pool: [(challenge: IssuedChallenge, body: Data)] = []
        var anchors: [Certificate] = []
        var options = TestAuthenticator.RegistrationOptions()
        if packed {
            // packed with x5c: a leaf issued by a root the policy trusts, so the chain is
            // validated to a trust anchor on every registration.
            let ca = try TestAuthenticator.CA.make(seed: "webauthn-bench root")
            anchors = [ca.certificate]
            options.attestation = .packed(ca: ca)
        }
        for index in 0..<poolSize {
            let counter = withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
            authenticator.credentialId = counter + Array(4..<32)
            let challenge = counter + Digest.sha256.hash(counter).prefix(28)
            let issued = IssuedChallenge(
                challenge: challenge, kind: .registration, rpId: "example.org",
                userHandle: authenticator.userHandle, offeredAlgorithms: [.es256],
                attestation: packed ? .direct : nil,
                expiresAt: BenchCases.now.addingTimeInterval(3600))
            let response = try authenticator.register(challenge: challenge, options)
            pool.append((issued, try TestAuthenticator.json(response).jsonData()))
        }
        self.pool = pool
        policy = VerificationPolicy(attestation: AttestationPolicy(source: FixedTrustAnchors(anchors)))
        service = RelyingPartyService(relyingParty: BenchCases.relyingParty, policy: policy)
    }

    func prepare(operations: Int) async throws {
        guard operations <= pool.count else { throw BenchFailure("a round is larger than the pool") }
        service = RelyingPartyService(relyingParty: BenchCases.relyingParty, policy: policy)
        for (challenge, _) in pool.prefix(operations) { try await service.issue(challenge, now: BenchCases.now) }
    }

    func run(operations: Int) async throws {
        let service = self.service
        for (_, body) in pool.prefix(operations) {
            _ = try await service.finishRegistration(RegistrationResponse(jsonData: body), now: BenchCases.now)
        }
    }
}

/// `cbor.attestation-object*`: decoding one attestation object's CBOR.
/// `x509.certificate`: `Certificate(derEncoded:)` on the 2-level packed attestation leaf the
/// test authenticator sends (P-256, basicConstraints and the FIDO AAGUID extension). The
/// ceremonies keep parsed certificates in a cache, so this is what a new certificate costs.
final class CertificateParseCase: BenchCase {
    let name = "x509.certificate"
    let operationsPerRound = 5_000
    let leaf: Certificate

    init() throws {
        let ca = try TestAuthenticator.CA.make(seed: "webauthn-bench root")
        let key = try PrivateKey.derive(.p256, seed: "webauthn-bench x509")
        leaf = try TestAuthenticator.packedLeaf(key: key, ca: ca, aaguid: TestAuthenticator.defaultAAGUID)
    }

    func run(operations: Int) async throws {
        let der = leaf.derBytes
        var total = 0
        for _ in 0..<operations { total &+= try Certificate(derEncoded: der).serialNumber.count }
        guard total == operations &* leaf.serialNumber.count else { throw BenchFailure("\(name): read the wrong serial") }
    }
}

final class CBORCase: BenchCase {
    let name: String
    let operationsPerRound = 20_000
    let bytes: [UInt8]

    init(name: String, packed: Bool) throws {
        self.name = name
        let authenticator = try TestAuthenticator(key: .es256, seed: "webauthn-bench cbor")
        var options = TestAuthenticator.RegistrationOptions()
        if packed { options.attestation = .packed(ca: try TestAuthenticator.CA.make(seed: "webauthn-bench root")) }
        bytes = try authenticator.register(challenge: Array(repeating: 7, count: 32), options).attestationObject
    }

    func run(operations: Int) async throws {
        var total = 0
        for _ in 0..<operations { total &+= try CBOR.decode(bytes[...]).encodedBytes.count }
        guard total == operations &* bytes.count else { throw BenchFailure("\(name): decoded the wrong size") }
    }
}
