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

/// The backend's cookies a request carries, read once from its `Cookie` headers (a framework's
/// cookie accessor parses every cookie at each lookup, and a login looks twice). The first
/// occurrence of a name counts; a value is taken as sent.
package struct RequestCookies: Sendable {
    package var session: String?
    package var registration: String?
    package var login: String?

    /// - Parameter headers: The values of the request's `Cookie` headers.
    package init(headers: some Sequence<some StringProtocol>) {
        for header in headers {
            for pair in header.split(separator: ";") {
                let pair = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let value = String(pair[pair.index(after: equals)...])
                switch String(pair[..<equals]) {
                case CookieRules.session: if session == nil { session = value }
                case CookieRules.registration: if registration == nil { registration = value }
                case CookieRules.login: if login == nil { login = value }
                default: continue
                }
            }
        }
    }
}
