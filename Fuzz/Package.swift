// swift-tools-version:6.0
// libFuzzer harnesses, one per WebAuthnFuzzing target. Kept out of the root package so that
// `swift build` / `swift test` never need sanitizer flags. Build and run with run.sh.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name, which differs between checkouts.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

/// The WebAuthnFuzzing target names, read from the harness folders: each harness is `fuzz-<name>` in
/// `Sources/fuzz-<name>/`. Those folders are the one list kept by hand (run.sh reads them too);
/// `FuzzHarnessListTests` in the root package checks them against WebAuthnFuzzing's targets and
/// the attestation formats.
let harnessSources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources")
let targets = ((try? FileManager.default.contentsOfDirectory(atPath: harnessSources.path)) ?? [])
    .filter { $0.hasPrefix("fuzz-") }.map { String($0.dropFirst("fuzz-".count)) }.sorted()

let package = Package(
    name: "webauthn-rp-fuzz",
    products: targets.map { .executable(name: "fuzz-\($0)", targets: ["fuzz-\($0)"]) },
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzShim", dependencies: [.product(name: "_WebAuthnFuzzing", package: rootIdentity)]),
    ] + targets.map { .executableTarget(name: "fuzz-\($0)", dependencies: ["FuzzShim"]) },
    swiftLanguageModes: [.v6]
)
