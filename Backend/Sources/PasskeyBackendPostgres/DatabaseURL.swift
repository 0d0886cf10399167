import Foundation
import PasskeyBackend

/// `postgres://user:password@host:port/database` split into its parts.
package struct DatabaseURL: Sendable {
    package var host: String, port: Int, user: String, password: String?, database: String

    package init(_ text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty
        else {
            throw ConfigurationError("DATABASE_URL is not postgres://user@host[:port]/database")
        }
        self.host = host
        port = components.port ?? 5432
        user = components.user ?? "postgres"
        password = components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? user : path
    }
}
