/// Entry points of the CBOR (RFC 8949) decoder.
///
/// The decoder reads the caller's bytes in place: byte strings and every item's
/// `encodedBytes` are slices of the input, never copies (an indefinite-length byte
/// string is the one exception, since its chunks must be joined).
package enum CBOR {
    /// Decodes exactly one item that must span the whole input.
    /// - Parameters:
    ///   - bytes: the encoded item.
    ///   - options: limits and strictness.
    /// - Returns: the item.
    /// - Throws: ``CBORError`` with code `trailing` when bytes remain after the item,
    ///   or any other code for an item that does not decode.
    package static func decode(
        _ bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default
    ) throws(CBORError) -> CBORItem {
        var reader = CBORReader(input: bytes, options: options)
        let item = try reader.readItem(depth: 1)
        guard reader.position == bytes.endIndex else {
            throw CBORError(.trailing, offset: reader.position - bytes.startIndex,
                            "\(bytes.endIndex - reader.position) byte(s) after the top-level item")
        }
        return item
    }

    /// Decodes exactly one item that must span the whole input.
    /// - Parameters:
    ///   - bytes: the encoded item.
    ///   - options: limits and strictness.
    /// - Returns: the item.
    /// - Throws: ``CBORError``.
    package static func decode(_ bytes: [UInt8], options: CBORDecodingOptions = .default) throws(CBORError) -> CBORItem {
        try decode(bytes[...], options: options)
    }

    /// Decodes the first item of the input and returns it with the bytes after it.
    ///
    /// Authenticator data embeds a COSE key followed by an extensions map, so the
    /// caller needs to know where the key ended.
    /// - Parameters:
    ///   - bytes: input that starts with an encoded item.
    ///   - options: limits and strictness.
    /// - Returns: the item and the unread remainder (a slice of `bytes`).
    /// - Throws: ``CBORError``.
    package static func decodePrefix(
        _ bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default
    ) throws(CBORError) -> (item: CBORItem, rest: ArraySlice<UInt8>) {
        var reader = CBORReader(input: bytes, options: options)
        let item = try reader.readItem(depth: 1)
        return (item, bytes[reader.position...])
    }
}
