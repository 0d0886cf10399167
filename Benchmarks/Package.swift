// swift-tools-version:6.0
// The benchmark executable, `webauthn-bench`. Kept out of the root package (like Fuzz/) so that a
// server depending on webauthn-rp never resolves a benchmark; the cases themselves live in the
// root package's `_WebAuthnBenchmarking` library, which can reach the test authenticator.
// Build and run:
//   swift run --package-path Benchmarks -c release webauthn-bench [--json] [--case NAME] ...
// See Docs/Performance.md.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name, which differs between checkouts.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "webauthn-rp-bench",
    products: [.executable(name: "webauthn-bench", targets: ["webauthn-bench"])],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "webauthn-bench",
            dependencies: [.product(name: "_WebAuthnBenchmarking", package: rootIdentity)],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
