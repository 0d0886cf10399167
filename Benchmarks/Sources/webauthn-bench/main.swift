// webauthn-bench: how close a whole WebAuthn verification comes to libcrypto's own
// signature-verification rate, measured in one run. Speed is measured here, never in tests.
//
// It is the Benchmarks/ sub-package's executable; the cases live in the root package's
// `_WebAuthnBenchmarking` library (Sources/WebAuthnBenchmarking), this target keeps the command
// line, the clock, the output and the valgrind markers. From the repository root:
//
//   swift run --package-path Benchmarks -c release webauthn-bench                 # every case, one line each
//   swift run --package-path Benchmarks -c release webauthn-bench --json          # the same as one JSON object
//   swift run --package-path Benchmarks -c release webauthn-bench --case assertion.es256
//   swift run --package-path Benchmarks -c release webauthn-bench --case assertion.es256 --iterations 2000   # untimed, for valgrind
//
// See Docs/Performance.md for what each case includes and what is outside the timed region.
import Foundation
import WebAuthnBenchmarking

struct Options {
    var json = false
    /// `--case` may be given more than once: those cases run (a case with its yardstick
    /// only when both are named), in the order of the case list.
    var caseNames: [String] = []
    var iterations: Int?
    var setupOnly = false
    var warmup = 0
    var rounds = 21
}

func parseOptions() -> Options? {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--json": options.json = true
        case "--case":
            guard let name = arguments.popFirst() else { return nil }
            options.caseNames.append(name)
        case "--iterations":
            guard let value = arguments.popFirst(), let n = Int(value), n > 0 else { return nil }
            options.iterations = n
        case "--rounds":
            guard let value = arguments.popFirst(), let n = Int(value), n > 0 else { return nil }
            options.rounds = n
        case "--setup-only": options.setupOnly = true
        case "--warmup":
            guard let value = arguments.popFirst(), let n = Int(value), n >= 0 else { return nil }
            options.warmup = n
        default: return nil
        }
    }
    return options
}

let usage = """
    usage: webauthn-bench [--json] [--case NAME] [--rounds N]
           webauthn-bench --case NAME --iterations N [--warmup K] [--setup-only]

      --json          print one JSON object keyed by case name
      --case NAME     run one case (names below); repeat it to run several, e.g.
                      --case limit.rs256 --case assertion.rs256 for one ratio
      --rounds N      timed rounds per case (default 21); the median is reported
      --iterations N  run exactly N operations of the case, untimed (for valgrind)
      --warmup K      with --iterations: first run K operations (caches filled) before the N
      --setup-only    with --iterations: prepare the N operations but do not run them,
                      so external counts can subtract the setup

    cases: \(BenchCases.names.joined(separator: ", "))
    """

guard let options = parseOptions() else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}

// The main thread waits on a semaphore instead of running an async main: the cases
// run on Swift's cooperative pool either way, and valgrind (3.19) cannot run a process
// parked in dispatch_main.
final class ExitCode: @unchecked Sendable {
    var value: Int32 = 1  // written by the task before it signals, read after the wait
}
let finished = DispatchSemaphore(value: 0)
let exitCode = ExitCode()
Task.detached {
    do {
        exitCode.value = try await BenchRunner(options: options).run()
    } catch {
        FileHandle.standardError.write(Data("webauthn-bench: \(error)\n".utf8))
        exitCode.value = 1
    }
    finished.signal()
}
finished.wait()
exit(exitCode.value)
