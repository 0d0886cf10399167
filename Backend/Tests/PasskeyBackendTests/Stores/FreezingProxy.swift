import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on loopback in front of a PostgreSQL server that can freeze the connections it
/// holds: from ``freeze()`` on, whatever either side of them sends is read and dropped, and
/// neither side is closed, as on a connection a middlebox dropped silently or one PostgreSQL
/// closed as a statement was written (a statement on it never completes). Connections made
/// after the freeze are forwarded as usual. Threads and blocking sockets: test code only.
final class FreezingProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let target: Int
    /// The connections made so far, each with whether it is frozen.
    private let connections = Mutex<[Connection]>([])
    private let stopped = Mutex(false)

    final class Connection: Sendable {
        let client: Int32
        let server: Int32
        let frozen = Mutex(false)
        /// Whether the client (the stores) closed its side.
        let closedByClient = Mutex(false)
        init(client: Int32, server: Int32) { (self.client, self.server) = (client, server) }
    }

    init(to target: Int) throws {
        (listener, port) = try Self.listenOnLoopback()
        self.target = target
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Freezes every connection made so far.
    func freeze() {
        for connection in connections.withLock({ $0 }) { connection.frozen.withLock { $0 = true } }
    }

    /// How many frozen connections the client has not closed yet.
    func frozenOpen() -> Int {
        connections.withLock { $0 }.filter { $0.frozen.withLock { $0 } && !$0.closedByClient.withLock { $0 } }.count
    }

    /// Stops accepting and closes every connection (the suite's end).
    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in connections.withLock({ $0 }) {
            shutdown(connection.client, Int32(SHUT_RDWR))
            shutdown(connection.server, Int32(SHUT_RDWR))
        }
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard server >= 0, connected == 0 else {
                close(client)
                if server >= 0 { close(server) }
                continue
            }
            let connection = Connection(client: client, server: server)
            connections.withLock { $0.append(connection) }
            Thread.detachNewThread { Self.pump(from: client, to: server, connection) }
            Thread.detachNewThread { Self.pump(from: server, to: client, connection) }
        }
    }

    /// Copies `source` to `destination` until either ends, dropping what arrives while frozen.
    private static func pump(from source: Int32, to destination: Int32, _ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            if connection.frozen.withLock({ $0 }) { continue }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return send(destination, base + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else { return }
                sent += written
            }
        }
        if source == connection.client { connection.closedByClient.withLock { $0 = true } }
        // One side ended: the other learns it, unless the connection is frozen (it hangs).
        if !connection.frozen.withLock({ $0 }) { shutdown(destination, Int32(SHUT_WR)) }
    }

    /// A socket listening on a loopback port the kernel picked. - Returns: it and its port.
    static func listenOnLoopback() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Int32 in
                guard bind(fd, raw, length) == 0, listen(fd, 64) == 0 else { return -1 }
                return getsockname(fd, raw, &length)
            }
        }
        guard fd >= 0, listening == 0 else {
            if fd >= 0 { close(fd) }
            throw PostgresCluster.Failure(description: "cannot listen on loopback: errno \(errno)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
