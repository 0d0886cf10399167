/// Why the DER reader refused its input.
///
/// A stable ``Code``, the byte offset (from the start of the buffer handed to the
/// parse call that built the node) where the problem sits, and a reason for people.
/// Equality compares the code only, so tests can match on the category.
package struct DERError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable category.
    package enum Code: String, Hashable, Sendable, CaseIterable {
        /// The input ends inside a tag, a length or a value.
        case truncated
        /// The indefinite length form (`0x80`) was used; DER forbids it.
        case indefiniteLength
        /// A length or a tag number is not in its shortest form.
        case nonMinimalEncoding
        /// A length does not fit the reader's limits (or uses the reserved `0xFF` form).
        case lengthTooLarge
        /// A tag number does not fit the reader's limits.
        case tagTooLarge
        /// Bytes are left over after a value that was meant to fill the input.
        case trailingBytes
        /// Constructed values are nested deeper than the cap.
        case tooDeep
        /// A value has a different tag than the one required.
        case unexpectedTag
        /// A primitive value was required but a constructed one was found, or the reverse.
        case unexpectedForm
        /// The content of a value breaks its type's DER rules (INTEGER, BOOLEAN, OID, BIT STRING, strings…).
        case invalidValue
        /// An INTEGER is well formed but does not fit the range asked for.
        case integerOutOfRange
        /// A SEQUENCE or explicit tag has fewer or more elements than its structure allows.
        case unexpectedElementCount
    }

    /// The category.
    let code: Code
    /// Offset of the offending element from the start of the parsed buffer.
    let offset: Int
    /// What was wrong; for logs and people, not part of equality.
    package let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the category.
    ///   - offset: where in the parsed buffer the problem is.
    ///   - reason: what was wrong.
    package init(_ code: Code, offset: Int, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    /// Equal when the codes are equal (offset and reason are ignored).
    package static func == (lhs: DERError, rhs: DERError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only, matching `==`.
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
    /// `der.<code> at <offset>: <reason>`.
    package var description: String { "der.\(code.rawValue) at \(offset): \(reason)" }
}
