// swift-tools-version:6.0
// libFuzzer harnesses, one per WebAuthnFuzzing target. Kept out of the root package so that
// `swift build` / `swift test` never need sanitizer flags. Build and run with run.sh.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name, which differs between checkouts.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

/// The WebAuthnFuzzing target names; each harness is `fuzz-<name>` in `Sources/fuzz-<name>/`.
let targets = [
    "cbor", "authenticator-data", "attestation-object", "cose-key", "client-data", "x509", "response-json",
    "registration", "authentication", "fixture",
    "attstmt-packed", "attstmt-fido-u2f", "attstmt-tpm", "attstmt-android-key", "attstmt-android-safetynet",
    "attstmt-apple", "attstmt-compound", "appattest-attestation", "appattest-assertion",
    "metadata-blob", "metadata-payload",
    "extension-outputs",
]

let package = Package(
    name: "webauthn-rp-fuzz",
    products: targets.map { .executable(name: "fuzz-\($0)", targets: ["fuzz-\($0)"]) },
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzShim", dependencies: [.product(name: "_WebAuthnFuzzing", package: rootIdentity)]),
    ] + targets.map { .executableTarget(name: "fuzz-\($0)", dependencies: ["FuzzShim"]) },
    swiftLanguageModes: [.v6]
)
