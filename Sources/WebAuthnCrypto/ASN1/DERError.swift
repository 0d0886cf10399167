package import WebAuthnCoding

/// Why the DER reader refused its input (``InputError``: a code, the byte offset from the
/// start of the buffer handed to the parse call that built the node, and a reason).
package typealias DERError = InputError<DERErrorCode>

/// The stable category of a DER failure.
package enum DERErrorCode: String, InputErrorCode {
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

    package static let domain = "der"
    package static let offsetLabel = "at"
}
