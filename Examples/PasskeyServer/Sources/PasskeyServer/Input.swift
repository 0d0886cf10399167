import Foundation
import HTTPTypes
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
              scalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw AppError(.badRequest, "A username is 1 to \(Self.maxCodePoints) characters (Unicode code points), without control characters.")
        }
        self.display = display
        key = display.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }
}

/// Refuses JSON with a duplicate member name in any object. It walks the structure only and
/// leaves the values to `JSONDecoder`; names compare as Swift strings after their escapes are
/// decoded (`"a"` and `"\u0061"` are one name), as in the library's reader.
enum DuplicateMemberCheck {
    struct Refused: Error { let offset: Int }

    static func check(_ bytes: [UInt8], maximumDepth: Int = 32) throws {
        var scanner = Scanner(bytes: bytes, maximumDepth: maximumDepth)
        try scanner.value(depth: 0)
        scanner.skipSpace()
        guard scanner.index == bytes.count else { throw Refused(offset: scanner.index) }
    }

    private struct Scanner {
        let bytes: [UInt8]
        let maximumDepth: Int
        var index = 0

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { throw Refused(offset: index) }
            index += 1
        }

        mutating func value(depth: Int) throws {
            skipSpace()
            guard index < bytes.count, depth < maximumDepth else { throw Refused(offset: index) }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var names = Set<String>()
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
                while true {
                    skipSpace()
                    guard names.insert(try string()).inserted else { throw Refused(offset: index) }
                    try expect(UInt8(ascii: ":"))
                    try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.count else { throw Refused(offset: index) }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { return }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw Refused(offset: index - 1) }
                }
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
                while true {
                    try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.count else { throw Refused(offset: index) }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { return }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw Refused(offset: index - 1) }
                }
            case UInt8(ascii: "\""):
                _ = try string()
            default:
                // A number or literal: its characters up to the next delimiter (JSONDecoder checks them).
                let start = index
                while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
                guard index > start else { throw Refused(offset: index) }
            }
        }

        /// A string's decoded text; the index ends after its closing quote.
        mutating func string() throws -> String {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Refused(offset: index) }
            index += 1
            var units: [UInt16] = []
            var raw: [UInt8] = []
            func flushRaw() throws {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else { throw Refused(offset: index) }
                units.append(contentsOf: text.utf16)
                raw.removeAll()
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    try flushRaw()
                    return String(decoding: units, as: UTF16.self)
                case UInt8(ascii: "\\"):
                    try flushRaw()
                    guard index < bytes.count else { throw Refused(offset: index) }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                              let unit = UInt16(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
                            throw Refused(offset: index)
                        }
                        units.append(unit)
                        index += 4
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): units.append(UInt16(escape))
                    case UInt8(ascii: "b"): units.append(0x08)
                    case UInt8(ascii: "f"): units.append(0x0C)
                    case UInt8(ascii: "n"): units.append(0x0A)
                    case UInt8(ascii: "r"): units.append(0x0D)
                    case UInt8(ascii: "t"): units.append(0x09)
                    default: throw Refused(offset: index - 1)
                    }
                default:
                    guard byte >= 0x20 else { throw Refused(offset: index - 1) }
                    raw.append(byte)
                }
            }
            throw Refused(offset: index)
        }
    }
}

/// The credential store the server's one service writes through: the library's "store the new
/// credential" step becomes one transaction that also creates the account (for a new one) and
/// keeps the account under its passkey cap. The registration in progress (its new account and
/// the answers for a full account or a taken name) rides in a task-local set around its finish,
/// so the shared service, with its verification cache, serves every request. Lookups and
/// updates pass through.
struct RegistrationWriter: CredentialStore {
    /// What one registration's store step needs to know.
    struct Registration: Sendable {
        let newAccount: Username?
        let cap: Int
        let capReached: AppError
        let usernameTaken: AppError
    }
    /// The registration whose finish is running in this task.
    @TaskLocal static var current: Registration?

    let base: any PasskeyCredentialStore

    func create(_ record: CredentialRecord) async throws -> Bool {
        // Every registration sets its context; without one, only the plain insert.
        guard let registration = Self.current else { return try await base.create(record) }
        switch try await base.create(record, newAccount: registration.newAccount, cap: registration.cap) {
        case .created: return true
        case .duplicateCredential: return false   // the library refuses it as credentialExists
        case .usernameTaken: throw registration.usernameTaken
        case .capReached: throw registration.capReached
        case .accountGone: throw AppError.unauthorized
        }
    }

    func credential(id: [UInt8]) async throws -> CredentialRecord? { try await base.credential(id: id) }
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] { try await base.credentials(userHandle: userHandle) }
    func update(_ change: CredentialUpdate) async throws -> Bool { try await base.update(change) }
}
