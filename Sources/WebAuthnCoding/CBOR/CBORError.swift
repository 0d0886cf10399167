/// Why a CBOR input was refused: a stable ``Code``, the byte offset where decoding
/// stopped, and a reason for people.
///
/// Equality compares the code only, so tests and callers can match on the category
/// without depending on the wording or offset.
package struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable category of a CBOR failure.
    package enum Code: String, Hashable, Sendable, CaseIterable {
        /// The input ended inside an item.
        case truncated
        /// The bytes are not well-formed CBOR (reserved values, a misplaced break, a bad chunk).
        case invalid
        /// Nesting went deeper than ``CBORDecodingOptions/maximumDepth``.
        case depth
        /// A declared length or count exceeds the remaining input or the item budget.
        case limit
        /// Bytes remain after the top-level item.
        case trailing
        /// A map holds the same key twice.
        case duplicateKey
        /// A text string is not valid UTF-8.
        case invalidUTF8
        /// Canonical form was required and the encoding is not CTAP2 canonical.
        case nonCanonical
        /// The item is well-formed but not of the type or shape the caller needed.
        case unexpectedType
    }

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

    package static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `cbor.<code> at byte <offset>: <reason>`.
    package var description: String { "cbor.\(code.rawValue) at byte \(offset): \(reason)" }
}
