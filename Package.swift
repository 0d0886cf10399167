// swift-tools-version:6.0
//
// A WebAuthn Level 3 relying-party verifier with no package dependencies: the
// standard library, Foundation and the system's OpenSSL 3 libcrypto only.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // An `import` is internal unless marked `public import`, so no lower module leaks into the
    // public surface by accident.
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "webauthn-rp",
    products: [
        .library(name: "WebAuthnRP", targets: ["WebAuthnRP"]),
        .library(name: "WebAuthnCoding", targets: ["WebAuthnCoding"]),
        .library(name: "WebAuthnReplay", targets: ["WebAuthnReplay"]),
        .executable(name: "webauthn-replay", targets: ["webauthn-replay"]),
        // For fuzzers and their regression tests only: every fuzz target as a pure function
        // from bytes to a property verdict (the libFuzzer harnesses in Fuzz/ are thin shims).
        .library(name: "WebAuthnFuzzing", targets: ["WebAuthnFuzzing"]),
    ],
    targets: [
        // The only place C headers enter the build. Imported by WebAuthnCrypto alone.
        .systemLibrary(
            name: "CWebAuthnOpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // CBOR (RFC 8949) and base64url (RFC 4648 §5): pure Swift, no Foundation, no C.
        .target(name: "WebAuthnCoding", swiftSettings: strictSettings),
        // COSE keys, signatures, digests, X.509 and chains: the one layer that talks to libcrypto.
        .target(
            name: "WebAuthnCrypto",
            dependencies: ["WebAuthnCoding", "CWebAuthnOpenSSL"],
            swiftSettings: strictSettings
        ),
        // Parsers, policy, the §7.1/§7.2 ceremonies, attestation formats and the registry.
        .target(
            name: "WebAuthnRP",
            dependencies: ["WebAuthnCoding", "WebAuthnCrypto"],
            swiftSettings: strictSettings
        ),
        // Replays recorded ceremonies (`webauthn-ceremonies/1`); a library so tests can call it.
        .target(name: "WebAuthnReplay", dependencies: ["WebAuthnRP"], swiftSettings: strictSettings),
        // The fuzz targets (Fuzz/ harnesses, WebAuthnFuzzingTests). Not for servers.
        .target(
            name: "WebAuthnFuzzing",
            dependencies: ["WebAuthnRP", "WebAuthnCrypto", "WebAuthnCoding", "WebAuthnReplay"],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "webauthn-replay", dependencies: ["WebAuthnReplay"], swiftSettings: strictSettings),
        // The software authenticator and the Fixtures/ generator: for tests, the benchmark and
        // `webauthn-fixtures`, never linked by a server (no product).
        .target(
            name: "WebAuthnTestSupport",
            dependencies: ["WebAuthnRP", "WebAuthnCrypto", "WebAuthnCoding"],
            swiftSettings: strictSettings
        ),
        // Writes (or checks) the project's own recorded ceremonies in Fixtures/.
        .executableTarget(name: "webauthn-fixtures", dependencies: ["WebAuthnTestSupport"], swiftSettings: strictSettings),
        // Measures whole ceremonies against libcrypto's own verify rate; speed is measured here, not in tests.
        .executableTarget(
            name: "webauthn-bench",
            dependencies: ["WebAuthnTestSupport", "WebAuthnRP", "WebAuthnCrypto", "WebAuthnCoding"],
            swiftSettings: strictSettings
        ),

        .testTarget(name: "WebAuthnCodingTests", dependencies: ["WebAuthnCoding"], swiftSettings: strictSettings),
        .testTarget(
            name: "WebAuthnCryptoTests",
            dependencies: ["WebAuthnCrypto", "WebAuthnCoding"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAuthnRPTests",
            dependencies: ["WebAuthnRP", "WebAuthnCrypto", "WebAuthnCoding", "WebAuthnTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAuthnReplayTests",
            dependencies: ["WebAuthnReplay", "WebAuthnRP", "WebAuthnTestSupport"],
            swiftSettings: strictSettings
        ),
        // Replays Fuzz/FailingCases and Fuzz/Seeds through their targets; hostile inputs per parser.
        .testTarget(
            name: "WebAuthnFuzzingTests",
            dependencies: ["WebAuthnFuzzing", "WebAuthnRP", "WebAuthnCrypto", "WebAuthnCoding"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
