/// Receives every ceremony a `finish…` reaches a verdict on, as a ``CeremonyRecording`` (the
/// issued options, the response, the record as it stood, the policy and the verdict), before
/// the finish returns or throws. Pass one to `finish…` to record ceremonies, for example the
/// failed ones, for `webauthn-replay`.
public protocol CeremonyObserver: Sendable {
    /// Called once per finished ceremony, accepted or rejected (not for a storage failure).
    /// - Parameter recording: the ceremony.
    func ceremonyFinished(_ recording: CeremonyRecording) async
}
