import WebAuthnRP

/// The cookies the backend sets, for every adapter: their names, and attributes a browser keeps
/// them under (HttpOnly, SameSite=Strict: the page and the API are one origin; Secure unless
/// served on localhost; path `/`). An adapter turns each ``SetCookie`` into its framework's cookie.
package struct CookieRules: Sendable {
    /// The registration ceremony's signed state.
    package static let registration = "pk_reg"
    /// The login ceremony's signed state.
    package static let login = "pk_login"
    /// The session.
    package static let session = SessionToken.cookieName
    /// A ceremony's state lives as long as its challenge.
    package static let ceremonyMaxAge = 300

    package let secure: Bool

    package init(secure: Bool) { self.secure = secure }

    /// The rules of a server under `config` (Secure unless on localhost).
    package init(_ config: PasskeyBackendConfiguration) { self.init(secure: !config.isLocalhost) }

    /// One `Set-Cookie`.
    package struct SetCookie: Sendable, Equatable {
        package var name: String
        package var value: String
        package var maxAge: Int
        package var secure: Bool
        package let path = "/"
        package let httpOnly = true
        package let sameSiteStrict = true
    }

    package func make(_ name: String, _ value: String, maxAge: Int = ceremonyMaxAge) -> SetCookie {
        SetCookie(name: name, value: value, maxAge: maxAge, secure: secure)
    }

    /// The cookie's removal.
    package func expired(_ name: String) -> SetCookie { make(name, "", maxAge: 0) }

    /// The cookie of a session a ceremony's write started.
    package func session(_ token: [UInt8]) -> SetCookie {
        make(Self.session, Base64URLBytes(token).base64URL, maxAge: Int(Limits.sessionLifetime))
    }
}

/// The backend's cookies a request carries, read once from its `Cookie` headers in one pass over
/// their bytes. A framework's cookie accessor splits the whole header into `Character`s at each
/// lookup, and a login looks twice: about 80 µs of a sealed web login's server CPU in the
/// profile (Docs/Performance.md), for a header of a few hundred bytes.
///
/// RFC 6265 §5.4's `cookie-string`: pairs separated by `;`, each `name=value`, with optional
/// spaces or tabs around them. Names compare exactly (case matters); the first pair of a name
/// counts, as in the browsers' order of more specific paths first; a pair without `=` is
/// skipped. A value is taken as sent (the backend's are base64url); whether it is valid is for
/// its reader (the signer, the session store).
package struct RequestCookies: Sendable {
    package var session: String?
    package var registration: String?
    package var login: String?

    private static let names = (
        session: Array(CookieRules.session.utf8), registration: Array(CookieRules.registration.utf8),
        login: Array(CookieRules.login.utf8)
    )

    /// - Parameter headers: The values of the request's `Cookie` headers.
    package init(headers: some Sequence<some StringProtocol>) {
        for header in headers {
            let bytes = Array(header.utf8)
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
                // One pair is bytes[start..<end], without its spaces and tabs.
                var lower = start, upper = end
                while lower < upper, Self.isSpace(bytes[lower]) { lower += 1 }
                while upper > lower, Self.isSpace(bytes[upper - 1]) { upper -= 1 }
                if let equals = bytes[lower..<upper].firstIndex(of: UInt8(ascii: "=")) {
                    let name = bytes[lower..<equals], value = bytes[(equals + 1)..<upper]
                    if session == nil, name.elementsEqual(Self.names.session) {
                        session = String(decoding: value, as: UTF8.self)
                    } else if registration == nil, name.elementsEqual(Self.names.registration) {
                        registration = String(decoding: value, as: UTF8.self)
                    } else if login == nil, name.elementsEqual(Self.names.login) {
                        login = String(decoding: value, as: UTF8.self)
                    }
                }
                start = end + 1
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
