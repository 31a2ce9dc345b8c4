import Glibc

/// TZif files built byte by byte (RFC 8536 §3), valid by default, with every field open to spoiling.
struct TZifFixture {
    /// The version byte: 0 for version 1, else `2`, `3`, `4`.
    var version: UInt8 = UInt8(ascii: "2")
    var transitions: [Int64] = [0, 1_000_000]
    var transitionTypes: [UInt8] = [1, 0]
    /// (utoff, isdst, desigidx)
    var types: [(Int32, UInt8, UInt8)] = [(3600, 0, 0), (7200, 1, 4)]
    var designations: [UInt8] = Array("CET\0CEST\0".utf8)
    var leapSeconds: [(Int64, Int32)] = []
    var standardIndicators: [UInt8] = [0, 0]
    var utIndicators: [UInt8] = [0, 0]
    /// The footer's text between its newlines; nil for none (version 1).
    var footer: String? = "CET-1CEST,M3.5.0,M10.5.0/3"
    /// Replaces counts of the header(s): isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
    var counts: [Int: UInt32] = [:]

    /// The file: for version 2 and later a version 1 block with the same data in 32-bit times, then the
    /// 64-bit block and the footer.
    var bytes: [UInt8] {
        var bytes = block(timeSize: 4, version: version)
        guard version != 0 else { return bytes }
        bytes += block(timeSize: 8, version: version)
        if let footer { bytes += [0x0A] + Array(footer.utf8) + [0x0A] }
        return bytes
    }

    func block(timeSize: Int, version: UInt8) -> [UInt8] {
        var bytes = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
        let natural = [
            utIndicators.count, standardIndicators.count, leapSeconds.count, transitions.count, types.count,
            designations.count,
        ]
        for (index, count) in natural.enumerated() { bytes += Self.bigEndian(Int64(counts[index] ?? UInt32(count)), 4) }
        for time in transitions { bytes += Self.bigEndian(time, timeSize) }
        bytes += transitionTypes
        for (offset, isDaylight, index) in types { bytes += Self.bigEndian(Int64(offset), 4) + [isDaylight, index] }
        bytes += designations
        for (time, correction) in leapSeconds {
            bytes += Self.bigEndian(time, timeSize) + Self.bigEndian(Int64(correction), 4)
        }
        bytes += standardIndicators + utIndicators
        return bytes
    }

    static func bigEndian(_ value: Int64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// The bytes of a file under /usr/share/zoneinfo.
    static func system(_ name: String) -> [UInt8] {
        guard let file = fopen("/usr/share/zoneinfo/" + name, "rb") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }
}
