import Foundation
import HTTPTypes
import Synchronization
import WebAuthnRP

/// A username as the server keeps it. `display` is what the user typed, trimmed and in NFC
/// (so the same name typed on two keyboards is one name); `key` is what names compare by, the
/// display name case-folded and in NFC again, unique in the store ("Alice" and "alice" are one
/// account). Length is counted in Unicode code points, as PostgreSQL's `char_length` counts
/// them in a UTF-8 database, so a name the server accepts is one the database accepts.
struct Username: Sendable, Equatable {
    let display: String
    let key: String

    static let maxCodePoints = 64

    init(_ raw: String?) throws {
        let display = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        let scalars = display.unicodeScalars
        guard (1...Self.maxCodePoints).contains(scalars.count),
            scalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) })
        else {
            throw AppError(
                .badRequest, "A username is 1 to \(Self.maxCodePoints) characters (Unicode code points), without control characters.")
        }
        self.display = display
        key = display.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }
}

/// The credential store the server's one service writes through: the library's "store the new
/// credential" step becomes one transaction that also creates the account (for a new one) and
/// keeps the account under its passkey cap. The registration in progress (its new account and
/// the answers for a full account or a taken name) rides in a task-local set around its finish,
/// so the shared service, with its verification cache, serves every request. Lookups pass
/// through; a login's counter update, told about the login the same way (``login``), also
/// starts its session or token family when the store can do both in one statement.
struct RegistrationWriter: CredentialStore {
    /// What one registration's store step needs to know.
    struct Registration: Sendable {
        let newAccount: Username?
        let cap: Int
    }
    /// The registration whose finish is running in this task.
    @TaskLocal static var current: Registration?

    /// A login whose sign-in (a session or a token family) its counter update may start in the
    /// same statement (``PasskeyCredentialStore/update(_:starting:)``), and whether it did.
    final class Login: Sendable {
        let signIn: PendingSignIn
        let started = Mutex(false)
        init(_ signIn: PendingSignIn) { self.signIn = signIn }
        var wasStarted: Bool { started.withLock { $0 } }
    }
    /// The login whose finish is running in this task.
    @TaskLocal static var login: Login?

    let base: any PasskeyCredentialStore

    func create(_ record: CredentialRecord) async throws -> Bool {
        // Every registration sets its context; without one, only the plain insert.
        guard let registration = Self.current else { return try await base.create(record) }
        switch try await base.create(record, newAccount: registration.newAccount, cap: registration.cap) {
        case .created: return true
        case .duplicateCredential: return false  // the library refuses it as credentialExists
        case .usernameTaken: throw AppError.usernameTaken
        case .capReached: throw AppError.capReached(registration.cap)
        case .accountGone: throw AppError.unauthorized
        }
    }

    func credential(id: [UInt8]) async throws -> CredentialRecord? { try await base.credential(id: id) }
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] { try await base.credentials(userHandle: userHandle) }
    func update(_ change: CredentialUpdate) async throws -> Bool {
        guard let login = Self.login else { return try await base.update(change) }
        let (updated, started) = try await base.update(change, starting: login.signIn)
        if started { login.started.withLock { $0 = true } }
        return updated
    }
}
