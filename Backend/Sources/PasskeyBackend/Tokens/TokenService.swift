import Crypto
import Foundation
import HTTPTypes
import JWTKit
import Synchronization
import WebAuthnRP

/// The claims of an access token (RFC 9068's profile): who (`sub`, the user handle in base64url),
/// for whom (`aud`), from whom (`iss`), when (`iat`, `exp`, `auth_time`), which (`jti`), and the
/// refresh-token family it belongs to (`sid`), which the server checks is still alive.
package struct AccessClaims: JWTPayload {
    package var iss: IssuerClaim
    package var aud: AudienceClaim
    package var sub: SubjectClaim
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim
    package var jti: IDClaim
    package var sid: String
    /// When the passkey ceremony that began the family happened, seconds since 1970.
    package var auth_time: Int

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// The RFC 6749 §5.1 answer to a successful sign-in or refresh (never cached), with an OpenID
/// Connect `id_token` when the server issues them.
package struct TokenResponse: Encodable, Sendable {
    package var access_token: String
    package var token_type = "Bearer"
    package var expires_in: Int
    package var refresh_token: String
    package var id_token: String? = nil
}

/// The claims of an OpenID Connect ID token (OpenID Connect Core §2): the user (`sub`, the user
/// handle in base64url) to the client (`aud`), from the issuer, with the passkey ceremony's time.
package struct IDTokenClaims: JWTPayload {
    package var iss: IssuerClaim
    package var sub: SubjectClaim
    package var aud: AudienceClaim
    package var exp: ExpirationClaim
    package var iat: IssuedAtClaim
    package var auth_time: Int

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// Issues and checks the tokens an app holds: short-lived ES256 JWT access tokens signed by the
/// fleet's newest key, and opaque refresh tokens (stored hashed) rotated at every use, with reuse
/// detection. The signing keys live in ``SigningKeyStore`` (PostgreSQL: shared by every node),
/// sealed under a key derived from SESSION_KEY so a copy of the table signs nothing.
package final class TokenService: Sendable {
    package let issuer: String
    package let audience: String
    package let accessLifetime: TimeInterval
    package let refreshLifetime: TimeInterval
    package let reuseInterval: TimeInterval
    /// The `aud` of the ID tokens issued with every token response (nil: none issued).
    package let idTokenAudience: String?
    package let rotateAfter: TimeInterval
    package let refreshTokens: any RefreshTokenStore
    package let keyStore: any SigningKeyStore
    private let keys: KeyCache

    package init(config: PasskeyBackendConfiguration, refreshTokens: any RefreshTokenStore, keyStore: any SigningKeyStore) {
        issuer = config.tokenIssuer
        audience = config.tokenAudience
        accessLifetime = config.accessTokenLifetime
        refreshLifetime = config.refreshTokenLifetime
        reuseInterval = config.refreshReuseInterval
        idTokenAudience = config.idTokenAudience
        rotateAfter = config.signingKeyRotation
        self.refreshTokens = refreshTokens
        self.keyStore = keyStore
        let wrapping = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: config.sessionKey),
            info: Data("PasskeyServer signing keys v1".utf8), outputByteCount: 32)
        keys = KeyCache(store: keyStore, wrapping: wrapping, rotateAfter: config.signingKeyRotation)
    }

    package static func invalidToken(_ message: String) -> AppError {
        var error = AppError(.unauthorized, message)
        error.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
        return error
    }

    /// A token family drawn for a ceremony about to be verified: its id, first refresh token and
    /// expiry, so a login's counter update can store it in the same statement.
    package struct PreparedFamily: Sendable {
        let refreshToken: String
        let pending: PendingTokenFamily
    }

    /// Draws a family for a sign-in at `now`, for this server's audience, bound to the App Attest
    /// key the sign-in's request was asserted by (if any).
    package func prepareFamily(now: Date, appKey: AppKey? = nil) -> PreparedFamily {
        let refresh = Self.randomToken(32)
        return PreparedFamily(
            refreshToken: refresh,
            pending: PendingTokenFamily(
                id: Self.randomToken(16), authTime: now, audience: audience, refreshTokenHash: Self.hash(refresh),
                refreshTokenExpiresAt: now.addingTimeInterval(refreshLifetime), appKey: appKey))
    }

    /// The signing key, loaded (from the store, when this node's copy is old) before anything
    /// is spent or stored: a store failure is a 503 that changed nothing. Signing with it reads
    /// nothing more.
    package func signer(now: Date) async throws -> AccessTokenSigner { try await keys.signer(now: now) }

    /// The first tokens of `prepared` for the verified ceremony of `userHandle` and
    /// `credentialId`, signed with `signer`. The ceremony's own write (the login's counter update
    /// or the registration's transaction) stored the family.
    package func start(
        _ prepared: PreparedFamily, userHandle: [UInt8], credentialId: [UInt8], signer: AccessTokenSigner, now: Date
    ) async throws -> TokenResponse {
        let family = TokenFamily(
            id: prepared.pending.id, userHandle: userHandle, credentialId: credentialId, authTime: prepared.pending.authTime,
            audience: audience)
        return try await answer(family: family, refreshToken: prepared.refreshToken, signer: signer, now: now)
    }

    /// `grant_type=refresh_token`: spends the token and answers a new pair; a token presented a
    /// second time revokes its whole family, and a token of a family issued for another audience
    /// refreshes nothing here. The signing key is loaded first and the access token is signed
    /// inside the rotation, before it commits: a refresh that answers 503 spent nothing, and one
    /// that spent its token answers its successor (after the commit is acknowledged).
    package func refresh(_ token: String, appKey: AppKey? = nil, now: Date) async throws -> TokenResponse {
        guard token.utf8.count == 43 else { throw OAuthError.invalidGrant("The refresh token is not valid.") }
        let next = Self.randomToken(32)
        let signer = try await keys.signer(now: now)
        let signed = SignedAccessToken()
        do {
            switch try await refreshTokens.rotate(
                tokenHash: Self.hash(token), newHash: Self.hash(next),
                newExpiresAt: now.addingTimeInterval(refreshLifetime), audience: audience, appKey: appKey,
                reuseInterval: reuseInterval, now: now,
                issue: { family in
                    let answer = try await self.answer(family: family, refreshToken: next, signer: signer, now: now)
                    signed.value.withLock { $0 = answer }
                })
            {
            case .invalid:
                throw OAuthError.invalidGrant("The refresh token is not valid.")
            case .wrongKey:
                throw OAuthError.invalidGrant("This sign-in is bound to its app's App Attest key: refresh with an assertion of that key.")
            case .reused:
                throw OAuthError.invalidGrant("The refresh token was already used: its sign-in is revoked.")
            case .rotated:
                // The answer `issue` signed for the rotated family, before the rotation committed.
                guard let answer = signed.value.withLock({ $0 }) else { throw OAuthError.invalidGrant("The refresh token is not valid.") }
                return answer
            }
        } catch let error as OAuthError {
            throw error
        } catch {
            // Failed after the access token was signed: at COMMIT, whose acknowledgement was lost
            // (the connection dropped). Whether it committed is the new token's presence: if it
            // is stored, the presented one is spent and this answer is its successor.
            guard let answer = signed.value.withLock({ $0 }),
                (try? await refreshTokens.isStored(tokenHash: Self.hash(next))) == true
            else { throw error }
            return answer
        }
    }

    private func answer(family: TokenFamily, refreshToken: String, signer: AccessTokenSigner, now: Date) async throws -> TokenResponse {
        let claims = AccessClaims(
            iss: IssuerClaim(value: issuer), aud: AudienceClaim(value: [audience]),
            sub: SubjectClaim(value: Base64URLBytes(family.userHandle).base64URL),
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: now.addingTimeInterval(accessLifetime)),
            jti: IDClaim(value: Self.randomToken(16)), sid: family.id,
            auth_time: Int(family.authTime.timeIntervalSince1970))
        let access = try await signer.sign(claims)
        var response = TokenResponse(access_token: access, expires_in: Int(accessLifetime), refresh_token: refreshToken)
        if let idTokenAudience {
            response.id_token = try await signer.sign(
                IDTokenClaims(
                    iss: claims.iss, sub: claims.sub, aud: AudienceClaim(value: [idTokenAudience]), exp: claims.exp, iat: claims.iat,
                    auth_time: claims.auth_time),
                type: "JWT")
        }
        return response
    }

    /// The subject of a bearer access token: its signature (by a published key), `exp`, `iss`
    /// and `aud` verify, and its family is still alive; anything else is `invalid_token`.
    package func subject(accessToken: String, now: Date) async throws -> Subject {
        guard accessToken.utf8.count <= 4_096, let claims = try await keys.verify(accessToken, now: now),
            claims.iss.value == issuer, claims.aud.value.contains(audience)
        else {
            throw Self.invalidToken("The access token is not valid.")
        }
        guard let family = try await refreshTokens.family(id: claims.sid, now: now),
            Base64URLBytes(family.userHandle).base64URL == claims.sub.value
        else {
            throw Self.invalidToken("The access token's sign-in has ended.")
        }
        return Subject(
            userHandle: family.userHandle, credentialId: family.credentialId, signedInAt: family.authTime,
            credential: .accessToken(jti: claims.jti.value, family: family.id))
    }

    /// RFC 7009: a refresh token ends its family; an access token (still verifying) ends its family too.
    package func revoke(_ token: String, now: Date) async throws {
        if token.utf8.count == 43 {
            try await refreshTokens.revoke(tokenHash: Self.hash(token), now: now)
        } else if token.utf8.count <= 4_096, let claims = try await keys.verify(token, now: now) {
            try await refreshTokens.revoke(familyID: claims.sid, now: now)
        }
    }

    /// The published keys (RFC 7517): the newest and the one before it.
    package func jwks(now: Date) async throws -> JWKS { try await keys.jwks(now: now) }

    package static func hash(_ token: String) -> [UInt8] { Array(SHA256.hash(data: Data(token.utf8))) }

    /// `count` bytes from the OS CSPRNG, base64url.
    package static func randomToken(_ count: Int) -> String {
        Base64URLBytes(SecureRandom.bytes(count)).base64URL
    }
}

/// This node's copy of the fleet's signing keys, reloaded from the store every minute (or
/// sooner when a token names a key it does not know), so a key another node made is used and
/// published here too.
package actor KeyCache {
    package let store: any SigningKeyStore
    package let wrapping: SymmetricKey
    package let rotateAfter: TimeInterval
    private var collection = JWTKeyCollection()
    private var published: [(kid: String, key: ES256PrivateKey)] = []
    private var loadedAt: Date?
    private var lastForcedReload: Date?

    package init(store: any SigningKeyStore, wrapping: SymmetricKey, rotateAfter: TimeInterval) {
        self.store = store
        self.wrapping = wrapping
        self.rotateAfter = rotateAfter
    }

    package func signer(now: Date) async throws -> AccessTokenSigner {
        try await load(now: now, force: false)
        guard let newest = published.first else { throw WebAuthnError(.serverFault, step: "signing keys", "no signing key") }
        return AccessTokenSigner(collection: collection, kid: newest.kid)
    }

    /// The claims of a token whose signature and `exp` verify, else nil. A store failure is
    /// thrown (503): an outage is not a verdict on the token.
    package func verify(_ token: String, now: Date) async throws -> AccessClaims? {
        try await load(now: now, force: false)  // a store failure is thrown, not a refusal
        do {
            return try await collection.verify(token, as: AccessClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed || error.errorType == .unknownKID {
            // Another node may have rotated to a key this node has not loaded yet (jwt-kit tries
            // its default key for a kid it does not know): reload, at most once a second, and
            // try once more.
        } catch {
            return nil  // malformed, expired
        }
        guard lastForcedReload.map({ now.timeIntervalSince($0) >= 1 }) ?? true else { return nil }
        lastForcedReload = now
        try await load(now: now, force: true)
        return try? await collection.verify(token, as: AccessClaims.self)
    }

    package func jwks(now: Date) async throws -> JWKS {
        try await load(now: now, force: false)
        return JWKS(
            keys: published.compactMap { kid, key in
                key.publicKey.parameters.map { JWK.ecdsa(.es256, identifier: JWKIdentifier(string: kid), x: $0.x, y: $0.y, curve: .p256) }
            })
    }

    private func load(now: Date, force: Bool) async throws {
        let refreshEvery = min(60, rotateAfter / 2)
        if !force, let loadedAt, now.timeIntervalSince(loadedAt) < refreshEvery { return }
        let wrapping = wrapping
        // Only keys that open under this node's SESSION_KEY count: after SESSION_KEY changes, the
        // keys sealed under the old one are ignored (the store rotates to a new key at once, as if
        // there were none), so tokens and the JWKS keep working with no hand-made SQL, and the
        // access tokens the old keys signed no longer verify (as after any sign-out of everyone).
        let stored = try await store.keys(
            rotateAfter: rotateAfter, now: now, usable: { Self.open($0, wrapping: wrapping) != nil }
        ) {
            let key = ES256PrivateKey()
            let kid = Self.thumbprint(key)
            let sealed =
                (try? ChaChaPoly.seal(
                    Data(key.pemRepresentation.utf8), using: wrapping,
                    authenticating: Data(kid.utf8)
                ).combined) ?? Data()
            return StoredSigningKey(kid: kid, privateKey: Array(sealed), createdAt: now)
        }
        let keys = stored.compactMap { entry in Self.open(entry, wrapping: wrapping).map { (kid: entry.kid, key: $0) } }
        if keys.map(\.kid) != published.map(\.kid) {
            let fresh = JWTKeyCollection()
            for (kid, key) in keys { await fresh.add(ecdsa: key, kid: JWKIdentifier(string: kid)) }
            collection = fresh
            published = keys
        }
        loadedAt = now
    }

    /// The private key of `entry`, if it opens under `wrapping` (nil: sealed under another SESSION_KEY, or damaged).
    package static func open(_ entry: StoredSigningKey, wrapping: SymmetricKey) -> ES256PrivateKey? {
        guard let box = try? ChaChaPoly.SealedBox(combined: entry.privateKey),
            let pem = try? ChaChaPoly.open(box, using: wrapping, authenticating: Data(entry.kid.utf8))
        else { return nil }
        return try? ES256PrivateKey(pem: String(decoding: pem, as: UTF8.self))
    }

    /// The RFC 7638 thumbprint of the public key, as its `kid`.
    package static func thumbprint(_ key: ES256PrivateKey) -> String {
        guard let parameters = key.publicKey.parameters else { return TokenService.randomToken(16) }
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(parameters.x)\",\"y\":\"\(parameters.y)\"}"
        return Base64URLBytes(Array(SHA256.hash(data: Data(canonical.utf8)))).base64URL
    }
}

/// The answer (access token, and ID token when issued) a rotation signed before its commit (set from inside the rotation).
package final class SignedAccessToken: Sendable {
    package let value = Mutex<TokenResponse?>(nil)
}

/// The signing keys as one node had them when a request began: signs an access token with the
/// newest, in memory (no store call can fail after this is made).
package struct AccessTokenSigner: Sendable {
    package let collection: JWTKeyCollection
    package let kid: String

    /// Signs `claims` with the newest key; `type` is the header's `typ` (RFC 9068's `at+jwt` for
    /// access tokens, `JWT` for ID tokens).
    package func sign(_ claims: some JWTPayload, type: String = "at+jwt") async throws -> String {
        var header = JWTHeader()
        header.typ = type
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid), header: header)
    }
}
