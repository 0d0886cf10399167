/// How a ``RelyingPartyService`` carries a challenge from `begin…` to `finish…`, chosen once in
/// its configuration.
///
/// - ``stored(_:)``: the challenge waits in a ``ChallengeStore`` (one database table every node
///   shares, or the in-memory store of one process) until a finish consumes it.
/// - ``sealed(_:replayStore:)``: the challenge is sealed into a token the client carries back
///   (``SealedChallengeKey``), for a fleet that shares nothing but the key and the
///   ``SealedChallengeReplayStore`` that makes each token answer once.
public struct ChallengeTransport: Sendable {
    enum Mode: Sendable {
        case stored(any ChallengeStore)
        case sealed(SealedChallengeKey, any SealedChallengeReplayStore)
    }
    let mode: Mode

    /// Challenges kept in `store` until a finish consumes them.
    /// - Parameter store: the challenge store.
    /// - Returns: the transport.
    public static func stored(_ store: any ChallengeStore) -> ChallengeTransport {
        ChallengeTransport(mode: .stored(store))
    }

    /// Challenges sealed under `key` and carried by the client; `replayStore` records each
    /// token answered, so that it answers one response.
    /// - Parameters:
    ///   - key: the fleet's sealing key.
    ///   - replayStore: where answered tokens are recorded (shared by every node that opens them).
    /// - Returns: the transport.
    public static func sealed(_ key: SealedChallengeKey, replayStore: any SealedChallengeReplayStore) -> ChallengeTransport {
        ChallengeTransport(mode: .sealed(key, replayStore))
    }
}

/// How a `finish…` finds the challenge its response answers: what the server kept from
/// `begin…` (``CeremonyStart/challenge``), or that the client data names it.
///
/// `Codable`, so that it can ride in the server's session or signed cookie as it is.
public struct CeremonyChallenge: Sendable, Hashable, Codable {
    package enum Source: Sendable, Hashable, Codable {
        case session([UInt8])
        case clientData
        case sealed(String)
    }
    package let source: Source

    /// The challenge bytes the server's session kept (with a stored challenge): the response
    /// must answer exactly this one.
    /// - Parameter challenge: the challenge bytes from the options.
    /// - Returns: the value.
    public static func session(_ challenge: [UInt8]) -> CeremonyChallenge {
        CeremonyChallenge(source: .session(challenge))
    }

    /// The response's client data names the challenge, which must be outstanding in the
    /// challenge store (a discoverable login whose server kept no session state).
    public static let fromClientData = CeremonyChallenge(source: .clientData)

    /// The token a sealed `begin…` handed to the client, as the client sent it back.
    /// - Parameter token: the sealed challenge.
    /// - Returns: the value.
    public static func sealed(_ token: String) -> CeremonyChallenge {
        CeremonyChallenge(source: .sealed(token))
    }
}

/// What a `begin…` returns: the options for the client, and what `finish…` needs back.
public struct CeremonyStart<Options: Sendable>: Sendable {
    /// The options for `PublicKeyCredential.parse…OptionsFromJSON`.
    public let options: Options
    /// What to pass to `finish…`: ``CeremonyChallenge/session(_:)`` with the issued challenge
    /// when challenges are stored, ``CeremonyChallenge/sealed(_:)`` with the token when they
    /// are sealed (send the token to the client, or keep it in a signed cookie).
    public let challenge: CeremonyChallenge
}

/// Receives every ceremony a `finish…` reaches a verdict on, as a ``CeremonyRecording`` (the
/// issued options, the response, the record as it stood, the policy and the verdict), before
/// the finish returns or throws. Pass one to `finish…` to record ceremonies, for example the
/// failed ones, for `webauthn-replay`.
public protocol CeremonyObserver: Sendable {
    /// Called once per finished ceremony, accepted or rejected (not for a storage failure).
    /// - Parameter recording: the ceremony.
    func ceremonyFinished(_ recording: CeremonyRecording) async
}
