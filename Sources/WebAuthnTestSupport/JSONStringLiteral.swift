import Foundation

/// Strings written into JSON by the test authenticator (client data) and the fixture writer.
enum JSONStringLiteral {
    /// `s` as a JSON string literal, escaped as a browser's `JSON.stringify` escapes it: the
    /// quote and the backslash, the short forms `\b \t \n \f \r`, and `\u00XX` for the other
    /// control characters; everything else as it is.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\u{0C}": out += "\\f"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
