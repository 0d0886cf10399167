import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SoftwarePasskey
import WebAuthnRP

// passkey-load [base URL] [seconds] [concurrency] [users]
// Registers `users` accounts over HTTP, then runs full logins (options + verification) from
// `concurrency` workers for `seconds`, and prints logins per second and p50/p99 latency; then
// measures the library's in-process login rate (RelyingPartyService, in-memory stores) with
// the same authenticator for comparison.
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
let origin = base.replacingOccurrences(of: "127.0.0.1", with: "localhost")

var configuration = HTTPClient.Configuration()
configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

struct LoadError: Error, CustomStringConvertible { let description: String }

/// POST JSON; returns the body and the named cookie the server set.
func post(_ path: String, _ body: Data, cookie: (String, String)? = nil, want: String? = nil) async throws -> (Data, String?) {
    var request = HTTPClientRequest(url: base + path)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    if let cookie { request.headers.add(name: "Cookie", value: "\(cookie.0)=\(cookie.1)") }
    request.body = .bytes(ByteBuffer(bytes: body))
    let response = try await client.execute(request, timeout: .seconds(30))
    let data = Data((try await response.body.collect(upTo: 1 << 20)).readableBytesView)
    guard response.status == .ok else {
        throw LoadError(description: "\(path): \(response.status.code) \(String(decoding: data, as: UTF8.self))")
    }
    var value: String?
    if let want {
        for header in response.headers["set-cookie"] where header.hasPrefix(want + "=") {
            value = String(header.dropFirst(want.count + 1).prefix { $0 != ";" })
        }
    }
    return (data, value)
}

func register(_ name: String) async throws -> SoftwarePasskey {
    let (options, cookie) = try await post("/api/register/options", Data(#"{"username":"\#(name)"}"#.utf8), want: "pk_reg")
    guard let cookie, let challenge = challenge(in: options),
        let object = try JSONSerialization.jsonObject(with: options) as? [String: Any],
        let user = object["user"] as? [String: Any], let id = user["id"] as? String
    else {
        throw LoadError(description: "registration options without a challenge or cookie")
    }
    var authenticator = SoftwarePasskey(
        rpId: "localhost", origin: origin,
        userHandle: try Base64URLBytes(base64URL: id, member: "user.id").bytes)
    _ = try await post("/api/register/verify", authenticator.register(challenge: challenge), cookie: ("pk_reg", cookie))
    return authenticator
}

func login(_ name: String, _ authenticator: inout SoftwarePasskey) async throws {
    let (options, cookie) = try await post("/api/login/options", Data(#"{"username":"\#(name)"}"#.utf8), want: "pk_login")
    guard let cookie, let challenge = challenge(in: options) else { throw LoadError(description: "login options without a challenge") }
    _ = try await post("/api/login/verify", try authenticator.assert(challenge: challenge), cookie: ("pk_login", cookie))
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

let run = "load\(Int(Date().timeIntervalSince1970) % 100_000)"
print("registering \(userCount) users at \(base)…")
var users: [(String, SoftwarePasskey)] = []
for index in 0..<userCount {
    let name = "\(run)-\(index)"
    users.append((name, try await register(name)))
}

print("logging in for \(seconds) s from \(concurrency) workers…")
// Where the CPU goes: LOAD_SERVER_PIDS and LOAD_POSTGRES_PID (set by Tests/run-load.sh) name the
// server processes and PostgreSQL's postmaster, whose backends are its children.
let environment = ProcessInfo.processInfo.environment
let serverPids = (environment["LOAD_SERVER_PIDS"] ?? "").split(separator: ",").compactMap { Int32($0) }
let postgresPid = environment["LOAD_POSTGRES_PID"].flatMap { Int32($0) }
func cpuNow() -> (server: Double, postgres: Double, generator: Double) {
    (serverPids.reduce(0) { $0 + CPUTime.seconds(ofTree: $1) }, postgresPid.map(CPUTime.seconds(ofTree:)) ?? 0, CPUTime.ownSeconds())
}
let cpuBefore = cpuNow()
let started = ContinuousClock.now
let deadline = started + .milliseconds(Int(seconds * 1000))
let results = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
    for worker in 0..<concurrency {
        let mine = stride(from: worker, to: users.count, by: concurrency).map { users[$0] }
        group.addTask {
            var latencies: [Double] = [], failures = 0
            var mine = mine
            var index = 0
            while ContinuousClock.now < deadline {
                let begin = ContinuousClock.now
                do { try await login(mine[index].0, &mine[index].1) } catch { failures += 1 }
                let elapsed = ContinuousClock.now - begin
                latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                index = (index + 1) % mine.count
            }
            return (latencies, failures)
        }
    }
    var all: [Double] = [], failures = 0
    for try await (latencies, failed) in group { all += latencies; failures += failed }
    return (all.sorted(), failures)
}
let elapsed = ContinuousClock.now - started
let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let cpuAfter = cpuNow()
let (latencies, failures) = results
print(
    String(
        format: "HTTP: %d logins (options + verification) in %.1f s = %.0f logins/s; p50 %.2f ms, p99 %.2f ms; %d failed",
        latencies.count, wall, Double(latencies.count) / wall, percentile(latencies, 0.5), percentile(latencies, 0.99), failures))
if !latencies.isEmpty {
    let perLogin = { (seconds: Double) in seconds * 1e6 / Double(latencies.count) }
    print(
        String(
            format: "CPU per login: server %.0f µs, PostgreSQL %.0f µs, generator %.0f µs (wall %.0f µs per login on the machine's cores)",
            perLogin(cpuAfter.server - cpuBefore.server), perLogin(cpuAfter.postgres - cpuBefore.postgres),
            perLogin(cpuAfter.generator - cpuBefore.generator), perLogin(wall)))
}

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
let localStart = ContinuousClock.now
var localCount = 0
while ContinuousClock.now < localStart + .seconds(3) {
    let start = try await service.beginAuthentication(AuthenticationRequest(userHandle: Array("local".utf8)), now: Date())
    _ = try await service.finishAuthentication(
        AuthenticationResponse(jsonData: try local.assert(challenge: start.options.challenge.base64URL)),
        challenge: start.challenge, now: Date())
    localCount += 1
}
let localElapsed = ContinuousClock.now - localStart
let localWall = Double(localElapsed.components.seconds) + Double(localElapsed.components.attoseconds) / 1e18
print(String(format: "in process (one task, signing included): %.0f logins/s", Double(localCount) / localWall))
try await client.shutdown()
