import Foundation
import SoftwarePasskey
import WebAuthnRP

// passkey-load [base URL] [seconds] [concurrency] [users]
// Registers `users` accounts over HTTP (or reads them from LOAD_USERS_FILE), then drives each
// flow of LOAD_FLOWS for `seconds` from `concurrency` worker threads, each on its own keep-alive
// connection, and prints per flow the operations per second, p50/p99 latency and where the CPU
// went (the server, PostgreSQL, this generator), from /proc. Flows:
//   web      POST /api/login/options + /api/login/verify (cookies; a session is started)
//   options  POST /api/login/options alone
//   native   POST /native/login/options + /native/login/finish (state in the body; tokens answered)
//   refresh  POST /oauth/token grant_type=refresh_token (rotation; after `native`, which holds the tokens)
// LOAD_USERS_FILE: the accounts (keys and counters) are read from it when it exists and written
// back at the end, so a second server on the same database (sealed challenges, the Python peer)
// logs the same accounts in. LOAD_LIBRARY_RATE=1 adds the library's in-process login rate.
// passkey-load --cpu-seconds PID
// Prints the user + system seconds of PID and its children (CPUTime), for Tests/run-load.sh to
// measure PostgreSQL under pgbench the way the HTTP runs measure it.

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--cpu-seconds", let pid = Int32(arguments[2]) {
    print(CPUTime.seconds(ofTree: pid))
    exit(0)
}
let base = arguments.count > 1 ? arguments[1] : "http://localhost:8080"
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 10 : 10
let concurrency = arguments.count > 3 ? Int(arguments[3]) ?? 16 : 16
let userCount = max(concurrency, arguments.count > 4 ? Int(arguments[4]) ?? concurrency : concurrency)
let environment = ProcessInfo.processInfo.environment
let flows = (environment["LOAD_FLOWS"] ?? "web,native,refresh").split(separator: ",").map(String.init)

struct LoadError: Error, CustomStringConvertible { let description: String }

// http://HOST:PORT, HOST localhost or an IPv4 address; the origin the passkeys sign names localhost.
let url = URLComponents(string: base)
let hostName = url?.host ?? ""
let port = UInt16(exactly: url?.port ?? 0) ?? 0
guard !hostName.isEmpty, port != 0 else { throw LoadError(description: "the base URL is http://HOST:PORT, not \(base)") }
let address = hostName == "localhost" ? "127.0.0.1" : hostName
let hostHeader = "localhost:\(port)"
let origin = "http://localhost:\(port)"

// MARK: Accounts

/// Registers `name` over HTTP (not measured: JSON is read with Foundation here).
func register(_ name: String, on connection: HTTPConnection) throws -> LoadUser {
    let options = try connection.send(
        RequestTemplate(path: "/api/register/options", host: hostHeader).build(body: Array(#"{"username":"\#(name)"}"#.utf8)),
        cookie: Array("pk_reg".utf8))
    guard options.status == 200, let cookie = options.cookie,
        let object = try JSONSerialization.jsonObject(with: Data(options.body)) as? [String: Any],
        let challenge = object["challenge"] as? String,
        let user = object["user"] as? [String: Any], let id = user["id"] as? String
    else {
        throw LoadError(description: "registration options: \(options.status) \(options.text)")
    }
    var passkey = SoftwarePasskey(
        rpId: "localhost", origin: origin, userHandle: try Base64URLBytes(base64URL: id, member: "user.id").bytes)
    let verify = try connection.send(
        RequestTemplate(path: "/api/register/verify", host: hostHeader, cookie: "pk_reg")
            .build(body: Array(passkey.register(challenge: challenge)), cookie: cookie))
    guard verify.status == 200 else { throw LoadError(description: "registration: \(verify.status) \(verify.text)") }
    return LoadUser(name: name, passkey: passkey, rpId: "localhost", origin: origin)
}

let usersFile = environment["LOAD_USERS_FILE"].flatMap { $0.isEmpty ? nil : $0 }
var users: [LoadUser] = []
if let usersFile, let text = try? String(contentsOfFile: usersFile, encoding: .utf8) {
    users = text.split(separator: "\n").compactMap { LoadUser.parse($0, rpId: "localhost", origin: origin) }
    print("\(users.count) accounts from \(usersFile)")
}
if users.count < userCount {
    let run = "load\(Int(Date().timeIntervalSince1970) % 100_000)"
    print("registering \(userCount - users.count) users at \(base)…")
    let connection = try HTTPConnection(host: address, port: port)
    for index in users.count..<userCount { users.append(try register("\(run)-\(index)", on: connection)) }
}

// MARK: Flows

/// One worker's prepared requests and its connection; `step` runs one operation of a flow.
final class Worker: @unchecked Sendable {
    let connection: HTTPConnection
    let users: [LoadUser]
    var latencies: [Double] = []
    var failures = 0
    var firstError: String?
    var body: [UInt8] = []

    let webOptions = RequestTemplate(path: "/api/login/options", host: hostHeader)
    let webVerify = RequestTemplate(path: "/api/login/verify", host: hostHeader, cookie: "pk_login")
    let nativeOptions = RequestTemplate(path: "/native/login/options", host: hostHeader)
    let nativeFinish = RequestTemplate(path: "/native/login/finish", host: hostHeader)
    let token = RequestTemplate(path: "/oauth/token", host: hostHeader, contentType: "application/x-www-form-urlencoded")
    /// The options requests, whole, per user (they never change).
    let optionsRequests: [[UInt8]]
    let nativeOptionsRequests: [[UInt8]]

    static let loginCookie = Array("pk_login".utf8)
    static let challengeKey = Array(#""challenge""#.utf8)
    static let stateKey = Array(#""state""#.utf8)
    static let refreshKey = Array(#""refresh_token""#.utf8)
    static let stateHead = Array(#"{"state":""#.utf8)
    static let credentialKey = Array(#"","credential":"#.utf8)
    static let refreshHead = Array("grant_type=refresh_token&refresh_token=".utf8)

    init(users: [LoadUser]) throws {
        connection = try HTTPConnection(host: address, port: port)
        self.users = users
        optionsRequests = users.map { RequestTemplate(path: "/api/login/options", host: hostHeader).build(body: $0.optionsBody) }
        nativeOptionsRequests = users.map { RequestTemplate(path: "/native/login/options", host: hostHeader).build(body: $0.optionsBody) }
        latencies.reserveCapacity(1 << 16)
    }

    func expect(_ answer: HTTPConnection.Answer, _ what: String) throws {
        guard answer.status == 200 else { throw LoadError(description: "\(what): \(answer.status) \(answer.text)") }
    }

    func step(_ flow: String, _ index: Int) throws {
        let user = users[index]
        switch flow {
        case "web":
            let options = try connection.send(optionsRequests[index], cookie: Self.loginCookie)
            try expect(options, "login options")
            guard let cookie = options.cookie, let challenge = quotedValue(after: Self.challengeKey, in: options.body) else {
                throw LoadError(description: "login options without a challenge or a pk_login cookie")
            }
            body.removeAll(keepingCapacity: true)
            try user.assertion(challenge: challenge, into: &body)
            try expect(try connection.send(webVerify.build(body: body, cookie: cookie)), "login verify")
        case "options":
            try expect(try connection.send(optionsRequests[index]), "login options")
        case "native":
            let options = try connection.send(nativeOptionsRequests[index])
            try expect(options, "native login options")
            guard let state = quotedValue(after: Self.stateKey, in: options.body),
                let challenge = quotedValue(after: Self.challengeKey, in: options.body)
            else {
                throw LoadError(description: "native login options without a state or a challenge")
            }
            body.removeAll(keepingCapacity: true)
            body += Self.stateHead
            body += state
            body += Self.credentialKey
            try user.assertion(challenge: challenge, into: &body)
            body.append(UInt8(ascii: "}"))
            let answer = try connection.send(nativeFinish.build(body: body))
            try expect(answer, "native login finish")
            user.refreshToken = quotedValue(after: Self.refreshKey, in: answer.body)
        case "refresh":
            guard let refresh = user.refreshToken else { throw LoadError(description: "refresh: run the native flow first") }
            let answer = try connection.send(token.build(body: Self.refreshHead + refresh))
            try expect(answer, "refresh")
            user.refreshToken = quotedValue(after: Self.refreshKey, in: answer.body)
        default:
            throw LoadError(description: "no flow \(flow) (web, options, native, refresh)")
        }
    }

    /// Runs `flow` until `deadline` (a monotonic time in nanoseconds), recording each latency.
    func run(_ flow: String, until deadline: UInt64) {
        var index = 0
        while true {
            let begin = monotonicNanoseconds()
            if begin >= deadline { break }
            do { try step(flow, index) } catch {
                failures += 1
                if firstError == nil { firstError = "\(error)" }
            }
            latencies.append(Double(monotonicNanoseconds() - begin) / 1e6)
            index = (index + 1) % users.count
        }
    }
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

// Where the CPU goes: LOAD_SERVER_PIDS and LOAD_POSTGRES_PID (set by Tests/run-load.sh) name the
// server processes and PostgreSQL's postmaster, whose backends are its children.
let serverPids = (environment["LOAD_SERVER_PIDS"] ?? "").split(separator: ",").compactMap { Int32($0) }
let postgresPid = environment["LOAD_POSTGRES_PID"].flatMap { Int32($0) }
func cpuNow() -> (server: Double, postgres: Double, generator: Double) {
    (serverPids.reduce(0) { $0 + CPUTime.seconds(ofTree: $1) }, postgresPid.map(CPUTime.seconds(ofTree:)) ?? 0, CPUTime.ownSeconds())
}
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
}

let descriptions = [
    "web": "web logins (options + verify)", "options": "login options alone",
    "native": "native logins (options + finish, tokens answered)", "refresh": "refresh-token rotations",
]
var anyFailed = false
for flow in flows {
    let workers = try (0..<concurrency).map { worker in
        try Worker(users: stride(from: worker, to: users.count, by: concurrency).map { users[$0] })
    }
    let cpuBefore = cpuNow()
    let started = monotonicNanoseconds()
    let deadline = started + UInt64(seconds * 1e9)
    let finished = DispatchSemaphore(value: 0)
    for worker in workers {
        let thread = Thread {
            worker.run(flow, until: deadline)
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in workers { finished.wait() }
    let wall = Double(monotonicNanoseconds() - started) / 1e9
    let cpuAfter = cpuNow()
    let latencies = workers.flatMap(\.latencies).sorted()
    let failures = workers.reduce(0) { $0 + $1.failures }
    print(
        String(
            format: "%@: %d in %.1f s = %.0f/s; p50 %.2f ms, p99 %.2f ms; %d failed (load average %@)",
            descriptions[flow] ?? flow, latencies.count, wall, Double(latencies.count) / wall,
            percentile(latencies, 0.5), percentile(latencies, 0.99), failures, loadAverage()))
    if let error = workers.lazy.compactMap(\.firstError).first {
        print("  first failure: \(error)")
        anyFailed = true
    }
    if !latencies.isEmpty {
        let per = { (seconds: Double) in seconds * 1e6 / Double(latencies.count) }
        print(
            String(
                format:
                    "CPU per %@: server %.0f µs, PostgreSQL %.0f µs, generator %.0f µs (wall %.0f µs per operation on the machine's cores)",
                flow, per(cpuAfter.server - cpuBefore.server), per(cpuAfter.postgres - cpuBefore.postgres),
                per(cpuAfter.generator - cpuBefore.generator), per(wall)))
    }
}

if let usersFile {
    try users.map(\.line).joined(separator: "\n").write(toFile: usersFile, atomically: true, encoding: .utf8)
}

if environment["LOAD_LIBRARY_RATE"] == "1" {
    // The library alone: begin + finish in process, in-memory stores, the same kind of authenticator.
    let service = RelyingPartyService(relyingParty: RelyingParty(id: "localhost", name: "load", origins: [origin]))
    var local = SoftwarePasskey(rpId: "localhost", origin: origin, userHandle: Array("local".utf8))
    let creation = try await service.beginRegistration(
        RegistrationRequest(
            user: PublicKeyCredentialUserEntityJSON(
                id: Base64URLBytes(Array("local".utf8)), name: "local", displayName: "local")), now: Date())
    _ = try await service.finishRegistration(
        RegistrationResponse(jsonData: local.register(challenge: creation.options.challenge.base64URL)),
        challenge: creation.challenge, now: Date())
    let user = LoadUser(name: "local", passkey: local, rpId: "localhost", origin: origin)
    let localStart = ContinuousClock.now
    var localCount = 0
    var body: [UInt8] = []
    while ContinuousClock.now < localStart + .seconds(3) {
        let start = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("local".utf8)), now: Date())
        body.removeAll(keepingCapacity: true)
        try user.assertion(challenge: Array(start.options.challenge.base64URL.utf8), into: &body)
        _ = try await service.finishAuthentication(
            AuthenticationResponse(jsonData: Data(body)), challenge: start.challenge, now: Date())
        localCount += 1
    }
    let localElapsed = ContinuousClock.now - localStart
    let localWall = Double(localElapsed.components.seconds) + Double(localElapsed.components.attoseconds) / 1e18
    print(String(format: "in process (one task, signing included): %.0f logins/s", Double(localCount) / localWall))
}
if anyFailed { exit(1) }
