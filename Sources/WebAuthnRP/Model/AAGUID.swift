/// An authenticator's model identifier: 16 bytes from attested credential data, read and
/// written in its 8-4-4-4-12 form (``uuidString``), as records and metadata statements hold it.
public struct AAGUID: Sendable, Hashable, CustomStringConvertible {
    /// The 16 bytes.
    package let bytes: [UInt8]

    /// Wraps 16 bytes.
    /// - Parameter bytes: the identifier; any other length gives nil.
    package init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses the 8-4-4-4-12 hexadecimal form (either case).
    /// - Parameter uuidString: for example `adce0002-35bc-c60a-648b-0b25f1f05503`.
    public init?(uuidString: String) {
        let utf8 = Array(uuidString.utf8)
        guard utf8.count == 36 else { return nil }
        var out: [UInt8] = []
        var high: UInt8?
        for (i, c) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        self.init(bytes: out)
    }

    /// The all-zero AAGUID, used by authenticators that do not identify their model.
    public static let zero = AAGUID(uncheckedBytes: [UInt8](repeating: 0, count: 16))

    private init(uncheckedBytes: [UInt8]) { self.bytes = uncheckedBytes }

    /// Whether this is ``zero``.
    var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// The lowercase 8-4-4-4-12 hexadecimal form.
    public var uuidString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, b) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Same as ``uuidString``.
    public var description: String { uuidString }
}
