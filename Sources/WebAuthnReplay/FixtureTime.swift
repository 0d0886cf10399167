import Foundation

/// The instants a fixture names (a ceremony's `issuedAt` and `receivedAt`, and
/// `policy.verificationTime`, which also still takes any form Foundation's ISO 8601 reader
/// took before): RFC 3339 date-times, read strictly and the same way on every platform.
///
/// `YYYY-MM-DDTHH:MM:SS`, an optional fraction of a second, then `Z` or an offset
/// `±HH:MM`. Every field is range-checked (no 30 February, no hour 24); a leap second
/// (`:60`) is refused because `Date` cannot name it. Anything else makes the fixture
/// unusable.
enum FixtureTime {
    /// A recording's `policy.verificationTime`, or the current time when it names none. RFC 3339
    /// (a fraction of a second, an offset), or any form Foundation's ISO 8601 reader, which read
    /// this member before, accepted, so older recordings keep their clock.
    /// - Throws: ``FixtureError`` naming `policy.verificationTime` for any other text.
    static func verificationTime(_ text: String?, file: String) throws(FixtureError) -> Date {
        guard let text else { return Date() }
        guard let date = parse(text) ?? ISO8601DateFormatter().date(from: text) else {
            throw FixtureError(
                file: file, member: "policy.verificationTime",
                reason: "\"\(text)\" is not an RFC 3339 date-time such as 2024-06-01T00:00:00Z")
        }
        return date
    }

    /// The instant `text` names, or nil when it is not an RFC 3339 date-time.
    static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        // 20 bytes is the shortest form ("2024-06-01T00:00:00Z"); the fraction is capped.
        guard (20...40).contains(b.count) else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start >= 0, count > 0, start + count <= b.count else { return nil }
            var value = 0
            for byte in b[start..<(start + count)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ index: Int, is choices: String) -> Bool { index < b.count && choices.utf8.contains(b[index]) }
        guard let year = number(0, 4), byte(4, is: "-"), let month = number(5, 2), byte(7, is: "-"),
            let day = number(8, 2), byte(10, is: "Tt"), let hour = number(11, 2), byte(13, is: ":"),
            let minute = number(14, 2), byte(16, is: ":"), let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if byte(index, is: ".") {
            let start = index + 1
            index = start
            while index < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[index]) { index += 1 }
            guard index > start, let value = Double("0." + String(decoding: b[start..<index], as: UTF8.self)) else { return nil }
            fraction = value
        }
        let offset: Int
        if byte(index, is: "Zz") {
            offset = 0
            index += 1
        } else if byte(index, is: "+-"), let hours = number(index + 1, 2), byte(index + 3, is: ":"),
            let minutes = number(index + 4, 2), (0...23).contains(hours), (0...59).contains(minutes)
        {
            offset = (b[index] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        // Whole seconds are exact in a Double; the fraction is added last.
        return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + fraction)
    }

    /// Decodes an optional date-time member, naming it when it is not a string or not RFC 3339.
    static func decodeIfPresent<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> Date? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "\"\(text)\" is not an RFC 3339 date-time such as 2024-06-01T00:00:00Z")
        }
        return date
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (years 0...9999).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        // Count from 1 March so the leap day is the last day of the counted year.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
