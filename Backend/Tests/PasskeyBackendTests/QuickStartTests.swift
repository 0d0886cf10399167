import Foundation
import Testing

/// The article "Add passkeys to a Hummingbird server" shows its app as the package compiles it
/// (the `passkey-quickstart` target), and that app stays small: a new server gets passkeys, tokens
/// and App Attest with at most 40 lines of its own Swift. (The end-to-end run serves it: Tests/quickstart.py.)
@Suite struct QuickStartTests {
    static let backend = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: backend.appendingPathComponent(path), encoding: .utf8)
    }

    /// The code block that follows `marker` in the article.
    static func block(after marker: String, in article: String) throws -> String {
        let start = try #require(article.range(of: marker))
        let open = try #require(article.range(of: "```swift\n", range: start.upperBound..<article.endIndex))
        let close = try #require(article.range(of: "```", range: open.upperBound..<article.endIndex))
        return String(article[open.upperBound..<close.lowerBound])
    }

    static let article = "Sources/PasskeyBackendHummingbird/PasskeyBackendHummingbird.docc/AddPasskeysToAHummingbirdServer.md"

    @Test func theArticleShowsTheCompiledAppAsItIs() throws {
        let shown = try Self.block(after: "`Sources/Server/main.swift`, complete:", in: try Self.read(Self.article))
        #expect(shown == (try Self.read("Sources/passkey-quickstart/main.swift")))
    }

    /// Lines of Swift: neither blank nor comment-only.
    @Test func theAppIsAtMostFortyLines() throws {
        let code = try Self.read("Sources/passkey-quickstart/main.swift").split(separator: "\n").filter {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return !line.isEmpty && !line.hasPrefix("//")
        }
        #expect(code.count <= 40, "\(code.count) lines")
        #expect(code.count >= 10)  // the whole app, not a stub
    }

    /// The manifest the article shows names the products the app imports.
    @Test func theManifestNamesEveryProductTheAppImports() throws {
        let manifest = try Self.block(after: "### The package manifest", in: try Self.read(Self.article))
        let app = try Self.read("Sources/passkey-quickstart/main.swift")
        for module in ["PasskeyBackend", "PasskeyBackendPostgres", "PasskeyBackendHummingbird", "Hummingbird"] {
            #expect(app.contains("import \(module)\n"))
            #expect(manifest.contains(".product(name: \"\(module)\""), "\(module)")
        }
    }
}
