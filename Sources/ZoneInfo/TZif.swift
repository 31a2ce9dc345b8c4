/// Reads Time Zone Information Format files (RFC 8536, versions 1 to 4), the files of /usr/share/zoneinfo.
///
/// ```
///  0                   1                   2                   3
/// +-------+-+-----------------------------+-------+-------+-------+
/// | TZif  |v|  reserved (15 bytes)        |isutcnt|isstdcnt|leapcnt|   header (44 bytes), §3.1
/// +-------+-+-----------------------------+-------+-------+-------+
/// |timecnt|typecnt|charcnt|                                            (six 4-byte big-endian counts)
/// +-------+-------+-------+
/// | transition times (timecnt × 4, or × 8 from version 2) | transition types (timecnt × 1)  |   data block, §3.2
/// | local time types (typecnt × 6: utoff i32, isdst u8, desigidx u8) | designations (charcnt) |
/// | leap seconds (leapcnt × 8, or × 12) | standard/wall (isstdcnt) | UT/local (isutcnt)       |
/// +------------------------------------------------------------------------------------------+
/// | version 2+: a second header and data block with 64-bit times, then "\n" TZ string "\n"   |   footer, §3.3
/// +------------------------------------------------------------------------------------------+
/// ```
///
/// Every count is checked against the bytes that are there before anything is read or allocated, so a hostile
/// header claiming four billion transitions costs nothing.
public enum TZif {
    /// Why bytes are not a TZif file this library can use.
    public enum ParseError: Error, Hashable, Sendable {
        /// The bytes end before what the header announces (or before the footer's closing newline).
        case truncated
        /// The file does not start with `TZif` (or its second header does not).
        case badMagic
        /// A version byte other than NUL, `2`, `3` or `4`.
        case unsupportedVersion(UInt8)
        /// RFC 8536 §3.1: typecnt and charcnt are not zero, isutcnt and isstdcnt are zero or typecnt.
        case inconsistentCounts
        /// Transition times that do not strictly increase, or outside ±2⁵⁹ seconds.
        case badTransitionTimes
        /// A transition naming a local time type that does not exist.
        case badTransitionType
        /// A local time type with an offset outside −89999…93599 seconds (§3.2), a daylight flag other than 0 or 1,
        /// or a designation index past the designations.
        case badLocalTimeType
        /// A file with leap-second records (the `right/` zones), whose times are not Unix times.
        case leapSeconds
        /// A footer that is not a POSIX TZ rule (§3.3).
        case badFooter(POSIXTimeZone.SyntaxError)
    }

    /// Reads a TZif file: the 64-bit data block and the footer rule from version 2 on, the version 1 block otherwise.
    /// - Parameters:
    ///   - bytes: The whole file.
    ///   - name: The zone's name, kept in the result.
    /// - Returns: The zone's offsets.
    /// - Throws: ``ParseError``.
    /// - Complexity: O(n) in the size of the file.
    public static func parse(_ bytes: [UInt8], name: String) throws(ParseError) -> TimeZoneRules {
        var reader = Reader(bytes: bytes)
        let first = try Header(&reader)
        guard first.version >= 2 else { return try DataBlock(&reader, header: first, timeSize: 4).rules(name: name) }
        guard first.blockLength(timeSize: 4) <= reader.remaining else { throw .truncated }
        reader.position += first.blockLength(timeSize: 4)
        let second = try Header(&reader)
        guard second.version >= 2 else { throw .unsupportedVersion(second.versionByte) }
        let block = try DataBlock(&reader, header: second, timeSize: 8)
        guard try reader.byte() == 0x0A else { throw .badFooter(POSIXTimeZone.SyntaxError(position: 0)) }
        guard let end = reader.bytes[reader.position...].firstIndex(of: 0x0A) else { throw .truncated }
        let text = reader.bytes[reader.position..<end]
        guard !text.isEmpty else { return block.rules(name: name) }
        let footer: POSIXTimeZone
        do throws(POSIXTimeZone.SyntaxError) {
            footer = try POSIXTimeZone(parsing: String(decoding: text, as: UTF8.self))
        } catch {
            throw .badFooter(error)
        }
        return block.rules(name: name, footer: footer)
    }
}

extension TZif {
    /// A cursor over the file that never reads past its end.
    struct Reader {
        let bytes: [UInt8]
        var position = 0

        var remaining: Int { bytes.count - position }

        mutating func byte() throws(ParseError) -> UInt8 {
            guard remaining >= 1 else { throw .truncated }
            defer { position += 1 }
            return bytes[position]
        }

        /// A big-endian integer of `size` bytes, sign-extended.
        mutating func signed(size: Int) throws(ParseError) -> Int64 {
            guard remaining >= size else { throw .truncated }
            var value: Int64 = bytes[position] >= 0x80 ? -1 : 0
            for byte in bytes[position..<position + size] { value = value << 8 | Int64(byte) }
            position += size
            return value
        }

        mutating func count() throws(ParseError) -> Int {
            let value = try signed(size: 4)
            return Int(UInt32(truncatingIfNeeded: value))
        }
    }

    /// A header (§3.1).
    struct Header {
        /// 0 for version 1, else the digit.
        var version: Int
        var versionByte: UInt8
        var isutcnt: Int
        var isstdcnt: Int
        var leapcnt: Int
        var timecnt: Int
        var typecnt: Int
        var charcnt: Int

        init(_ reader: inout Reader) throws(ParseError) {
            // The magic first, so that a file of another kind says so however short it is.
            let magic = reader.bytes[reader.position..<min(reader.position + 4, reader.bytes.count)]
            guard magic.elementsEqual("TZif".utf8.prefix(magic.count)) else { throw .badMagic }
            guard reader.remaining >= 44 else { throw .truncated }
            versionByte = reader.bytes[reader.position + 4]
            switch versionByte {
            case 0: version = 1
            case UInt8(ascii: "2")...UInt8(ascii: "4"): version = Int(versionByte - UInt8(ascii: "0"))
            default: throw .unsupportedVersion(versionByte)
            }
            reader.position += 20
            isutcnt = try reader.count()
            isstdcnt = try reader.count()
            leapcnt = try reader.count()
            timecnt = try reader.count()
            typecnt = try reader.count()
            charcnt = try reader.count()
            guard typecnt != 0, charcnt != 0, isutcnt == 0 || isutcnt == typecnt,
                isstdcnt == 0 || isstdcnt == typecnt
            else { throw .inconsistentCounts }
        }

        /// The bytes of the data block that follows (counts are below 2³², so this cannot overflow).
        func blockLength(timeSize: Int) -> Int {
            timecnt * (timeSize + 1) + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    /// What a data block (§3.2) says of offsets.
    struct DataBlock {
        var transitions: [Int64] = []
        var offsets: [Int32] = []
        var typeOffsets: [Int32] = []

        init(_ reader: inout Reader, header: Header, timeSize: Int) throws(ParseError) {
            guard header.blockLength(timeSize: timeSize) <= reader.remaining else { throw .truncated }
            guard header.leapcnt == 0 else { throw .leapSeconds }
            transitions.reserveCapacity(header.timecnt)
            for _ in 0..<header.timecnt {
                let time = try reader.signed(size: timeSize)
                guard POSIXTimeZone.instants.contains(time), transitions.last.map({ $0 < time }) ?? true else {
                    throw .badTransitionTimes
                }
                transitions.append(time)
            }
            let types = reader.bytes[reader.position..<reader.position + header.timecnt]
            reader.position += header.timecnt
            typeOffsets.reserveCapacity(header.typecnt)
            for _ in 0..<header.typecnt {
                let offset = try reader.signed(size: 4)
                let isDaylight = try reader.byte()
                let designation = try reader.byte()
                guard (-89_999...93_599).contains(offset), isDaylight <= 1, Int(designation) < header.charcnt else {
                    throw .badLocalTimeType
                }
                typeOffsets.append(Int32(offset))
            }
            offsets.reserveCapacity(header.timecnt)
            for type in types {
                guard Int(type) < header.typecnt else { throw .badTransitionType }
                offsets.append(typeOffsets[Int(type)])
            }
            reader.position += header.charcnt + header.isstdcnt + header.isutcnt
        }

        /// The rules: time type 0 before the first transition (§3.2), the footer after the last (§3.3).
        func rules(name: String, footer: POSIXTimeZone? = nil) -> TimeZoneRules {
            TimeZoneRules(
                name: name, initialOffset: Int(typeOffsets[0]), transitions: transitions, offsets: offsets,
                footer: footer)
        }
    }
}
