import Foundation
import Testing
import WebAuthnRP

@testable import PasskeyBackend

/// The signed ceremony state the client carries between options and verification: what is
/// signed reads back whole, and nothing else reads at all.
@Suite struct SignedStateTests {
    let signer = CookieSigner(key: Array(repeating: 7, count: 32))
    let challenge = CeremonyChallenge.sealed("ZmFrZS1zZWFsZWQtdG9rZW4")

    @Test func aSignedPayloadReadsBackWhole() throws {
        let state = challenge
        let payload = CeremonyPayload(state: state, username: "ada \"é\"", userHandle: "AQID", newAccount: true, exp: 1_764_350_000.25)
        let value = try signer.sign(payload, purpose: "registration")
        let read = try #require(signer.verify(value, as: CeremonyPayload.self, purpose: "registration"))
        #expect(read.state == state)
        #expect(read.username == "ada \"é\"")
        #expect(read.userHandle == "AQID")
        #expect(read.newAccount == true)
        #expect(read.exp == 1_764_350_000.25)
        let bare = try #require(
            signer.verify(try signer.sign(CeremonyPayload(exp: 5), purpose: "login"), as: CeremonyPayload.self, purpose: "login"))
        #expect(bare.state == nil && bare.username == nil && bare.userHandle == nil && bare.newAccount == nil && bare.exp == 5)
    }

    @Test func anotherPurposeKeyOrAlteredValueReadsNothing() throws {
        let value = try signer.sign(CeremonyPayload(state: challenge, exp: 9), purpose: "registration")
        #expect(signer.verify(value, as: CeremonyPayload.self, purpose: "authentication") == nil)
        #expect(CookieSigner(key: Array(repeating: 8, count: 32)).verify(value, as: CeremonyPayload.self, purpose: "registration") == nil)
        var altered = Array(value.utf8)
        altered[3] = altered[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(signer.verify(String(decoding: altered, as: UTF8.self), as: CeremonyPayload.self, purpose: "registration") == nil)
        #expect(signer.verify("no-dot", as: CeremonyPayload.self, purpose: "registration") == nil)
        #expect(signer.verify(String(repeating: "A", count: 8_193), as: CeremonyPayload.self, purpose: "registration") == nil)
    }

    /// A correctly signed object whose members are missing or of the wrong kind is refused, not
    /// half read; the previous release's `{"source": …}` state still reads (a rolling deploy).
    @Test func signedMembersAreTyped() throws {
        func read(_ members: [String: JSONValue]) throws -> CeremonyPayload? {
            signer.verify(try signer.sign(Raw(members: members), purpose: "p"), as: CeremonyPayload.self, purpose: "p")
        }
        #expect(try read([:]) == nil)
        #expect(try read(["exp": .string("9")]) == nil)
        #expect(try read(["exp": .number(9), "username": .number(1)]) == nil)
        #expect(try read(["exp": .number(9), "userHandle": .null]) == nil)
        #expect(try read(["exp": .number(9), "newAccount": .string("yes")]) == nil)
        #expect(try read(["exp": .number(9), "state": .string("not a challenge")]) == nil)
        #expect(try read(["exp": .number(9)])?.exp == 9)
        #expect(try read(["exp": .number(9), "state": .object(["source": .string(challenge.serialized)])])?.state == challenge)
        #expect(try read(["exp": .number(9), "state": .string(challenge.serialized)])?.state == challenge)
    }

    private struct Raw: SignedPayload {
        var members: [String: JSONValue]
        init(members: [String: JSONValue]) { self.members = members }
    }
}
