import PasskeyServerVaporApp

// The shipped server (Sources/PasskeyServerVaporApp/Server.swift).
try await runServer()
