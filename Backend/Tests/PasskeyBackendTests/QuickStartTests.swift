import Foundation
import Testing

/// Each article ("Add passkeys to a Hummingbird server", "… to a Vapor server") shows its app as
/// the package compiles it (the `passkey-quickstart` and `passkey-quickstart-vapor` targets), and
/// that app stays small: a new server gets passkeys, tokens and App Attest with at most 40 lines
/// of its own Swift. (The end-to-end run serves both: Tests/quickstart.py.)
@Suite struct QuickStartTests {
    /// One article and the app it shows.
    struct QuickStart: Sendable, CustomTestStringConvertible {
        var article: String
        var app: String
        /// The products the app imports, each of which the manifest must name.
        var products: [String]
        var testDescription: String { app }
    }

    /// Modules an app may import without naming them: the toolchain's, and those the products
    /// depend on publicly.
    static let comesWithTheProducts: Set = ["Foundation", "Logging", "ServiceLifecycle"]

    static let quickStarts = [
        QuickStart(
            article: "Sources/PasskeyBackendHummingbird/PasskeyBackendHummingbird.docc/AddPasskeysToAHummingbirdServer.md",
            app: "Sources/passkey-quickstart/main.swift",
            products: ["PasskeyBackend", "PasskeyBackendPostgres", "PasskeyBackendHummingbird", "Hummingbird"]),
        QuickStart(
            article: "Sources/PasskeyBackendVapor/PasskeyBackendVapor.docc/AddPasskeysToAVaporServer.md",
            app: "Sources/passkey-quickstart-vapor/main.swift",
            products: [
                "PasskeyBackend", "PasskeyBackendFluent", "PasskeyBackendVapor", "Vapor", "Fluent", "FluentSQLiteDriver",
                "FluentPostgresDriver",
            ]),
    ]

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

    @Test(arguments: quickStarts) func theArticleShowsTheCompiledAppAsItIs(_ quickStart: QuickStart) throws {
        let shown = try Self.block(after: "`Sources/Server/main.swift`, complete:", in: try Self.read(quickStart.article))
        #expect(shown == (try Self.read(quickStart.app)))
    }

    /// Lines of Swift: neither blank nor comment-only.
    @Test(arguments: quickStarts) func theAppIsAtMostFortyLines(_ quickStart: QuickStart) throws {
        let code = try Self.read(quickStart.app).split(separator: "\n").filter {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return !line.isEmpty && !line.hasPrefix("//")
        }
        #expect(code.count <= 40, "\(code.count) lines")
        #expect(code.count >= 10)  // the whole app, not a stub
    }

    /// The manifest the article shows names the products the app imports.
    @Test(arguments: quickStarts) func theManifestNamesEveryProductTheAppImports(_ quickStart: QuickStart) throws {
        let manifest = try Self.block(after: "### The package manifest", in: try Self.read(quickStart.article))
        let app = try Self.read(quickStart.app)
        for module in quickStart.products {
            #expect(app.contains("import \(module)\n"))
            #expect(manifest.contains(".product(name: \"\(module)\""), "\(module)")
        }
        let imported = app.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { String($0.dropFirst("import ".count)) }
        for module in imported where !Self.comesWithTheProducts.contains(module) {
            #expect(quickStart.products.contains(module), "\(module) is imported but not a product of the manifest")
        }
    }
}
