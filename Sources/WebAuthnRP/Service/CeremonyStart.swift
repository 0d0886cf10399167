/// What a `begin…` returns: the options for the client, and what `finish…` needs back.
public struct CeremonyStart<Options: Sendable>: Sendable {
    /// The options for `PublicKeyCredential.parse…OptionsFromJSON`.
    public let options: Options
    /// What to pass to `finish…`: ``CeremonyChallenge/session(_:)`` with the issued challenge
    /// when challenges are stored, ``CeremonyChallenge/sealed(_:)`` with the token when they
    /// are sealed (send the token to the client, or keep it in a signed cookie). Keep it as
    /// ``CeremonyChallenge/serialized`` and read it back with ``CeremonyChallenge/init(serialized:)``.
    public let challenge: CeremonyChallenge
}
