/// A property a fuzz target checks that did not hold for one input.
///
/// The libFuzzer harnesses (`Fuzz/`) trap on it, so libFuzzer records the input as a
/// crash; the regression tests (`WebAuthnFuzzingTests`) report it as a failure.
public struct PropertyViolation: Error, Sendable, CustomStringConvertible {
    /// The fuzz target's name, for example `cbor`.
    public let target: String
    /// The property that broke, for example `re-encoding decodes to the same value`.
    public let property: String
    /// What was seen instead.
    public let detail: String

    /// `<target>: <property>: <detail>`.
    public var description: String { "\(target): \(property): \(detail)" }
}

/// One fuzz target: a pure function from hostile bytes to a property verdict.
///
/// For fuzzers and their regression tests only. Running a target never traps and never
/// throws; a parser that refuses the bytes is an ordinary, expected outcome. What a target
/// reports is a broken property: a decode that does not round-trip, a parser or verifier
/// that answers differently when given the same bytes twice, a parse whose parts do not
/// add up to its input.
public struct FuzzTarget: Sendable {
    /// The name used by `Fuzz/run.sh`, the seed folder and the failing-cases folder.
    public let name: String
    /// One line on what the target feeds its input to and which properties it checks.
    public let checks: String
    private let body: @Sendable (ArraySlice<UInt8>, inout PropertyCheck) -> Void

    init(_ name: String, checks: String, _ body: @escaping @Sendable (ArraySlice<UInt8>, inout PropertyCheck) -> Void) {
        self.name = name
        self.checks = checks
        self.body = body
    }

    /// Runs the target on one input.
    /// - Parameter bytes: the input.
    /// - Returns: the first property that did not hold, or nil.
    public func run(_ bytes: ArraySlice<UInt8>) -> PropertyViolation? {
        var check = PropertyCheck(target: name)
        body(bytes, &check)
        return check.violation
    }

    /// Runs the target on one input.
    /// - Parameter bytes: the input.
    /// - Returns: the first property that did not hold, or nil.
    public func run(_ bytes: [UInt8]) -> PropertyViolation? { run(bytes[...]) }

    /// Every target, one per parser and one per whole ceremony, then one per attestation format, then App
    /// Attest, metadata, extensions, Android key attestation and Play Integrity.
    public static let all: [FuzzTarget] =
        ParserTargets.all + CeremonyTargets.all + AttestationStatementTargets.all
        + AppAttestTargets.all + MetadataTargets.all + ExtensionTargets.all + AndroidKeyAttestationTargets.all
        + PlayIntegrityTargets.all

    /// Builds the fixed inputs every target verifies against (relying party, policy, trust
    /// anchor, recorded contexts and records) now rather than on the first input.
    ///
    /// A harness calls this before fuzzing starts: libFuzzer's leak check looks at the
    /// allocations of each input, and would otherwise take these one-time allocations, held by
    /// static storage that LeakSanitizer cannot always trace through Swift's enum payloads, for
    /// a leak of the first input.
    public static func prepare() {
        _ = (AttestationStatementTargets.trustAnchors, AttestationStatementTargets.contexts, AttestationStatementTargets.policy)
        _ = (CeremonyTargets.records, CeremonyTargets.policy, CeremonyTargets.relyingParty, MetadataTargets.root)
        _ = (AppAttestTargets.verifier, AppAttestTargets.storedKey, AppAttestTargets.attestationKeyId)
        _ = (AppAttestTargets.attestationChallenge, AppAttestTargets.clientData)
        _ = (PlayIntegrityTargets.verifier, PlayIntegrityTargets.decryptionKey)
        for target in all { _ = target.run([]) }
    }

    /// The target with this name.
    /// - Parameter name: for example `cbor` or `attstmt-tpm`.
    /// - Returns: the target, or nil for an unknown name.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Collects the first broken property of one run.
struct PropertyCheck {
    let target: String
    private(set) var violation: PropertyViolation?

    init(target: String) { self.target = target }

    /// Records a violation unless `holds` (only the first one is kept).
    mutating func require(_ holds: @autoclosure () -> Bool, _ property: String, _ detail: @autoclosure () -> String) {
        guard violation == nil, !holds() else { return }
        violation = PropertyViolation(target: target, property: property, detail: detail())
    }

    /// Requires two descriptions of the same thing to be equal.
    mutating func requireSame(_ first: String, _ second: String, _ property: String) {
        require(first == second, property, "first: \(Self.clip(first))\nsecond: \(Self.clip(second))")
    }

    static func clip(_ text: String) -> String {
        text.utf8.count <= 2_000 ? text : String(decoding: text.utf8.prefix(2_000), as: UTF8.self) + "…"
    }
}

/// The verdict of a parser or verifier on one input, as text: `accept: <what it produced>` or
/// `reject: <the error>`. Two runs on the same bytes must give the same text.
enum Verdict {
    static func of<T, E: Error>(_ body: () throws(E) -> T, describe: (T) -> String) -> (String, T?) {
        do {
            let value = try body()
            return ("accept: " + describe(value), value)
        } catch {
            return ("reject: \(error)", nil)
        }
    }
}

extension Collection where Element == UInt8 {
    /// Lowercase hexadecimal.
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
