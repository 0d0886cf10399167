// swift-tools-version:6.2
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
        // The one library a server depends on.
        .library(name: "WebAuthnRP", targets: ["WebAuthnRP"]),
        .executable(name: "webauthn-replay", targets: ["webauthn-replay"]),
        // Not for servers (the leading underscore says so, as in SwiftNIO): the fuzz targets for
        // the Fuzz/ sub-package, and the benchmark cases (over the software authenticator) for
        // the Benchmarks/ sub-package.
        .library(name: "_WebAuthnFuzzing", targets: ["WebAuthnFuzzing"]),
        .library(name: "_WebAuthnBenchmarking", targets: ["WebAuthnBenchmarking"]),
    ],
    targets: [
        // The only place C headers enter the build. Imported by WebAuthnCrypto alone.
        .systemLibrary(
            name: "CWebAuthnOpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // CBOR (RFC 8949) and base64url (RFC 4648 §5): pure Swift, no Foundation, no C. Like
        // WebAuthnRP it builds with strict memory safety: no unsafe construct compiles there
        // without a warning, so every pointer stays in the crypto layer's OpenSSL/ fence.
        .target(name: "WebAuthnCoding", swiftSettings: strictSettings + [.strictMemorySafety()]),
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
            swiftSettings: strictSettings + [.strictMemorySafety()]
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
        // The software authenticator and the Fixtures/ generator: for tests, the benchmark cases and
        // `webauthn-fixtures`, never linked by a server (no product).
        .target(
            name: "WebAuthnTestSupport",
            // libcrypto for test-only signing, key generation and certificate building,
            // fenced in Sources/WebAuthnTestSupport/OpenSSL like the crypto layer's own calls.
            dependencies: ["WebAuthnRP", "WebAuthnCrypto", "WebAuthnCoding", "CWebAuthnOpenSSL"],
            swiftSettings: strictSettings
        ),
        // Writes (or checks) the project's own recorded ceremonies in Fixtures/.
        .executableTarget(name: "webauthn-fixtures", dependencies: ["WebAuthnTestSupport"], swiftSettings: strictSettings),
        // The cases of the benchmark (Benchmarks/ sub-package, executable `webauthn-bench`): whole
        // ceremonies against libcrypto's own verify rate; speed is measured there, not in tests.
        // Not for servers.
        .target(
            name: "WebAuthnBenchmarking",
            dependencies: ["WebAuthnTestSupport", "WebAuthnRP", "WebAuthnCrypto", "WebAuthnCoding"],
            swiftSettings: strictSettings
        ),

        .testTarget(name: "WebAuthnCodingTests", dependencies: ["WebAuthnCoding"], swiftSettings: strictSettings),
        .testTarget(
            name: "WebAuthnCryptoTests",
            dependencies: ["WebAuthnCrypto", "WebAuthnCoding", "WebAuthnTestSupport"],
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
