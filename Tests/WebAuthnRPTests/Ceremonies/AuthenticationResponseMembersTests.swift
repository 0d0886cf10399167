import Testing

@testable import WebAuthnRP

/// `AuthenticationResponse` keeps its four binary members in one buffer; its public
/// properties still read and write each member on its own, with the semantics of stored
/// properties (value semantics, the client-data parse dropped when the bytes change).
@Suite("AuthenticationResponse members")
struct AuthenticationResponseMembersTests {
    static func response(userHandle: [UInt8]? = [9, 9]) -> AuthenticationResponse {
        AuthenticationResponse(
            id: "AQI", rawId: [1, 2], clientDataJSON: Array("{}".utf8), authenticatorData: [1, 2, 3],
            signature: [4, 5, 6, 7], userHandle: userHandle)
    }

    @Test("the initializer keeps each member and reads an empty user handle as none")
    func initializer() {
        let response = Self.response()
        #expect(response.clientDataJSON == Array("{}".utf8) && response.authenticatorData == [1, 2, 3])
        #expect(response.signature == [4, 5, 6, 7] && response.userHandle == [9, 9])
        #expect(Self.response(userHandle: []).userHandle == nil)
        #expect(Self.response(userHandle: nil).userHandle == nil)
    }

    @Test("setting one member changes that member only")
    func settingOneMember() {
        var response = Self.response()
        response.authenticatorData = [8]
        #expect(response.authenticatorData == [8] && response.clientDataJSON == Array("{}".utf8))
        #expect(response.signature == [4, 5, 6, 7] && response.userHandle == [9, 9])
        response.signature[0] = 0
        #expect(response.signature == [0, 5, 6, 7] && response.authenticatorData == [8])
        response.userHandle = nil
        #expect(response.userHandle == nil && response.signature == [0, 5, 6, 7])
        response.userHandle = []
        #expect(response.userHandle == [], "a stored empty handle stays as set (the initializer alone normalizes)")
        response.clientDataJSON = Array("[]".utf8)
        #expect(response.clientDataJSON == Array("[]".utf8) && response.authenticatorData == [8])
        #expect(response.userHandle == [])
    }

    @Test("id reads back as set, and the verifier's bytes follow it")
    func identifier() {
        var response = Self.response()
        #expect(response.id == "AQI" && Array(response.idText) == Array("AQI".utf8))
        response.id = "é-AQ"
        #expect(response.id == "é-AQ" && Array(response.idText) == Array("é-AQ".utf8))
        let decoded = AuthenticationResponse(plainJSON: Array(PlainJSONFastPathTests.plainAuthentication.utf8)[...])
        #expect(decoded?.id == "AAECAw")
    }

    @Test("a copy keeps its members when the original changes")
    func valueSemantics() {
        var response = Self.response()
        let copy = response
        response.signature = [1]
        response.clientDataJSON = []
        #expect(copy.signature == [4, 5, 6, 7] && copy.clientDataJSON == Array("{}".utf8))
    }

    @Test("members decoded into one buffer are refused when a range lies outside it")
    func rangesWithinStorage() {
        #expect(
            AssertionMembers(
                storage: [1, 2, 3], clientDataJSON: 0..<1, authenticatorData: 1..<2, signature: 2..<3,
                userHandle: nil) != nil)
        #expect(
            AssertionMembers(
                storage: [1, 2, 3], clientDataJSON: 0..<1, authenticatorData: 1..<2, signature: 2..<4,
                userHandle: nil) == nil)
        #expect(
            AssertionMembers(
                storage: [1, 2, 3], clientDataJSON: 0..<1, authenticatorData: 1..<2, signature: 2..<3,
                userHandle: 3..<5) == nil)
    }
}
