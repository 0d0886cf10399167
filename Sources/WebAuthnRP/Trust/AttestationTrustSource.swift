public import Foundation
public import WebAuthnCrypto

// Step 24 asks a trust source about each statement of a registration: what it is asked
// (`AttestedAuthenticator`), what it answers (`AuthenticatorTrust`), the protocol, and its
// simplest source, `FixedTrustAnchors`. The metadata source is `MetadataTrust` (MetadataTrust.swift).

/// The authenticator a registration's attestation speaks for, as a trust source sees it
/// after the attestation statement verified (W3C L3 §7.1 step 24).
public struct AttestedAuthenticator: Sendable {
    /// The AAGUID from the attested credential data (all zero for fido-u2f). Only statements
    /// whose signature covers the authenticator data vouch for it (packed, tpm, android-key,
    /// android-safetynet, apple): a `fido-u2f` statement signs none, so a source should not let
    /// the AAGUID choose anything for a fido-u2f chain (``MetadataTrust`` uses the attestation
    /// certificate's key identifier instead).
    public let aaguid: AAGUID
    /// The attestation statement format (`fmt`).
    public let format: String
    /// The verified attestation type.
    public let type: AttestationType
    /// The attestation trust path as presented, leaf first (empty for none and self). A
    /// `compound` statement is never asked about as a whole: each of its sub-statements is, with
    /// its own format, type and path.
    public let trustPath: [Certificate]
    /// Whether the statement vouches for ``aaguid``: its signature covers the authenticator data
    /// (packed, tpm, android-key, android-safetynet, apple). A `fido-u2f` statement signs no
    /// AAGUID, and `none` signs nothing: whoever wrote the authenticator data chose the AAGUID.
    let aaguidAttested: Bool

    /// Creates the description.
    /// - Parameters:
    ///   - aaguid: the AAGUID.
    ///   - format: the statement format.
    ///   - type: the attestation type.
    ///   - trustPath: the certificates presented, leaf first.
    ///   - aaguidAttested: whether the statement's signature covers the AAGUID.
    init(aaguid: AAGUID, format: String, type: AttestationType, trustPath: [Certificate], aaguidAttested: Bool) {
        self.aaguid = aaguid
        self.format = format
        self.type = type
        self.trustPath = trustPath
        self.aaguidAttested = aaguidAttested
    }
}

/// What a trust source says about one authenticator: the anchors its chain may end in and,
/// when the source knows it, its name and metadata. Made by a source, read by the library
/// (the name and metadata reach the server in ``AttestationResult``).
public struct AuthenticatorTrust: Sendable {
    /// The trust anchors for this authenticator (may be empty: then no chain is trusted).
    var anchors: [Certificate]
    /// The authenticator's name for people (the metadata statement's description), if known.
    var authenticatorName: String?
    /// The metadata entry the decision was taken from, if any.
    var metadata: MetadataEntry?
    /// True when the metadata used was past its nextUpdate and the policy accepted it anyway.
    var metadataStale: Bool
    /// Keys that anchor nothing: a path built through a certificate holding one is not trusted,
    /// whichever anchor it ends in (``MetadataTrust``: the keys compromise reports name).
    var compromisedKeys = CompromisedKeys()

    /// Creates a decision.
    /// - Parameters:
    ///   - anchors: trust anchors for this authenticator.
    ///   - authenticatorName: its name, if known.
    ///   - metadata: the metadata entry used, if any.
    ///   - metadataStale: whether that metadata is past its nextUpdate.
    public init(
        anchors: [Certificate], authenticatorName: String? = nil, metadata: MetadataEntry? = nil,
        metadataStale: Bool = false
    ) {
        self.anchors = anchors
        self.authenticatorName = authenticatorName
        self.metadata = metadata
        self.metadataStale = metadataStale
    }

    /// A decision that also names the keys no path may run through.
    init(
        anchors: [Certificate], authenticatorName: String? = nil, metadata: MetadataEntry? = nil,
        metadataStale: Bool, compromisedKeys: CompromisedKeys
    ) {
        self.init(anchors: anchors, authenticatorName: authenticatorName, metadata: metadata, metadataStale: metadataStale)
        self.compromisedKeys = compromisedKeys
    }
}

/// Where the trust anchors for an attested authenticator come from (W3C L3 §7.1 step 24:
/// "obtain a list of acceptable trust anchors … from a trusted source").
///
/// The library provides ``FixedTrustAnchors`` and ``MetadataTrust``; a server can implement
/// its own (an enterprise list, an allow-list of AAGUIDs). Throwing refuses the registration:
/// use category `metadata` for "this authenticator is not allowed".
public protocol AttestationTrustSource: Sendable {
    /// The anchors (and what is known) for one authenticator.
    /// - Parameters:
    ///   - authenticator: the verified attestation's authenticator.
    ///   - time: the verification time.
    /// - Returns: the anchors its chain may end in.
    /// - Throws: ``WebAuthnError`` when the authenticator is refused outright.
    func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust
}

/// The same fixed list of anchors for every authenticator.
public struct FixedTrustAnchors: AttestationTrustSource {
    /// The anchors.
    let anchors: [Certificate]

    /// Creates the source.
    /// - Parameter anchors: roots (or intermediates) a chain may end in. A self-signed
    ///   certificate inside `x5c` is never an anchor by itself.
    public init(_ anchors: [Certificate]) {
        self.anchors = anchors
    }

    /// Returns the anchors it was created with, whatever the authenticator.
    public func trust(for authenticator: AttestedAuthenticator, at time: Date) throws(WebAuthnError) -> AuthenticatorTrust {
        AuthenticatorTrust(anchors: anchors)
    }
}
