import Foundation
import PasskeyServerApp

// The end-to-end tests' node (Tests/run-e2e.sh): the shipped application, plus the one option
// the tests need and the shipped server cannot set. E2E_UPDATE_DELAY_MS makes every login's
// counter update wait, so a second login of the same credential can overtake it: the
// lost-update race of two concurrent logins, made deterministic (Tests/e2e.py, overtaken_login).
var testing = TestingOptions()
if let text = ProcessInfo.processInfo.environment["E2E_UPDATE_DELAY_MS"], let delay = Int(text), delay > 0 {
    testing.updateDelay = .milliseconds(min(delay, 10_000))
}
await runServer(testing: testing)
