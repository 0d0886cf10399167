/// An ASN.1 identifier: class, primitive/constructed form and tag number.
///
/// Tag numbers above 30 use the high-tag-number form on the wire; Android's key
/// description needs it for context tags such as `[701]` and `[702]`.
package struct DERTag: Hashable, Sendable, CustomStringConvertible {
    /// The two class bits of the identifier octet.
    package enum TagClass: UInt8, Hashable, Sendable {
        /// Types defined by X.680 (INTEGER, SEQUENCE…).
        case universal = 0
        /// Application-wide tags.
        case application = 1
        /// Context-specific tags (`[n]` in a module).
        case contextSpecific = 2
        /// Private tags.
        case `private` = 3
    }

    /// The class.
    package let tagClass: TagClass
    /// Whether the value is constructed (holds nested values) rather than primitive.
    package let isConstructed: Bool
    /// The tag number (the reader accepts up to `DERTag.maximumNumber`).
    package let number: UInt32

    /// The largest tag number the reader accepts (four base-128 digits).
    static let maximumNumber: UInt32 = (1 << 28) - 1

    /// Creates a tag.
    /// - Parameters:
    ///   - tagClass: the class.
    ///   - number: the tag number.
    ///   - constructed: whether the value is constructed.
    package init(_ tagClass: TagClass, number: UInt32, constructed: Bool) {
        self.tagClass = tagClass
        self.number = number
        self.isConstructed = constructed
    }

    /// A context-specific tag `[number]`.
    /// - Parameters:
    ///   - number: the tag number.
    ///   - constructed: `true` for an explicit tag or an implicitly tagged constructed type.
    package static func context(_ number: UInt32, constructed: Bool) -> DERTag {
        DERTag(.contextSpecific, number: number, constructed: constructed)
    }

    /// BOOLEAN.
    package static let boolean = DERTag(.universal, number: 1, constructed: false)
    /// INTEGER.
    package static let integer = DERTag(.universal, number: 2, constructed: false)
    /// BIT STRING.
    package static let bitString = DERTag(.universal, number: 3, constructed: false)
    /// OCTET STRING.
    package static let octetString = DERTag(.universal, number: 4, constructed: false)
    /// NULL.
    package static let null = DERTag(.universal, number: 5, constructed: false)
    /// OBJECT IDENTIFIER.
    static let objectIdentifier = DERTag(.universal, number: 6, constructed: false)
    /// ENUMERATED.
    package static let enumerated = DERTag(.universal, number: 10, constructed: false)
    /// UTF8String.
    static let utf8String = DERTag(.universal, number: 12, constructed: false)
    /// SEQUENCE / SEQUENCE OF.
    package static let sequence = DERTag(.universal, number: 16, constructed: true)
    /// SET / SET OF.
    package static let set = DERTag(.universal, number: 17, constructed: true)
    /// NumericString.
    static let numericString = DERTag(.universal, number: 18, constructed: false)
    /// PrintableString.
    static let printableString = DERTag(.universal, number: 19, constructed: false)
    /// TeletexString (T61String).
    static let teletexString = DERTag(.universal, number: 20, constructed: false)
    /// IA5String.
    static let ia5String = DERTag(.universal, number: 22, constructed: false)
    /// UTCTime.
    static let utcTime = DERTag(.universal, number: 23, constructed: false)
    /// GeneralizedTime.
    static let generalizedTime = DERTag(.universal, number: 24, constructed: false)
    /// VisibleString.
    static let visibleString = DERTag(.universal, number: 26, constructed: false)
    /// UniversalString (UTF-32BE).
    static let universalString = DERTag(.universal, number: 28, constructed: false)
    /// BMPString (UTF-16BE).
    static let bmpString = DERTag(.universal, number: 30, constructed: false)

    /// The identifier octets of this tag in DER.
    package var encoded: [UInt8] {
        let leading = (tagClass.rawValue << 6) | (isConstructed ? 0x20 : 0)
        if number < 31 { return [leading | UInt8(number)] }
        var digits: [UInt8] = []
        var rest = number
        repeat {
            digits.append(UInt8(rest & 0x7F))
            rest >>= 7
        } while rest > 0
        var out: [UInt8] = [leading | 0x1F]
        for (i, digit) in digits.reversed().enumerated() {
            out.append(i == digits.count - 1 ? digit : digit | 0x80)
        }
        return out
    }

    /// `[UNIVERSAL 16]c`-style text.
    package var description: String {
        let cls: String
        switch tagClass {
        case .universal: cls = "UNIVERSAL "
        case .application: cls = "APPLICATION "
        case .contextSpecific: cls = ""
        case .private: cls = "PRIVATE "
        }
        return "[\(cls)\(number)]\(isConstructed ? "c" : "p")"
    }
}
