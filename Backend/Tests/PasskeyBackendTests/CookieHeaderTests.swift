import Testing

@testable import PasskeyBackend

/// The one-pass cookie lookup the adapters use: RFC 6265's `cookie-string`, the first pair of a
/// name counting, names compared exactly.
@Suite struct CookieHeaderTests {
    @Test func findsTheNamedPairAmongOthers() {
        let line = "theme=dark; pk_login=abc.def;pk_session=tok  ;\tlast=1"
        #expect(CookieHeader.value(of: "pk_login", in: [line]) == "abc.def")
        #expect(CookieHeader.value(of: "pk_session", in: [line]) == "tok")
        #expect(CookieHeader.value(of: "last", in: [line]) == "1")
        #expect(CookieHeader.value(of: "theme", in: [line]) == "dark")
    }

    @Test func namesCompareExactlyAndTheFirstPairCounts() {
        #expect(CookieHeader.value(of: "pk_login", in: ["pk_login_old=1; PK_LOGIN=2; xpk_login=3"]) == nil)
        #expect(CookieHeader.value(of: "pk_login", in: ["pk_login=first; pk_login=second"]) == "first")
        #expect(CookieHeader.value(of: "pk_login", in: ["a=1", "pk_login=crumb; b=2", "pk_login=later"]) == "crumb")
        #expect(CookieHeader.value(of: "pk_login", in: ["pk_login="]) == "")
    }

    @Test func malformedLinesFindNothing() {
        for line in ["", ";;;", "pk_login", "pk_login ; x=1", " = ; =pk_login", "pk_login\u{0}=x"] {
            #expect(CookieHeader.value(of: "pk_login", in: [line]) == nil, "\(line)")
        }
        #expect(CookieHeader.value(of: "pk_login", in: [String]()) == nil)
    }
}
