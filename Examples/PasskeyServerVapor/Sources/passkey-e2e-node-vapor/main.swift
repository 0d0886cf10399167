import Foundation
import PasskeyServerVaporApp

// The end-to-end tests' node (Examples/PasskeyServer/Tests/run-e2e.sh): the shipped server, plus
// the one option the tests need and the shipped server cannot set, as the Hummingbird example's
// passkey-e2e-node has it. E2E_UPDATE_DELAY_MS makes every login's counter update wait, so a
// second login of the same credential can overtake it (Tests/e2e.py, overtaken_login).
let delay = ProcessInfo.processInfo.environment["E2E_UPDATE_DELAY_MS"].flatMap { Int($0) }.map { min(max($0, 0), 10_000) }
try await runServer(loginWriteDelay: delay.map { .milliseconds($0) })
