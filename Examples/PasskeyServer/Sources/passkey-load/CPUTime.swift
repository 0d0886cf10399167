import Foundation

/// CPU time of a process tree read from Linux's /proc, so a run can say where the time of a
/// login goes (the server, PostgreSQL's backends, the generator itself) even when every process
/// shares the same cores. Elsewhere, or for a process that is gone, it reads zero.
struct CPUTime {
    /// Clock ticks per second of /proc's utime/stime (USER_HZ, 100 on every Linux build).
    static let ticksPerSecond = 100.0

    /// user + system seconds of `pid`, plus those of its children: both the living ones (a
    /// PostgreSQL backend per connection) and the ones it has already waited for.
    static func seconds(ofTree pid: Int32) -> Double {
        guard let own = fields(of: "\(pid)") else { return 0 }
        var ticks = own.utime + own.stime + own.cutime + own.cstime
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries where entry.allSatisfy(\.isNumber) && entry != "\(pid)" {
            if let child = fields(of: entry), child.ppid == pid { ticks += child.utime + child.stime }
        }
        return Double(ticks) / ticksPerSecond
    }

    /// user + system seconds of this process.
    static func ownSeconds() -> Double {
        guard let own = fields(of: "self") else { return 0 }
        return Double(own.utime + own.stime) / ticksPerSecond
    }

    private struct Fields { var ppid: Int32; var utime, stime, cutime, cstime: Int }

    /// Fields 4 and 14–17 of /proc/PID/stat; the command name (field 2) may hold spaces and
    /// parentheses, so the fields are counted from its closing parenthesis.
    private static func fields(of entry: String) -> Fields? {
        guard let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let rest = text[text.index(after: close)...].split(separator: " ")
        // rest[0] is field 3 (state), so field n is rest[n - 3].
        guard rest.count > 14, let ppid = Int32(rest[1]),
            let utime = Int(rest[11]), let stime = Int(rest[12]),
            let cutime = Int(rest[13]), let cstime = Int(rest[14])
        else { return nil }
        return Fields(ppid: ppid, utime: utime, stime: stime, cutime: cutime, cstime: cstime)
    }
}
