import FluentKit
import SQLKit
import WebAuthnRP

/// The stores' schema as Fluent migrations, in order. Fluent's `Migrator` runs each once and
/// records it in its own log (`_fluent_migrations`), under the names below; a released
/// migration is never edited, a change is a new one at the end.
enum PasskeyMigrations {
    static let all: [any Migration] = [
        CreateAccounts(), CreateCeremonyState(), CreateTokens(), CreateAppAttestKeys(), CreateAndroidAppKeys(),
    ]

    /// The SQL side of a migration's database, for the indexes Fluent's schema builder does not make.
    static func sql(_ database: any Database) throws -> any SQLDatabase {
        guard let sql = database as? any SQLDatabase else {
            throw WebAuthnError(.serverFault, step: "database", "the passkey stores need a Fluent SQL database")
        }
        return sql
    }

    /// Creates the index `name` on `table`'s `columns`.
    static func index(_ name: String, on table: String, _ columns: String..., in database: any Database) async throws {
        var builder = try sql(database).create(index: name).on(table)
        for column in columns { builder = builder.column(column) }
        try await builder.run()
    }
}

extension PasskeyMigrations {
    /// Runs the migrations the database has not had, through Fluent's `Migrator` (its log is
    /// `_fluent_migrations`). Fluent does not serialize nodes that migrate at the same instant:
    /// the one that loses the race fails on a table the other just made, so a failed batch is
    /// tried again (up to three times, a second apart), when the winner's log says it is done.
    static func run(on store: FluentStoreDatabase) async throws {
        let migrations = Migrations()
        migrations.add(all, to: store.id)
        let database = try store.database()
        let migrator = Migrator(databaseFactory: { _ in database }, migrations: migrations, on: database.eventLoop)
        var attempt = 1
        while true {
            do {
                try await migrator.setupIfNeeded().get()
                try await migrator.prepareBatch().get()
                store.logger.info("schema ready (\(all.count) Fluent migrations)")
                return
            } catch let error where attempt < 3 {
                store.logger.warning("schema: migration failed, again in a second: \(String(reflecting: error))")
                attempt += 1
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
