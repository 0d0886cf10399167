// swift-tools-version:6.0
//
// The backend a passkey server runs, as a package: WebAuthnRP's ceremonies turned into the
// flows a web page and a native app need (sign-up, sign-in, passkey management, sessions,
// RFC 6749 tokens, JWKS, App Attest, association files), storage as protocols with an
// in-memory and a PostgreSQL implementation, and Hummingbird 2 and Vapor 4 adapters. It is its own
// package so the library keeps no package dependency; it depends on the library by path.
//
// - PasskeyBackend: the framework-neutral core (values in, values out; no HTTP framework).
// - PasskeyBackendPostgres: the stores on PostgreSQL through PostgresNIO, with migrations.
// - PasskeyBackendHummingbird: routes, request context and middleware for Hummingbird 2.
// - PasskeyBackendVapor: the same routes, authenticator and middleware for Vapor 4.
// - SoftwarePasskey: a software ES256 passkey for an application's own tests.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "passkey-backend",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PasskeyBackend", targets: ["PasskeyBackend"]),
        .library(name: "PasskeyBackendPostgres", targets: ["PasskeyBackendPostgres"]),
        .library(name: "PasskeyBackendFluent", targets: ["PasskeyBackendFluent"]),
        .library(name: "PasskeyBackendHummingbird", targets: ["PasskeyBackendHummingbird"]),
        .library(name: "PasskeyBackendVapor", targets: ["PasskeyBackendVapor"]),
        .library(name: "SoftwarePasskey", targets: ["SoftwarePasskey"]),
    ],
    dependencies: [
        .package(name: "webauthn-rp", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        // The Vapor 4 adapter. A Hummingbird user resolves Vapor's packages but never builds them
        // (SwiftPM builds only the products a target names).
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        // `app.databases` for the Vapor article's app (the drivers are listed below).
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // The stores on any Fluent SQL database; the drivers are the tests' (and an app's) choice.
        .package(url: "https://github.com/vapor/fluent-kit.git", from: "1.57.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        // ES256 access tokens and the JWKS document.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // Already in the graph through postgres-nio and jwt-kit: HMAC for the signed state,
        // SHA-256 for session ids and token hashes.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0" ..< "5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // Blocking file work (failed-ceremony recordings) runs on NIO's thread pool; a store
        // call's deadline is a task on NIO's event loops.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // The tests' software App Attest device issues its certificate chain (test-only).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        .target(
            name: "PasskeyBackend",
            dependencies: [
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "PasskeyBackendPostgres",
            dependencies: [
                "PasskeyBackend",
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "PasskeyBackendFluent",
            dependencies: [
                "PasskeyBackend",
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
                // To close a PostgreSQL connection a call gave up on (FluentStoreDatabase).
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "PasskeyBackendHummingbird",
            dependencies: [
                "PasskeyBackend",
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "PasskeyBackendVapor",
            dependencies: [
                "PasskeyBackend",
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SoftwarePasskey",
            dependencies: [
                .product(name: "WebAuthnRP", package: "webauthn-rp"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // The article "Add passkeys to a Hummingbird server": its complete app, compiled here and
        // run by QuickStartTests (which also checks that the article shows this file as it is).
        .executableTarget(
            name: "passkey-quickstart",
            dependencies: [
                "PasskeyBackend",
                "PasskeyBackendPostgres",
                "PasskeyBackendHummingbird",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        // The article "Add passkeys to a Vapor server": its complete app, compiled here and run by
        // QuickStartTests (which also checks that the article shows this file as it is).
        .executableTarget(
            name: "passkey-quickstart-vapor",
            dependencies: [
                "PasskeyBackend",
                "PasskeyBackendFluent",
                "PasskeyBackendVapor",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PasskeyBackendTests",
            dependencies: [
                "PasskeyBackend",
                "PasskeyBackendHummingbird",
                "PasskeyBackendVapor",
                "PasskeyBackendPostgres",
                "PasskeyBackendFluent",
                "SoftwarePasskey",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "VaporTesting", package: "vapor"),
                // The store contract runs on both Fluent drivers and on PostgresNIO.
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Verifies the access tokens from the JWKS alone, as a third party would.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
