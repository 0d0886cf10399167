import Foundation
import Testing

/// Keeps libcrypto behind two fences: only files under Sources/WebAuthnCrypto/OpenSSL/ (the
/// shipping crypto layer) and Sources/WebAuthnTestSupport/OpenSSL/ (test-only signing, key
/// generation and certificate building) may import CWebAuthnOpenSSL; the Fuzz/ and Benchmarks/
/// sub-packages none.
struct OpenSSLFenceTests {
    /// The only folders whose files may import libcrypto.
    static let fencedFolders = ["WebAuthnCrypto/OpenSSL/", "WebAuthnTestSupport/OpenSSL/"]

    static var sourcesDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // WebAuthnCryptoTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("Sources")
    }

    /// Whether a Swift file has an import declaration of CWebAuthnOpenSSL (any access level).
    static func importsOpenSSL(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).contains { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let importIndex = words.firstIndex(of: "import"), importIndex + 1 < words.count else { return false }
            let leading = words[..<importIndex]
            let modifiers: Set<Substring> = [
                "internal", "private", "fileprivate", "public", "package",
                "@_implementationOnly", "@preconcurrency", "@testable",
            ]
            guard leading.allSatisfy({ modifiers.contains($0) || $0.hasPrefix("@_spi") }) else { return false }
            return words[importIndex + 1] == "CWebAuthnOpenSSL"
                || words[importIndex + 1].hasPrefix("CWebAuthnOpenSSL.")
        }
    }

    @Test func onlyOpenSSLFolderImportsLibCrypto() throws {
        let root = Self.sourcesDirectory.standardizedFileURL
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        var swiftFiles = 0
        var importers: [String] = []
        var offenders: [String] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            swiftFiles += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            guard Self.importsOpenSSL(text) else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            importers.append(relative)
            if !Self.fencedFolders.contains(where: { relative.hasPrefix($0) }) { offenders.append(relative) }
        }
        #expect(swiftFiles > 10, "the scan found the Sources folder")
        for folder in Self.fencedFolders {
            #expect(importers.contains { $0.hasPrefix(folder) }, "files in \(folder) import libcrypto")
        }
        #expect(offenders.isEmpty, "files outside \(Self.fencedFolders) import CWebAuthnOpenSSL: \(offenders)")
    }

    /// The shipping modules take no raw pointer outside the crypto layer's fence: every
    /// `withUnsafe…`, `Unsafe…Pointer` and `OpaquePointer` is in `WebAuthnCrypto/OpenSSL/`.
    @Test func unsafePointersStayInsideTheFence() throws {
        let root = Self.sourcesDirectory.standardizedFileURL
        let shipping = ["WebAuthnCoding/", "WebAuthnCrypto/", "WebAuthnRP/", "WebAuthnReplay/"]
        let markers = [
            "withUnsafe", "UnsafePointer", "UnsafeMutablePointer", "UnsafeBufferPointer",
            "UnsafeMutableBufferPointer", "UnsafeRawPointer", "UnsafeMutableRawPointer", "OpaquePointer",
            "unsafeUninitializedCapacity",
        ]
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        var scanned = 0
        var offenders: [String] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            guard shipping.contains(where: { relative.hasPrefix($0) }), !relative.hasPrefix("WebAuthnCrypto/OpenSSL/") else { continue }
            scanned += 1
            let code = try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            if code.contains(where: { line in markers.contains { line.contains($0) } }) { offenders.append(relative) }
        }
        #expect(scanned > 50, "the scan found the shipping modules")
        #expect(offenders.isEmpty, "raw pointers outside WebAuthnCrypto/OpenSSL/: \(offenders)")
    }

    /// The sub-packages (Fuzz/, Benchmarks/) reach the library through its underscored products
    /// only; none of their files may import libcrypto.
    @Test func subPackagesDoNotImportLibCrypto() throws {
        let root = Self.sourcesDirectory.deletingLastPathComponent()
        var swiftFiles = 0
        var offenders: [String] = []
        for package in ["Fuzz", "Benchmarks"] {
            let sources = root.appendingPathComponent(package).appendingPathComponent("Sources")
            let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                swiftFiles += 1
                if Self.importsOpenSSL(try String(contentsOf: url, encoding: .utf8)) {
                    offenders.append(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)))
                }
            }
        }
        #expect(swiftFiles > 2, "the scan found the sub-packages' sources")
        #expect(offenders.isEmpty, "sub-package files import CWebAuthnOpenSSL: \(offenders)")
    }

    @Test func detectorRecognisesImportForms() {
        #expect(Self.importsOpenSSL("internal import CWebAuthnOpenSSL\n"))
        #expect(Self.importsOpenSSL("import CWebAuthnOpenSSL"))
        #expect(Self.importsOpenSSL("@_implementationOnly import CWebAuthnOpenSSL"))
        #expect(!Self.importsOpenSSL("// import CWebAuthnOpenSSL is forbidden here"))
        #expect(!Self.importsOpenSSL("import WebAuthnCoding"))
    }
}
