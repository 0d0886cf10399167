import Foundation
import HTTPTypes

/// The name a user gives one of their passkeys ("Work laptop"): trimmed, in NFC, 1 to 64
/// Unicode code points (as PostgreSQL's `char_length` counts them), without control characters
/// or default-ignorable ones (bidirectional overrides and invisible joiners would let a name
/// show as another in the passkey list).
package struct PasskeyName: Sendable, Equatable {
    package let text: String

    package static let maxCodePoints = 64

    package init(_ raw: String) throws {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        let scalars = text.unicodeScalars
        guard (1...Self.maxCodePoints).contains(scalars.count),
            scalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) && !$0.properties.isDefaultIgnorableCodePoint })
        else {
            throw AppError(
                .badRequest,
                "A passkey's name is 1 to \(Self.maxCodePoints) characters (Unicode code points), without control or invisible characters.")
        }
        self.text = text
    }
}
