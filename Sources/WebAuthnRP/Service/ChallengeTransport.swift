/// How a ``RelyingPartyService`` carries a challenge from `begin…` to `finish…`, chosen once in
/// its configuration. An ``AppAttestService`` given the same transport carries its challenges the
/// same way, as a kind of their own that never answers a passkey ceremony.
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
