import Basics
import Glibc

/// The system's time-zone database: IANA zones by name, read from their TZif files (RFC 8536) under a folder,
/// /usr/share/zoneinfo by default (Debian's `tzdata`), and kept once read.
///
/// ```swift
/// let zones = TimeZoneDatabase()
/// let madrid = try zones.zone(named: "Europe/Madrid")
/// madrid.startOfDay(CivilDate(year: 2026, month: 12, day: 7)!)  // 1_796_598_000: 2026-12-06T23:00:00Z
/// ```
///
/// Names are checked before they reach the file system (``isValidName(_:)``); `UTC` and `Etc/UTC` need no file.
public final class TimeZoneDatabase: Sendable {
    /// Where zones are read from and how much is kept.
    public struct Configuration: Sendable {
        /// The folder of TZif files: /usr/share/zoneinfo.
        public var root: String
        /// The largest file read: 256 KiB (the zones of tzdata are under 4 KiB).
        public var maxFileSize: Int
        /// How many zones are kept once read: 64; beyond that the zone read longest ago is dropped.
        public var cacheCapacity: Int

        /// The defaults, or other values.
        /// - Parameters:
        ///   - root: The folder of TZif files.
        ///   - maxFileSize: The largest file read, bytes.
        ///   - cacheCapacity: How many zones are kept.
        public init(root: String = "/usr/share/zoneinfo", maxFileSize: Int = 256 * 1024, cacheCapacity: Int = 64) {
            self.root = root
            self.maxFileSize = maxFileSize
            self.cacheCapacity = cacheCapacity
        }
    }

    /// Why a name gives no zone.
    public enum LookupError: Error, Hashable, Sendable {
        /// Not a zone name (``isValidName(_:)``).
        case invalidName
        /// No file of that name (or not a regular file).
        case unknownZone
        /// The file exists but could not be read: the `errno`.
        case unreadable(Int32)
        /// The file is over ``Configuration/maxFileSize``.
        case tooLarge
        /// The file is not a TZif file this library can use.
        case malformed(TZif.ParseError)
    }

    /// The zones read, with the order they were read in.
    private struct Cache {
        var zones: [String: TimeZoneRules] = [:]
        var order: [String] = []
    }

    /// This database's settings.
    public let configuration: Configuration
    private let cache = Locked(Cache())

    /// A database reading from `configuration.root`.
    /// - Parameter configuration: Where zones are and how many are kept.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The zone of an IANA name.
    /// - Parameter name: `Europe/Madrid`, `America/New_York`, `UTC`.
    /// - Returns: Its rules, read from its file the first time.
    /// - Throws: ``LookupError``.
    public func zone(named name: String) throws(LookupError) -> TimeZoneRules {
        guard Self.isValidName(name) else { throw .invalidName }
        if name == "UTC" || name == "Etc/UTC" { return TimeZoneRules.utc.named(name) }
        if let known = cache.withLock({ $0.zones[name] }) { return known }
        let bytes = try read(configuration.root + "/" + name)
        let zone: TimeZoneRules
        do throws(TZif.ParseError) {
            zone = try TZif.parse(bytes, name: name)
        } catch {
            throw .malformed(error)
        }
        cache.withLock { cache in
            guard cache.zones.updateValue(zone, forKey: name) == nil else { return }
            cache.order.append(name)
            while cache.order.count > max(configuration.cacheCapacity, 0) {
                cache.zones[cache.order.removeFirst()] = nil
            }
        }
        return zone
    }

    /// Whether `name` may name a zone: 1 to 64 bytes of `A–Z a–z 0–9 _ + - /`, not starting or ending with `/`,
    /// with no empty part (`//`). `..` cannot occur, so a name never leaves the database's folder.
    /// - Parameter name: The name.
    /// - Returns: True for `Europe/Madrid`, `Etc/GMT+3`; false for `../etc/passwd`, `/etc/passwd`, `Europe//Madrid`.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...64).contains(bytes.count), bytes.first != 0x2F, bytes.last != 0x2F else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                break
            case UInt8(ascii: "/") where previous != UInt8(ascii: "/"):
                break
            default:
                return false
            }
            previous = byte
        }
        return true
    }

    /// The bytes of a regular file of at most ``Configuration/maxFileSize`` bytes.
    private func read(_ path: String) throws(LookupError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT || error == ENOTDIR { throw .unknownZone }
            throw .unreadable(error)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .unknownZone }
        guard status.st_size <= configuration.maxFileSize else { throw .tooLarge }
        // One byte more than fstat said, to notice a file that changed while read.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + count }, buffer.count - count)
            }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errno)
            }
            count += got
        }
        guard count == Int(status.st_size) else { throw .unreadable(EAGAIN) }
        bytes.removeSubrange(count...)
        return bytes
    }
}
