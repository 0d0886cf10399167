import PasskeyServerApp

/// The passkey server: configuration from the environment (README, "Configuration"), stores in
/// PostgreSQL when DATABASE_URL is set and in memory otherwise, one Hummingbird application.
@main
struct App {
    static func main() async {
        await runServer()
    }
}
