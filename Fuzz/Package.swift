// swift-tools-version:6.0
// libFuzzer harnesses for the parsers. Kept out of the root package so that
// `swift build` / `swift test` never need sanitizer flags. See run.sh.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name, which differs between checkouts.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let harnesses = ["FuzzCBOR", "FuzzAuthenticatorData", "FuzzAttestationObject", "FuzzClientData", "FuzzCOSEKey"]

let package = Package(
    name: "webauthn-rp-fuzz",
    dependencies: [.package(path: "..")],
    targets: harnesses.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                .product(name: "WebAuthnRP", package: rootIdentity),
                .product(name: "WebAuthnCoding", package: rootIdentity),
            ]
        )
    },
    swiftLanguageModes: [.v6]
)
