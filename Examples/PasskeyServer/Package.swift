// swift-tools-version:6.0
//
// A passkey server built on WebAuthnRP, Hummingbird 2 and PostgreSQL: the production shape the
// library is meant for. This is its own package so the library itself keeps no package
// dependency; it depends on the library by path.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "PasskeyServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "webauthn-rp", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Already in the graph through postgres-nio; HMAC for the signed cookies.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3" ..< "5.0.0"),
        // The load generator's HTTP client (already in Hummingbird's graph).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "PasskeyServer",
            dependencies: [
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Public")],
            swiftSettings: strictSettings
        ),
        // Registration and login flows over HTTP against a running server, and the library's
        // in-process login rate in the same run (Docs/Performance.md).
        .executableTarget(
            name: "passkey-load",
            dependencies: [
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
