// swift-tools-version:6.0
//
// A passkey server built on WebAuthnRP, Hummingbird 2 and PostgreSQL: the production shape the
// library is meant for. This is its own package so the library itself keeps no package
// dependency; it depends on the library by path.
//
// Shaped like Hummingbird's own examples: the application (`buildApplication`, its controllers,
// request context, middleware and repositories) is the target PasskeyServerApp; the executable
// PasskeyServer only reads the environment and runs it. `swift run PasskeyServer` serves
// http://localhost:8080 in memory; `swift test` runs the in-process tests.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "PasskeyServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "PasskeyServer", targets: ["PasskeyServer"]),
        .executable(name: "passkey-load", targets: ["passkey-load"]),
    ],
    dependencies: [
        .package(name: "webauthn-rp", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // ES256 access tokens and the JWKS document.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // Already in the graph through postgres-nio and jwt-kit; HMAC for the signed cookies.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0" ..< "5.0.0"),
        // The tests' software App Attest device issues its certificate chain (test-only).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        .target(
            name: "PasskeyServerApp",
            dependencies: [
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Public")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "PasskeyServer",
            dependencies: ["PasskeyServerApp"],
            swiftSettings: strictSettings
        ),
        // The end-to-end tests' node: the same application with one test-only option (each
        // login's counter update waits, to stage a lost-update race). Never shipped.
        .executableTarget(
            name: "passkey-e2e-node",
            dependencies: ["PasskeyServerApp"],
            swiftSettings: strictSettings
        ),
        // A software passkey (ES256, `none` attestation) for the load generator and the tests.
        .target(
            name: "SoftwarePasskey",
            dependencies: [
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // The load generator: login flows over keep-alive HTTP/1.1 on plain sockets, one thread
        // per connection, requests prepared once, so its own CPU per login stays small beside
        // the server's (Docs/Performance.md); and the library's in-process login rate.
        .executableTarget(
            name: "passkey-load",
            dependencies: [
                "SoftwarePasskey",
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PasskeyServerTests",
            dependencies: [
                "PasskeyServerApp",
                "SoftwarePasskey",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // Verifies the access tokens from the JWKS alone, as a third party would.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/PasskeyServerTests",
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
