import Glibc
import NetCore

/// CPU time of this process and, when known, of another one (the server under test), at one instant.
public struct CPUSample: Sendable {
    /// When the sample was taken, `EventLoop.now()` nanoseconds.
    public let time: UInt64
    /// This process's user + system CPU seconds.
    public let client: Double
    /// The other process's user + system CPU seconds, when it could be read.
    public let server: Double?

    /// Samples now.
    /// - Parameter serverPID: The other process, if any.
    /// - Returns: The sample.
    public static func take(serverPID: Int32?) -> CPUSample {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let client =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        return CPUSample(time: EventLoop.now(), client: client, server: serverPID.flatMap(ProcessStats.cpuSeconds))
    }

    /// CPU used between two samples, as a percentage of one core, for this process and the other one.
    /// - Parameters:
    ///   - start: The earlier sample.
    ///   - end: The later sample.
    /// - Returns: Percentages (100 = one core busy); `server` is nil when either sample lacks it.
    public static func percent(from start: CPUSample, to end: CPUSample) -> (client: Double, server: Double?) {
        let wall = Double(end.time &- start.time) / 1e9
        guard wall > 0 else { return (0, nil) }
        let client = (end.client - start.client) / wall * 100
        guard let first = start.server, let last = end.server else { return (client, nil) }
        return (client, (last - first) / wall * 100)
    }
}

/// What /proc tells about a process, and the open-files limit.
public enum ProcessStats {
    /// utime + stime of a process from /proc/PID/stat, in seconds.
    /// - Parameter pid: The process.
    /// - Returns: Seconds, or nil when the process is gone or the file unreadable.
    public static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = readProc("/proc/\(pid)/stat") else { return nil }
        // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
        guard let paren = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: paren)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The resident set size of a process (`VmRSS` of /proc/PID/status), in bytes.
    /// - Parameter pid: The process; nil for this one.
    /// - Returns: Bytes, or nil when unreadable.
    public static func residentBytes(_ pid: Int32?) -> Int? {
        guard let text = readProc("/proc/\(pid.map { "\($0)" } ?? "self")/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let number = line.dropFirst(6).filter { $0 != " " && $0 != "\t" }.dropLast(2)  // "… kB"
            return Int(number).map { $0 * 1024 }
        }
        return nil
    }

    /// Raises the soft open-files limit to the hard one; warns on stderr when that is still below `needed`.
    /// - Parameter needed: Descriptors the caller expects to hold at once.
    public static func raiseFileLimit(needed: Int) {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        if Int(limit.rlim_cur) < needed + 64 {
            Report.error("warning: open files limit \(limit.rlim_cur) < \(needed + 64)")
        }
    }

    private static func readProc(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes[0..<count], as: UTF8.self)
    }
}
