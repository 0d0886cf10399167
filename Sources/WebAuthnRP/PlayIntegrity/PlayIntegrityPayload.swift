import WebAuthnCoding

/// The members of a Play Integrity verdict's payload that the checks read, from the JSON Google
/// signed. Members the library does not read (`environmentDetails`, `deviceAttributes`, members
/// Google adds later) are ignored; a member it reads must have its documented type.
struct PlayIntegrityPayload: Sendable {
    /// `requestDetails.requestPackageName`.
    let requestPackageName: String
    /// `requestDetails.nonce` (classic requests).
    let nonce: String?
    /// `requestDetails.requestHash` (standard requests).
    let requestHash: String?
    /// `requestDetails.timestampMillis`, milliseconds since 1970.
    let timestampMillis: Int64
    /// `appIntegrity.appRecognitionVerdict`.
    let appRecognition: String
    /// `appIntegrity.packageName`, absent when Play did not evaluate the app.
    let appPackageName: String?
    /// `appIntegrity.certificateSha256Digest`, decoded; empty when absent.
    let certificateDigests: [[UInt8]]
    /// `appIntegrity.versionCode`.
    let versionCode: Int64?
    /// `deviceIntegrity.deviceRecognitionVerdict`; empty when absent.
    let deviceVerdicts: [String]
    /// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel`.
    let recentDeviceActivity: String?
    /// `accountDetails.appLicensingVerdict`.
    let appLicensing: String?

    /// The largest integer a timestamp or version code may be (15 digits; a Double holds it exactly).
    static let largestInteger: Int64 = 999_999_999_999_999

    /// Reads the payload.
    /// - Throws: ``WebAuthnError`` `malformed`, naming the member.
    init(json bytes: [UInt8]) throws(WebAuthnError) {
        let root: JSONValue
        do {
            root = try JSONReader.parse(bytes[...])
        } catch {
            throw WebAuthnError(.malformed, "the payload is not JSON: \(error)")
        }
        let request = try Self.object(root, "the payload")
        let app = try Self.object(request["appIntegrity"] ?? .null, "appIntegrity")
        let device = try Self.object(request["deviceIntegrity"] ?? .null, "deviceIntegrity")
        let details = try Self.object(request["requestDetails"] ?? .null, "requestDetails")
        requestPackageName = try Self.string(details["requestPackageName"], "requestDetails.requestPackageName")
        nonce = try Self.optionalString(details["nonce"], "requestDetails.nonce")
        requestHash = try Self.optionalString(details["requestHash"], "requestDetails.requestHash")
        guard let timestamp = try Self.integer(details["timestampMillis"], "requestDetails.timestampMillis") else {
            throw WebAuthnError(.malformed, "requestDetails.timestampMillis is missing")
        }
        timestampMillis = timestamp
        appRecognition = try Self.string(app["appRecognitionVerdict"], "appIntegrity.appRecognitionVerdict")
        appPackageName = try Self.optionalString(app["packageName"], "appIntegrity.packageName")
        versionCode = try Self.integer(app["versionCode"], "appIntegrity.versionCode")
        var digests: [[UInt8]] = []
        for text in try Self.strings(app["certificateSha256Digest"], "appIntegrity.certificateSha256Digest") {
            // "Base64 web-safe": base64url, with or without its padding.
            guard let digest = try? Base64URL.decode(text, allowPadding: true), digest.count == 32 else {
                throw WebAuthnError(.malformed, "appIntegrity.certificateSha256Digest holds \"\(text)\", not a base64url SHA-256 digest")
            }
            digests.append(digest)
        }
        certificateDigests = digests
        deviceVerdicts = try Self.strings(device["deviceRecognitionVerdict"], "deviceIntegrity.deviceRecognitionVerdict")
        if let activity = device["recentDeviceActivity"] {
            let level = try Self.object(activity, "deviceIntegrity.recentDeviceActivity")["deviceActivityLevel"]
            recentDeviceActivity = try Self.optionalString(level, "deviceIntegrity.recentDeviceActivity.deviceActivityLevel")
        } else {
            recentDeviceActivity = nil
        }
        if let account = request["accountDetails"] {
            appLicensing = try Self.optionalString(
                try Self.object(account, "accountDetails")["appLicensingVerdict"], "accountDetails.appLicensingVerdict")
        } else {
            appLicensing = nil
        }
    }

    private static func object(_ value: JSONValue, _ name: String) throws(WebAuthnError) -> [String: JSONValue] {
        guard let object = value.objectValue else { throw WebAuthnError(.malformed, "\(name) is not a JSON object") }
        return object
    }

    private static func string(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> String {
        guard let text = try optionalString(value, name) else { throw WebAuthnError(.malformed, "\(name) is missing") }
        return text
    }

    private static func optionalString(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else { throw WebAuthnError(.malformed, "\(name) is not a string") }
        return text
    }

    /// A list of strings; absent is empty.
    private static func strings(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> [String] {
        guard let value else { return [] }
        guard let items = value.arrayValue else { throw WebAuthnError(.malformed, "\(name) is not an array") }
        var texts: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw WebAuthnError(.malformed, "\(name) holds a value that is not a string") }
            texts.append(text)
        }
        return texts
    }

    /// An int64 as proto3's JSON mapping writes it: a string of decimal digits (what Google
    /// sends), or a JSON number; non-negative, at most 15 digits.
    private static func integer(_ value: JSONValue?, _ name: String) throws(WebAuthnError) -> Int64? {
        switch value {
        case nil: return nil
        case .string(let text)?:
            guard (1...15).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int64(text)
            else {
                throw WebAuthnError(.malformed, "\(name) is \"\(text)\", not a number of at most 15 digits")
            }
            return number
        case .number(let number)?:
            guard number >= 0, number <= Double(largestInteger), number.rounded(.towardZero) == number else {
                throw WebAuthnError(.malformed, "\(name) is \(number), not a whole number of at most 15 digits")
            }
            return Int64(number)
        case _?:
            throw WebAuthnError(.malformed, "\(name) is neither a string of digits nor a number")
        }
    }
}

/// The payload reader alone, for the `play-integrity-token` fuzz target: a verdict's JSON
/// reaches it only under Google's signature, so the fuzzer feeds it directly as well.
package enum PlayIntegrityPayloadReading {
    /// Reads `bytes` as a verdict's payload.
    /// - Parameter bytes: the JSON.
    /// - Returns: `accepted` and every member read, written out (the same bytes must give the
    ///   same text), or `refused` and the reader's error.
    package static func read(_ bytes: [UInt8]) -> String {
        do {
            return "accepted \(try PlayIntegrityPayload(json: bytes))"
        } catch {
            return "refused \(error)"
        }
    }
}
