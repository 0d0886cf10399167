import Foundation
import Testing
import WebAuthnCoding

@testable import WebAuthnFuzzing
@testable import WebAuthnRP

/// The `play-integrity-token` target's fixed keys and sealed mode reach the steps they are there
/// for: a seed's JWS, sealed by the target, decrypts and stops at the signature (the seed is
/// unsigned); a random token stops at the key unwrap; the payload reader answers on its own.
@Suite struct PlayIntegrityTargetTests {
    static let jws =
        Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"requestDetails":{}}"#.utf8)) + "."
        + Base64URL.encode([UInt8](repeating: 0, count: 64))

    @Test("sealed content decrypts under the fixed keys and is judged by its signature")
    func sealedReachesTheSignature() throws {
        #expect(PlayIntegrityTargets.verifier != nil)
        let token = try #require(PlayIntegrityTargets.sealed(Array(Self.jws.utf8)))
        #expect(PlayIntegrityTargets.verdict(token) == "refused signature at Play Integrity signature")
        #expect(PlayIntegrityTargets.token.run([0x01] + Array(Self.jws.utf8)) == nil)
    }

    @Test("a token under another key stops at the unwrap; the payload reader refuses what is not a verdict")
    func otherModes() {
        let token =
            [Base64URL.encode(Array(#"{"alg":"A256KW","enc":"A256GCM"}"#.utf8))]
            + [[UInt8](repeating: 1, count: 40), [UInt8](repeating: 2, count: 12), [3], [UInt8](repeating: 4, count: 16)].map {
                Base64URL.encode($0)
            }
        #expect(PlayIntegrityTargets.verdict(token.joined(separator: ".")) == "refused signature at Play Integrity key unwrap")
        #expect(PlayIntegrityPayloadReading.read(Array("[]".utf8)).hasPrefix("refused"))
        for mode: UInt8 in [0, 1, 2, 3] {
            #expect(PlayIntegrityTargets.token.run([mode] + Array("{\"a\":".utf8)) == nil)
        }
    }
}
