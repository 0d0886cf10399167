import Foundation
import HTTPTypes

/// A username as the server keeps it. `display` is what the user typed, trimmed and in NFKC
/// (Unicode compatibility composition: fullwidth `ａｌｉｃｅ` is `alice`, and the same name typed
/// on two keyboards is one name); `key` is what names compare by, the display name case-folded
/// and in NFKC again, unique in the store ("Alice" and "alice" are one account). Length is
/// counted in Unicode code points, as PostgreSQL's `char_length` counts them in a UTF-8
/// database, so a name the server accepts is one the database accepts.
///
/// Against look-alike names (UTS #39), a name is written in one script: its letters all belong
/// to one of UAX #31's recommended scripts (Latin, Cyrillic, Greek, Han, …), or to Latin with
/// Han and the Japanese kana, Han and Bopomofo, or Han and Hangul, as UTS #39's "highly
/// restrictive" level allows; digits, punctuation and combining marks (Common, Inherited) go
/// with any. `аlice` with a Cyrillic `а` is refused, not a second `alice`; default-ignorable
/// code points (variation selectors, joiners) are refused with the control characters.
package struct Username: Sendable, Equatable {
    package let display: String
    package let key: String

    package static let maxCodePoints = 64

    package init(_ raw: String?) throws {
        let display = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCompatibilityMapping
        let scalars = display.unicodeScalars
        guard (1...Self.maxCodePoints).contains(scalars.count),
            scalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) })
        else {
            throw AppError(
                .badRequest, "A username is 1 to \(Self.maxCodePoints) characters (Unicode code points), without control characters.")
        }
        guard Self.isSingleScript(display) else {
            throw AppError(.badRequest, "A username is written in one script (letters of one alphabet), without invisible characters.")
        }
        self.display = display
        key = display.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCompatibilityMapping
    }

    /// One script (or an allowed mix), and no default-ignorable code point.
    package static func isSingleScript(_ name: String) -> Bool {
        if name.unicodeScalars.allSatisfy(\.isASCII) { return true }  // Latin and Common only
        guard let ignorable, (try? ignorable.firstMatch(in: name)) == nil else { return false }
        return profiles.contains { (try? $0.wholeMatch(in: name)) != nil }
    }

    /// UAX #31 Table 7 (recommended scripts), by ISO 15924 code.
    package static let recommendedScripts = [
        "Arab", "Armn", "Beng", "Bopo", "Cyrl", "Deva", "Ethi", "Geor", "Grek", "Gujr", "Guru", "Hang", "Hani", "Hebr",
        "Hira", "Knda", "Kana", "Khmr", "Laoo", "Latn", "Mlym", "Mymr", "Orya", "Sinh", "Taml", "Telu", "Thaa", "Thai",
        "Tibt",
    ]

    /// A whole-name pattern per allowed script set: its scripts (by Script_Extensions), Common and Inherited.
    nonisolated(unsafe) static let profiles: [Regex<AnyRegexOutput>] =
        (recommendedScripts.map { [$0] } + [["Latn", "Hani", "Hira", "Kana"], ["Latn", "Hani", "Bopo"], ["Latn", "Hani", "Hang"]])
        .compactMap { scripts in
            try? Regex("[\\p{sc=Zyyy}\\p{sc=Zinh}" + scripts.map { "\\p{scx=\($0)}" }.joined() + "]+")
                .matchingSemantics(.unicodeScalar)
        }
    // Scalar by scalar: a mark or selector inside a grapheme is judged on its own.
    nonisolated(unsafe) static let ignorable = try? Regex("\\p{Default_Ignorable_Code_Point}").matchingSemantics(.unicodeScalar)
}
