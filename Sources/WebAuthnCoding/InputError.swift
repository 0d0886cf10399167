/// The categories of one reader's refusals (CBOR, DER), and how its messages name them.
package protocol InputErrorCode: RawRepresentable<String>, Hashable, Sendable, CaseIterable {
    /// The message prefix, such as `cbor`.
    static var domain: String { get }
    /// The words before the offset in a message, such as `at byte`.
    static var offsetLabel: String { get }
}

/// Why a reader refused its input: a stable code, the byte offset where the problem was
/// found, and a reason for people.
///
/// Equality compares the code only, so tests and callers can match on the category
/// without depending on the wording or offset.
package struct InputError<C: InputErrorCode>: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reader's categories.
    package typealias Code = C

    /// The category of the failure.
    package let code: Code
    /// Byte offset from the start of the input where the failure was detected.
    package let offset: Int
    /// What was wrong, for logs and people; not part of equality.
    package let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the category.
    ///   - offset: the byte offset from the start of the input.
    ///   - reason: a short explanation.
    package init(_ code: Code, offset: Int, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `<domain>.<code> <offset label> <offset>: <reason>`, e.g. `cbor.truncated at byte 3: …`.
    package var description: String { "\(Code.domain).\(code.rawValue) \(Code.offsetLabel) \(offset): \(reason)" }
}
