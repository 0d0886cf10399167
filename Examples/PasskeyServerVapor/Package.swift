// swift-tools-version:6.0
//
// The passkey server on Vapor 4: the backend package (Backend/: ceremonies, sessions, tokens,
// App Attest, the Vapor adapter, the stores on Fluent) configured from the environment as the
// Hummingbird example is, with the same page (Examples/PasskeyServer's Public folder, served
// from there, not copied). SQLite in a file by default; PostgreSQL when DATABASE_URL is set. The
// end-to-end checks shared with the Hummingbird example run against it
// (Examples/PasskeyServer/Tests/run-e2e.sh, PASSKEY_E2E_SERVERS).
import PackageDescription

let settings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "PasskeyServerVapor",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "PasskeyServerVapor", targets: ["PasskeyServerVapor"]),
        // The end-to-end tests' node: the same server with the one option only the tests set.
        .executable(name: "passkey-e2e-node-vapor", targets: ["passkey-e2e-node-vapor"]),
    ],
    dependencies: [
        .package(name: "passkey-backend", path: "../../Backend"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
    ],
    targets: [
        .target(
            name: "PasskeyServerVaporApp",
            dependencies: [
                .product(name: "PasskeyBackend", package: "passkey-backend"),
                .product(name: "PasskeyBackendFluent", package: "passkey-backend"),
                .product(name: "PasskeyBackendVapor", package: "passkey-backend"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ],
            swiftSettings: settings
        ),
        .executableTarget(name: "PasskeyServerVapor", dependencies: ["PasskeyServerVaporApp"], swiftSettings: settings),
        .executableTarget(name: "passkey-e2e-node-vapor", dependencies: ["PasskeyServerVaporApp"], swiftSettings: settings),
    ],
    swiftLanguageModes: [.v6]
)
