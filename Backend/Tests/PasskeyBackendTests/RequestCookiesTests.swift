import Testing

@testable import PasskeyBackend

/// The request's backend cookies, read once from its `Cookie` headers: RFC 6265's
/// `cookie-string`, the first pair of a name counting, names compared exactly.
@Suite struct RequestCookiesTests {
    @Test func findsTheBackendsPairsAmongOthers() {
        let cookies = RequestCookies(headers: ["theme=dark; pk_login=abc.def;pk_session=tok  ;\tpk_reg=r.s; last=1"])
        #expect(cookies.login == "abc.def")
        #expect(cookies.session == "tok")
        #expect(cookies.registration == "r.s")
    }

    @Test func namesCompareExactlyAndTheFirstPairCounts() {
        #expect(RequestCookies(headers: ["pk_login_old=1; PK_LOGIN=2; xpk_login=3"]).login == nil)
        #expect(RequestCookies(headers: ["pk_login=first; pk_login=second"]).login == "first")
        // Split header lines (HTTP/2, or a framework that splits crumbs) read in order.
        let split = RequestCookies(headers: ["a=1", "pk_login=crumb; b=2", "pk_login=later; pk_session=s"])
        #expect(split.login == "crumb" && split.session == "s")
        #expect(RequestCookies(headers: ["pk_login="]).login == "")
        #expect(RequestCookies(headers: ["pk_login=a=b"]).login == "a=b")
    }

    @Test func malformedLinesFindNothing() {
        for line in ["", ";;;", "pk_login", "pk_login ; x=1", " = ; =pk_login", "pk_login\u{0}=x", "pk_login =x"] {
            let cookies = RequestCookies(headers: [line])
            #expect(cookies.login == nil && cookies.session == nil && cookies.registration == nil, "\(line)")
        }
        #expect(RequestCookies(headers: [String]()).login == nil)
    }
}
