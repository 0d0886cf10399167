import Foundation
import Logging
import PostgresNIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of the tests' own: `initdb` and `pg_ctl` from /usr/lib/postgresql/*/bin
/// in a temporary directory, on 127.0.0.1 and a port the kernel picked, stopped by its pid when
/// the suite ends. Each test gets a database of its own (``createDatabase()``). Without the
/// server binaries the suite fails, saying so: it never passes without PostgreSQL.
final class PostgresCluster: Sendable {
    /// The cluster of the running suite (``PostgresClusterTrait``).
    @TaskLocal static var current: PostgresCluster?

    let port: Int
    let directory: String
    private let bin: String
    private let runAs: [String]
    static let user = "passkeys"

    private init(port: Int, directory: String, bin: String, runAs: [String]) {
        (self.port, self.directory, self.bin, self.runAs) = (port, directory, bin, runAs)
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Makes and starts a cluster.
    static func start() throws -> PostgresCluster {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard
            let bin = versions.sorted(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }).map({ "/usr/lib/postgresql/\($0)/bin" })
                .last(where: { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") })
        else {
            throw Failure(
                description: "PostgreSQL's server binaries are not installed (no /usr/lib/postgresql/*/bin/initdb): "
                    + "apt-get install postgresql; the store contract runs on PostgreSQL too")
        }
        let directory = try makeTemporaryDirectory()
        // PostgreSQL refuses to run as root: the cluster then belongs to an unprivileged user.
        var runAs: [String] = []
        if getuid() == 0 {
            let owner = "passkeytests"
            if try run(["/usr/bin/id", owner]).status != 0 {
                let added = try run(["/usr/sbin/useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", owner])
                guard added.status == 0 else { throw Failure(description: "useradd \(owner) failed: \(added.output)") }
            }
            let owned = try run(["/bin/chown", owner, directory])
            guard owned.status == 0 else { throw Failure(description: "chown \(directory) failed: \(owned.output)") }
            runAs = ["/usr/sbin/runuser", "-u", owner, "--"]
        }
        let port = try freePort()
        let cluster = PostgresCluster(port: port, directory: directory, bin: bin, runAs: runAs)
        let initdb = try run(runAs + ["\(bin)/initdb", "-D", "\(directory)/data", "-U", user, "--auth=trust", "-E", "UTF8"])
        guard initdb.status == 0 else {
            cluster.stop()
            throw Failure(description: "initdb failed: \(initdb.output)")
        }
        let started = try run(
            runAs + [
                "\(bin)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/postgres.log", "-w", "-t", "60",
                "-o", "-h 127.0.0.1 -p \(port) -k \(directory) -c fsync=off -c max_connections=200", "start",
            ])
        guard started.status == 0 else {
            let log = (try? String(contentsOfFile: "\(directory)/postgres.log", encoding: .utf8)) ?? ""
            cluster.stop()
            throw Failure(description: "pg_ctl start failed: \(started.output)\n\(log)")
        }
        return cluster
    }

    /// Stops the server by its pid (SIGQUIT: immediate shutdown), waits for it to exit, and
    /// removes the directory.
    func stop() {
        if let text = try? String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8),
            let line = text.split(separator: "\n").first, let pid = pid_t(line)
        {
            kill(pid, SIGQUIT)
            for _ in 0..<200 where kill(pid, 0) == 0 { usleep(50_000) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Restarts the server as a deploy or a failover does (fast shutdown: every session is
    /// terminated), with the options it was started with.
    func restart() throws {
        let restarted = try Self.run(
            runAs + ["\(bin)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/postgres.log", "-m", "fast", "-w", "restart"])
        guard restarted.status == 0 else { throw Failure(description: "pg_ctl restart failed: \(restarted.output)") }
    }

    /// Creates a fresh database. - Returns: its name.
    func createDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let logger = Logger(label: "test-cluster")
        let connection = try await PostgresConnection.connect(configuration: configuration(database: "postgres"), id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return name
    }

    /// How to connect to `database` as the cluster's superuser.
    func configuration(database: String) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: "127.0.0.1", port: port, username: Self.user, password: nil, database: database, tls: .disable)
    }

    private static func makeTemporaryDirectory() throws -> String {
        var template = Array("/tmp/passkey-pg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed: errno \(errno)") }
        return String(cString: made)
    }

    /// A loopback port the kernel picked (bound to port 0, then released).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Int32 in
                guard bind(fd, raw, length) == 0 else { return -1 }
                return getsockname(fd, raw, &length)
            }
        }
        guard bound == 0 else { throw Failure(description: "bind to 127.0.0.1:0 failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a program to its end. - Returns: its exit status and its output (stdout and stderr).
    ///
    /// posix_spawn and waitpid, not Foundation's `Process`: its `waitUntilExit` also waits for
    /// the descendants that inherited its descriptors, and the server `pg_ctl` starts lives on.
    /// The output goes through a file for the same reason.
    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let program = arguments.first else { throw Failure(description: "nothing to run") }
        let path = NSTemporaryDirectory() + "passkey-pg-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, &actions, nil, &argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot run \(program): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "waitpid \(program): errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS (macros Swift does not import).
        let exited = status & 0x7f == 0
        let code = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }
}

/// Starts a ``PostgresCluster`` for the suite it is attached to, once, and stops it when the
/// suite's tests have run.
struct PostgresClusterTrait: SuiteTrait, TestScoping {
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        try await PostgresCluster.$current.withValue(cluster) { try await function() }
    }
}

extension Trait where Self == PostgresClusterTrait {
    /// A PostgreSQL cluster of the suite's own.
    static var postgresCluster: Self { Self() }
}
