/// What a Play Integrity verdict must carry to answer the request it came with.
public enum PlayIntegrityRequestBinding: Sendable, Hashable {
    /// A classic request's `nonce`: a challenge from ``PlayIntegrityService/issueChallenge(now:)``,
    /// as the app sent it back with the token. The service uses it up first, whatever the
    /// verdict, and the verdict's `requestDetails.nonce` must be exactly this text.
    case nonce(String)
    /// A standard request's `requestHash`: the text the server computes from the request the
    /// token protects (for example base64url of SHA-256 over its method, path and body), as the
    /// app computed it before asking for the token. The verdict's `requestDetails.requestHash`
    /// must be exactly this text.
    case requestHash(String)
}
