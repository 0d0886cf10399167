import Foundation
import WebAuthnBenchmarking

/// Timings of one case: operations per second of each round.
struct CaseResult {
    let name: String
    let limit: String?
    let rates: [Double]
    var median: Double { rates.sorted()[rates.count / 2] }
    var minimum: Double { rates.min() ?? 0 }
    var maximum: Double { rates.max() ?? 0 }
}

struct BenchRunner {
    let options: Options

    func run() async throws -> Int32 {
        let names: [String]
        if options.caseNames.isEmpty {
            names = BenchCases.names
        } else {
            for name in options.caseNames where !BenchCases.names.contains(name) {
                throw BenchFailure("unknown case \(name); cases: \(BenchCases.names.joined(separator: ", "))")
            }
            names = BenchCases.names.filter { options.caseNames.contains($0) }
        }
        if let iterations = options.iterations {
            guard names.count == 1, let name = names.first else {
                throw BenchFailure("--iterations needs --case NAME")
            }
            let benchCase = try BenchCases.make(name, minimumRound: max(iterations, options.warmup))
            try await untimed(benchCase, operations: iterations)
            return 0
        }
        // A case and its yardstick run their rounds interleaved (one round of each in
        // turn), so that load from other processes falls on both alike and the ratio holds.
        var results: [CaseResult] = []
        for group in BenchCases.groups(of: names) {
            let cases = try group.map { try BenchCases.make($0) }
            for result in try await timed(cases) {
                results.append(result)
                if !options.json { print(line(result, among: results)) }
            }
        }
        if options.json { print(json(results)) }
        return 0
    }

    /// `--iterations N`: exactly N operations as one round, no clock. The round is
    /// bracketed by two marker functions, so `valgrind --tool=callgrind
    /// --zero-before=*BenchMeasureBegin* --dump-before=*BenchMeasureEnd*`
    /// counts the operations alone (instructions and calls to malloc).
    func untimed(_ benchCase: any BenchCase, operations: Int) async throws {
        if options.warmup > 0 {
            try await benchCase.prepare(operations: options.warmup)
            try await benchCase.run(operations: options.warmup)
        }
        try await benchCase.prepare(operations: operations)
        if options.setupOnly { return }
        webauthnBenchMeasureBegin()
        try await benchCase.run(operations: operations)
        webauthnBenchMeasureEnd()
    }

    /// Times the cases of one group: a warm-up round of each, then `rounds` rounds of each in turn.
    func timed(_ cases: [any BenchCase]) async throws -> [CaseResult] {
        let clock = ContinuousClock()
        for benchCase in cases {
            try await benchCase.prepare(operations: benchCase.operationsPerRound)
            try await benchCase.run(operations: benchCase.operationsPerRound)
        }
        var rates = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<options.rounds {
            for (index, benchCase) in cases.enumerated() {
                let operations = benchCase.operationsPerRound
                try await benchCase.prepare(operations: operations)
                let start = clock.now
                let done = try await benchCase.runRound(operations: operations)
                let elapsed = start.duration(to: clock.now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                rates[index].append(Double(done) / max(seconds, 1e-9))
            }
        }
        return cases.enumerated().map { index, benchCase in
            CaseResult(name: benchCase.name, limit: benchCase.limit, rates: rates[index])
        }
    }

    /// The ratio to the yardstick: the median, over the rounds, of this case's rate divided
    /// by the yardstick's rate in the round run just before it. The two rounds of a pair
    /// are a fraction of a second apart, so a change in the machine's speed (a shared VM
    /// drifts by a third within seconds) falls on both; the ratio of the two medians
    /// could pair a fast phase with a slow one. On a steady machine the two agree.
    func ratio(_ result: CaseResult, among results: [CaseResult]) -> Double? {
        guard let limit = result.limit, let base = results.first(where: { $0.name == limit }), base.median > 0 else {
            return nil
        }
        guard result.rates.count == base.rates.count, !result.rates.isEmpty,
              base.rates.allSatisfy({ $0 > 0 }) else {
            return result.median / base.median
        }
        let paired = zip(result.rates, base.rates).map { $0 / $1 }.sorted()
        return paired[paired.count / 2]
    }

    func line(_ result: CaseResult, among results: [CaseResult]) -> String {
        let name = result.name.padding(toLength: 32, withPad: " ", startingAt: 0)
        var text = name + String(format: "%12.0f ops/s   (min %.0f, max %.0f)", result.median, result.minimum, result.maximum)
        if let ratio = ratio(result, among: results), let limit = result.limit {
            text += String(format: "   %.3f × %@", ratio, limit)
        }
        return text
    }

    func json(_ results: [CaseResult]) -> String {
        var members: [String] = []
        for result in results {
            var fields = [
                String(format: "\"opsPerSecond\":%.1f", result.median),
                String(format: "\"min\":%.1f", result.minimum),
                String(format: "\"max\":%.1f", result.maximum),
                "\"rounds\":\(result.rates.count)",
            ]
            if let ratio = ratio(result, among: results) { fields.append(String(format: "\"ratioToLimit\":%.4f", ratio)) }
            if let limit = result.limit { fields.append("\"limit\":\"\(limit)\"") }
            members.append("\"\(result.name)\":{" + fields.joined(separator: ",") + "}")
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}

/// Marks the start of the measured operations for callgrind's `--zero-before`.
@inline(never)
func webauthnBenchMeasureBegin() { markerSink.store(1) }

/// Marks the end of the measured operations for callgrind's `--dump-before`.
@inline(never)
func webauthnBenchMeasureEnd() { markerSink.store(2) }

/// Gives the markers a side effect the optimizer must keep.
final class MarkerSink: @unchecked Sendable {
    private var value = 0
    @inline(never) func store(_ v: Int) { value = v }
}
let markerSink = MarkerSink()
