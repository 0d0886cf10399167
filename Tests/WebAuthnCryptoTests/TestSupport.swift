import WebAuthnCoding

/// Hex to bytes for test vectors (the vectors are constants, so a bad digit is a test bug).
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8).compactMap { c -> UInt8? in
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
    return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// Re-encodes a COSE key with members replaced or removed.
func editCOSE(_ bytes: [UInt8], set: [(Int64, CBORItem)] = [], remove: [Int64] = []) throws -> [UInt8] {
    let item = try CBOR.decode(bytes)
    var entries: [(CBORItem, CBORItem)] = (item.mapEntries ?? []).compactMap { entry in
        guard let label = entry.key.int64 else { return (entry.key, entry.value) }
        if remove.contains(label) || set.contains(where: { $0.0 == label }) { return nil }
        return (entry.key, entry.value)
    }
    entries += set.map { (CBORItem.int($0.0), $0.1) }
    return CBOREncoder.encode(CBORItem.map(entries))
}
