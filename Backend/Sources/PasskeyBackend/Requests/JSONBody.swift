import Foundation
import HTTPTypes
import WebAuthnRP

/// The rules every adapter applies to a request body, in one place so two adapters cannot answer
/// one body differently: a JSON endpoint takes `application/json` only (415), a body past its
/// limit is 413 (declared or sent), one that does not arrive whole is 400 (not too large: a
/// client told 413 would not send it again), and every JSON body is read first by the library's
/// strict reader, which refuses a member given twice in any object (which of two values would
/// count is not left to a decoder), nesting past its cap and malformed UTF-8.
package enum JSONBody {
    package static let notJSON = AppError(.unsupportedMediaType, "Send JSON (Content-Type: application/json).")
    package static let tooLarge = AppError(.contentTooLarge, "The request is too large.")
    package static let cutShort = AppError(.badRequest, "The request body ended before it was complete.")
    package static let invalid = AppError(.badRequest, "The request is not valid JSON for this endpoint.")

    /// 415 unless the media type is `application/json` (parameters such as `charset` aside).
    package static func requireJSONType(_ contentType: String?) throws {
        let type = (contentType ?? "").lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type == "application/json" else { throw notJSON }
    }

    /// 413 when the declared `Content-Length` is past `limit`, before a byte is read.
    package static func checkDeclaredLength(_ contentLength: String?, limit: Int) throws {
        if let length = contentLength.flatMap({ Int($0) }), length > limit { throw tooLarge }
    }

    /// A small JSON body (options): one object; an empty body reads as `{}`; anything else is 400.
    package static func smallObject(_ data: Data) throws -> [String: JSONValue] {
        if data.isEmpty { return [:] }
        guard case .object(let members)? = try? JSONValue(jsonData: data) else { throw invalid }
        return members
    }

    /// `type` from a JSON body the strict reader accepted first; 400 otherwise.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            _ = try JSONValue(jsonData: data)
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw invalid
        }
    }

    /// A native finish body `{"state": "…", "credential": {…}}`, read once by the strict reader;
    /// the credential goes on to the library as its own JSON document.
    package static func finish(_ data: Data) throws -> (state: String, credential: Data) {
        guard case .object(let object)? = try? JSONValue(jsonData: data), object.count == 2,
            case .string(let state)? = object["state"], state.utf8.count <= 8_192,
            let credential = object["credential"], case .object = credential,
            let credentialData = try? credentialEncoder.encode(credential)
        else {
            throw AppError(.badRequest, "Send {\"state\": …, \"credential\": {…}}.")
        }
        return (state, credentialData)
    }

    private static let credentialEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
