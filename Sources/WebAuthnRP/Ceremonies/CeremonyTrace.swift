/// What happened at each verification step of one ceremony, in order.
///
/// Every verifier records its steps here; `webauthn-replay --explain` prints it.
package struct CeremonyTrace: Sendable {
    /// How a step ended.
    enum Outcome: Sendable {
        /// The step's condition held.
        case passed
        /// The step did not apply, with the reason.
        case skipped(String)
        /// The step failed with this error; the ceremony stopped here.
        case failed(WebAuthnError)
    }

    /// One step.
    struct Step: Sendable {
        /// The specification step, for example `§7.1 step 14`.
        let step: String
        /// What the step checks.
        let title: String
        /// How it ended.
        let outcome: Outcome
        /// Extra facts worth showing (a value compared, a choice made).
        let detail: String?
    }

    /// The steps, in the order they ran.
    private(set) var steps: [Step] = []

    /// The steps as a report shows them, in the order they ran: the specification step, what it
    /// checks, `passed`, `skipped` or `failed`, and a note (a passed step's detail, why a step
    /// was skipped, or a failed step's error message).
    package var rows: [(step: String, title: String, outcome: String, note: String?)] {
        steps.map { step in
            switch step.outcome {
            case .passed: return (step.step, step.title, "passed", step.detail)
            case .skipped(let reason): return (step.step, step.title, "skipped", reason)
            case .failed(let error): return (step.step, step.title, "failed", error.message)
            }
        }
    }
    /// Whether steps are kept. A verdict-only finish (no report asked for) runs every
    /// check the same way but keeps no steps, so it builds no step list and no details.
    let isRecording: Bool

    /// An empty trace.
    package init() { isRecording = true }

    /// An empty trace that records steps only when `recording` is true.
    init(recording: Bool) { isRecording = recording }

    /// Runs one step's check, recording whether it passed or failed. The error always
    /// names its step, recorded or not.
    package mutating func check<T>(
        _ step: String, _ title: String, detail: @autoclosure () -> String? = nil,
        _ body: () throws(WebAuthnError) -> T
    ) throws(WebAuthnError) -> T {
        do {
            let value = try body()
            if isRecording { steps.append(Step(step: step, title: title, outcome: .passed, detail: detail())) }
            return value
        } catch {
            let located = error.step == nil ? WebAuthnError(error.category, step: step, error.message) : error
            if isRecording { steps.append(Step(step: step, title: title, outcome: .failed(located), detail: detail())) }
            throw located
        }
    }

    /// Fails a step with an error of `category`.
    mutating func fail(
        _ step: String, _ title: String, _ category: WebAuthnError.Category,
        _ message: String
    ) -> WebAuthnError {
        let error = WebAuthnError(category, step: step, message)
        if isRecording { steps.append(Step(step: step, title: title, outcome: .failed(error), detail: nil)) }
        return error
    }

    /// Records a passed step that needed no check of its own (a computation).
    mutating func note(_ step: String, _ title: String, detail: @autoclosure () -> String? = nil) {
        if isRecording { steps.append(Step(step: step, title: title, outcome: .passed, detail: detail())) }
    }

    /// Records a step that does not apply.
    mutating func skip(_ step: String, _ title: String, because reason: @autoclosure () -> String) {
        if isRecording { steps.append(Step(step: step, title: title, outcome: .skipped(reason()), detail: nil)) }
    }
}

/// A verdict together with the trace that led to it.
package struct CeremonyReport<Verified: Sendable>: Sendable {
    /// The verified result, or the rejection.
    package let result: Result<Verified, WebAuthnError>
    /// Every step with passed, skipped or failed.
    package let trace: CeremonyTrace
}
