import Foundation

/// The certificate validity times of RFC 5280 §4.1.2.5, read strictly.
///
/// UTCTime is `YYMMDDHHMMSSZ` (YY 50–99 is 19YY, 00–49 is 20YY); GeneralizedTime is
/// `YYYYMMDDHHMMSSZ`. Both must be in UTC (`Z`), carry seconds and no fraction, and
/// name a real calendar date and time (no 31 April, no second 60).
enum CertificateTime {
    /// The moment `node` (a UTCTime or GeneralizedTime) names.
    /// - Parameters:
    ///   - node: the Time value.
    ///   - field: the field's name for the error (`validity.notBefore`).
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/malformedCertificate``.
    static func date(_ node: DERNode, field: String) throws(CryptoError) -> Date {
        let digits: Int
        switch node.tag {
        case .utcTime: digits = 12
        case .generalizedTime: digits = 14
        default:
            throw CryptoError(.malformedCertificate, "\(field): \(node.tag) is neither UTCTime nor GeneralizedTime")
        }
        let form = digits == 12 ? "UTCTime YYMMDDHHMMSSZ" : "GeneralizedTime YYYYMMDDHHMMSSZ"
        let text = node.content
        guard text.count == digits + 1, text.last == UInt8(ascii: "Z"),
            text.prefix(digits).allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            throw CryptoError(.malformedCertificate, "\(field): not \(form) (RFC 5280 §4.1.2.5: UTC, seconds, no fraction)")
        }
        var cursor = text.startIndex
        func number(_ count: Int) -> Int {
            var value = 0
            for _ in 0..<count {
                value = value * 10 + Int(text[cursor] - UInt8(ascii: "0"))
                cursor += 1
            }
            return value
        }
        var year: Int
        if digits == 12 {
            let short = number(2)
            year = short >= 50 ? 1900 + short : 2000 + short
        } else {
            year = number(4)
        }
        let month = number(2), day = number(2), hour = number(2), minute = number(2), second = number(2)
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 59,
            let seconds = unixTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else {
            throw CryptoError(.malformedCertificate, "\(field): \(form) names no valid date and time")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days in `month` of `year` (proleptic Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since 1970 for a UTC civil time (proleptic Gregorian calendar).
    static func unixTime(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int? {
        guard (0...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }
}
