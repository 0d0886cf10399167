// Name comparison for "self-issued" (RFC 5280 §6.1, names compared as in §7.1): the same
// RDNs in the same order, each RDN the same set of attributes, character-string values
// compared after case folding and whitespace compression. The folding is the one
// libcrypto's X509_NAME_cmp applies (ASCII only: leading and trailing white space
// removed, inner runs collapsed to one space, A–Z lowered), so chain building and this
// flag agree; CertificateDifferentialTests checks that on every certificate we hold.

extension DistinguishedName {
    /// The canonical form of a Name node: per RDN, its attributes' canonical encodings, sorted.
    /// Nil when a value cannot be read as text of its declared type (libcrypto refuses such a Name).
    static func canonicalForm(of node: DERNode) -> [[[UInt8]]]? {
        guard let rdns = try? node.sequence() else { return nil }
        var result: [[[UInt8]]] = []
        result.reserveCapacity(rdns.count)
        for rdn in rdns {
            guard let members = try? rdn.set() else { return nil }
            var keys: [[UInt8]] = []
            keys.reserveCapacity(members.count)
            for member in members {
                guard let parts = try? member.sequence(), parts.count == 2 else { return nil }
                guard let value = canonicalValue(parts[1]) else { return nil }
                keys.append(Array(parts[0].encodedBytes) + value)
            }
            keys.sort { $0.lexicographicallyPrecedes($1) }
            result.append(keys)
        }
        return result
    }

    /// A character string of the folded types becomes `0x0C` (UTF8String) and its folded
    /// UTF-8; any other value stays its exact DER encoding (NumericString included).
    private static func canonicalValue(_ value: DERNode) -> [UInt8]? {
        guard value.tag.tagClass == .universal, !value.tag.isConstructed else { return Array(value.encodedBytes) }
        var scalars: [Unicode.Scalar] = []
        let content = value.content
        switch value.tag.number {
        case DERTag.utf8String.number:
            guard let text = String(validating: content, as: UTF8.self) else { return nil }
            scalars = Array(text.unicodeScalars)
        case DERTag.printableString.number, DERTag.teletexString.number,
            DERTag.ia5String.number, DERTag.visibleString.number:
            // One octet per character (libcrypto reads these types as Latin-1).
            scalars = content.map { Unicode.Scalar($0) }
        case DERTag.bmpString.number:
            guard content.count % 2 == 0 else { return nil }
            var index = content.startIndex
            while index + 1 < content.endIndex {
                guard let scalar = Unicode.Scalar(UInt32(content[index]) << 8 | UInt32(content[index + 1])) else { return nil }
                scalars.append(scalar)
                index += 2
            }
        case DERTag.universalString.number:
            guard content.count % 4 == 0 else { return nil }
            var index = content.startIndex
            while index + 3 < content.endIndex {
                let code =
                    UInt32(content[index]) << 24 | UInt32(content[index + 1]) << 16
                    | UInt32(content[index + 2]) << 8 | UInt32(content[index + 3])
                guard let scalar = Unicode.Scalar(code) else { return nil }
                scalars.append(scalar)
                index += 4
            }
        default:
            return Array(value.encodedBytes)
        }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(scalars.count)
        for scalar in scalars { utf8.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? []) }
        return [0x0C] + fold(utf8)
    }

    /// ASCII white space (space, tab, LF, VT, FF, CR).
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// Trims white space at both ends, collapses inner runs to one space, lowers A–Z.
    private static func fold(_ bytes: [UInt8]) -> [UInt8] {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var index = start
        while index < end {
            let byte = bytes[index]
            if isSpace(byte) {
                out.append(0x20)
                while index < end, isSpace(bytes[index]) { index += 1 }
            } else {
                out.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
                index += 1
            }
        }
        return out
    }
}
