// swift-tools-version:6.0
//
// A passkey server: the backend package (Backend/: ceremonies, sessions, tokens, App Attest,
// stores in memory and on PostgreSQL, the Hummingbird adapter) configured from the environment,
// plus what an application really owns: its page, its health route and its process. It depends
// on the backend package by path. `swift run PasskeyServer` serves http://localhost:8080 in
// memory; the backend's in-process tests are the backend package's (`swift test` there), the
// end-to-end tests (Tests/run-e2e.sh) run against this server.
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
        .package(name: "passkey-backend", path: "../../Backend"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // The load generator's software passkey signs with it.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0" ..< "5.0.0"),
    ],
    targets: [
        .target(
            name: "PasskeyServerApp",
            dependencies: [
                .product(name: "PasskeyBackend", package: "passkey-backend"),
                .product(name: "PasskeyBackendPostgres", package: "passkey-backend"),
                .product(name: "PasskeyBackendHummingbird", package: "passkey-backend"),
                .product(name: "Hummingbird", package: "hummingbird"),
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
        // The load generator: login flows over keep-alive HTTP/1.1 on plain sockets, one thread
        // per connection, requests prepared once, so its own CPU per login stays small beside
        // the server's (Docs/Performance.md); and the library's in-process login rate.
        .executableTarget(
            name: "passkey-load",
            dependencies: [
                .product(name: "SoftwarePasskey", package: "passkey-backend"),
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
