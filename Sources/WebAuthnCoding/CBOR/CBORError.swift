/// Why a CBOR input was refused (``InputError``: a code, the byte offset where decoding
/// stopped, and a reason).
package typealias CBORError = InputError<CBORErrorCode>

/// The stable category of a CBOR failure.
package enum CBORErrorCode: String, InputErrorCode {
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

    package static let domain = "cbor"
    package static let offsetLabel = "at byte"
}
