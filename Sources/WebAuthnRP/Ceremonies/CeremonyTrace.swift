/// What happened at each verification step of one ceremony, in order.
///
/// Every verifier records its steps here; `webauthn-replay --explain` prints it.
public struct CeremonyTrace: Sendable {
    /// How a step ended.
    public enum Outcome: Sendable {
        /// The step's condition held.
        case passed
        /// The step did not apply, with the reason.
        case skipped(String)
        /// The step failed with this error; the ceremony stopped here.
        case failed(WebAuthnError)
    }

    /// One step.
    public struct Step: Sendable {
        /// The specification step, for example `§7.1 step 14`.
        public let step: String
        /// What the step checks.
        public let title: String
        /// How it ended.
        public let outcome: Outcome
        /// Extra facts worth showing (a value compared, a choice made).
        public let detail: String?
    }

    /// The steps, in the order they ran.
    public private(set) var steps: [Step] = []

    /// An empty trace.
    public init() {}

    /// Runs one step's check, recording whether it passed or failed.
    mutating func check<T>(_ step: String, _ title: String, detail: String? = nil,
                           _ body: () throws(WebAuthnError) -> T) throws(WebAuthnError) -> T {
        do {
            let value = try body()
            steps.append(Step(step: step, title: title, outcome: .passed, detail: detail))
            return value
        } catch {
            let located = error.step == nil ? WebAuthnError(error.category, step: step, error.message) : error
            steps.append(Step(step: step, title: title, outcome: .failed(located), detail: detail))
            throw located
        }
    }

    /// Fails a step with an error of `category`.
    mutating func fail(_ step: String, _ title: String, _ category: WebAuthnError.Category,
                       _ message: String) -> WebAuthnError {
        let error = WebAuthnError(category, step: step, message)
        steps.append(Step(step: step, title: title, outcome: .failed(error), detail: nil))
        return error
    }

    /// Records a passed step that needed no check of its own (a computation).
    mutating func note(_ step: String, _ title: String, detail: String? = nil) {
        steps.append(Step(step: step, title: title, outcome: .passed, detail: detail))
    }

    /// Records a step that does not apply.
    mutating func skip(_ step: String, _ title: String, because reason: String) {
        steps.append(Step(step: step, title: title, outcome: .skipped(reason), detail: nil))
    }
}

/// A verdict together with the trace that led to it.
public struct CeremonyReport<Verified: Sendable>: Sendable {
    /// The verified result, or the rejection.
    public let result: Result<Verified, WebAuthnError>
    /// Every step with passed, skipped or failed.
    public let trace: CeremonyTrace
}
