import Foundation
import Logging
import NIOPosix
import Synchronization
import WebAuthnRP

/// Writes each FAILED ceremony as a `webauthn-ceremonies/1` file, so an engineer can
/// reproduce a user's failed login exactly: `webauthn-replay --explain <file>` shows the
/// step that failed. Off unless `RECORD_FAILED_CEREMONIES_DIR` is set.
///
/// A file holds what the client sent, the issued options (without the user's name), the
/// credential's public record and the verdict; no cookie, session key or sealing key. Each file
/// is at most `maxBytes` (a larger recording is skipped and logged) and the folder holds at
/// most `maxFiles` recordings (further failures are logged, not written, until files are
/// removed). The folder is counted at every write, so nodes sharing it keep one cap between
/// them (two nodes writing at the same instant may each take the last place: at most one file
/// per node over), and emptying it makes room at once. Files are created with mode 0600.
package actor FailedCeremonyRecorder {
    package let directory: URL
    package let maxBytes: Int
    package let maxFiles: Int
    package let logger: Logger

    package init(directory: String, maxBytes: Int, maxFiles: Int, logger: Logger) {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        self.maxBytes = maxBytes
        self.maxFiles = maxFiles
        self.logger = logger
    }

    /// Writes `recording` when its ceremony was rejected; never throws (recording must not
    /// change the answer the client gets).
    package func recordIfFailed(_ recording: CeremonyRecording, node: String) async {
        guard case .rejected(let error) = recording.verdict else { return }
        let stamp = Self.stamp(recording.receivedAt)
        let name = "\(stamp)-\(recording.kind.rawValue)-\(error.category.rawValue)-\(UUID().uuidString.prefix(8).lowercased())"
        let data: Data
        do {
            data = try recording.document(
                name: "\(recording.kind.rawValue)-\(error.category.rawValue)",
                description: "failed \(recording.kind.rawValue) on \(node) at \(stamp): \(error.category.rawValue)")
        } catch {
            logger.error("failed ceremony not recorded", metadata: ["error": "\(error)"])
            return
        }
        guard data.count <= maxBytes else {
            logger.notice(
                "failed ceremony not recorded: larger than the cap",
                metadata: ["bytes": "\(data.count)", "cap": "\(maxBytes)"])
            return
        }
        // Listing the folder and writing the file block their thread: they run on NIO's thread
        // pool, never on an event loop (the server's tasks run on the event loops: PasskeyBackendConfiguration.executor).
        let (directory, maxFiles, logger) = (directory, maxFiles, logger)
        let category = error.category.rawValue
        try? await NIOThreadPool.singleton.runIfActive {
            Self.write(data, name: name, category: category, directory: directory, maxFiles: maxFiles, logger: logger)
        }
    }

    /// One count-then-write at a time in this process, as when the actor itself wrote.
    private static let writing = Mutex(())

    private static func write(_ data: Data, name: String, category: String, directory: URL, maxFiles: Int, logger: Logger) {
        writing.withLock { _ in writeLocked(data, name: name, category: category, directory: directory, maxFiles: maxFiles, logger: logger)
        }
    }

    private static func writeLocked(_ data: Data, name: String, category: String, directory: URL, maxFiles: Int, logger: Logger) {
        // Counted now, not remembered: other nodes write here too, and an operator may empty it.
        guard countFiles(directory) < maxFiles else {
            logger.notice(
                "failed ceremony not recorded: the folder holds its cap of files",
                metadata: ["cap": "\(maxFiles)", "directory": "\(directory.path)"])
            return
        }
        let url = directory.appendingPathComponent(name + ".json")
        guard
            FileManager.default.createFile(
                atPath: url.path, contents: data,
                attributes: [.posixPermissions: 0o600])
        else {
            logger.error("failed ceremony not recorded: cannot write", metadata: ["file": "\(url.path)"])
            return
        }
        logger.notice("failed ceremony recorded", metadata: ["file": "\(url.path)", "category": "\(category)"])
    }

    /// The `*.json` files in the folder (recordings of earlier runs and of other nodes count against the cap).
    private static func countFiles(_ directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.count
    }

    /// `20261124T001500.123Z`: sorts by time, safe in a file name.
    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return formatter.string(from: date)
    }
}

extension FailedCeremonyRecorder {
    /// The observer a finish is given: every ceremony it finishes reaches ``recordIfFailed(_:node:)``.
    package nonisolated func observer(node: String) -> some CeremonyObserver {
        Observer(recorder: self, node: node)
    }

    private struct Observer: CeremonyObserver {
        let recorder: FailedCeremonyRecorder
        let node: String

        func ceremonyFinished(_ recording: CeremonyRecording) async {
            await recorder.recordIfFailed(recording, node: node)
        }
    }
}
