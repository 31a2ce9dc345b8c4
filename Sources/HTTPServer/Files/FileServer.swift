import Glibc
import HTTPWire
import Synchronization

/// Serves files from one directory, and nothing outside it.
///
/// `index.html` answers for directories; `ETag`/`If-None-Match` and `Last-Modified`/`If-Modified-Since` answer
/// `304`; a `file.gz` beside `file` is sent to clients that accept gzip; paths with `..`, `.`-prefixed segments
/// or NUL bytes, and symbolic links that lead out of the directory, answer `404`. File reads run off the loops
/// and small files are cached (revalidated with `stat` on every request).
public final class FileServer: Sendable {
    /// How files are served.
    public struct Configuration: Sendable {
        /// `Cache-Control` for every file; `no-cache` makes browsers revalidate with the ETag.
        public var cacheControl = "no-cache"
        /// Files up to this size are kept in memory.
        public var maxCachedFileBytes = 1 << 20
        /// The memory the cache may use in all.
        public var maxCacheBytes = 32 << 20
        /// Larger files are refused (this handler reads whole files).
        public var maxFileBytes = 64 << 20
        /// Creates the defaults.
        public init() {}
    }

    /// Why a file server could not be created.
    public struct InvalidRoot: Error, Equatable, Sendable {
        /// The directory given.
        public var path: String
    }

    private struct CachedFile: Sendable {
        var size: Int
        var modified: Int
        var bytes: [UInt8]
    }

    private struct FileInfo: Sendable {
        var path: String
        var size: Int
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
    }

    private enum Lookup: Sendable {
        case file(FileInfo, [UInt8], gzipped: Bool)
        case redirect(String)
        case notFound
        case tooLarge
    }

    /// The real path of the served directory.
    public let root: String
    private let configuration: Configuration
    private let cache = Locked<(entries: [String: CachedFile], bytes: Int)>(([:], 0))

    /// Creates a file server.
    /// - Parameters:
    ///   - root: The directory to serve.
    ///   - configuration: Caching and limits.
    /// - Throws: ``InvalidRoot`` when `root` is not a readable directory.
    public init(root: String, configuration: Configuration = Configuration()) throws(InvalidRoot) {
        guard let real = Self.realPath(root), Self.status(real)?.isDirectory == true else {
            throw InvalidRoot(path: root)
        }
        self.root = real
        self.configuration = configuration
    }

    /// Answers a `GET` or `HEAD` for a file.
    /// - Parameter request: The request; its decoded path is looked up under the root.
    /// - Returns: The file, `304` or `301` (directory without a trailing slash).
    /// - Throws: ``HTTPError``: `404`, `405` (with `Allow`), or `413` for a file over the size limit.
    public func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        guard request.method == .get || request.method == .head else {
            throw HTTPError(
                .methodNotAllowed, code: "methodNotAllowed", message: "files are read-only",
                headers: ["Allow": "GET, HEAD"])
        }
        guard let relative = Self.safeRelativePath(request.path) else { throw Self.notFound }
        let wantsGzip = Compression.acceptsGzip(request.headers)
        let lookup = await BlockingIO.run { [self] in find(relative, requestPath: request.path, gzip: wantsGzip) }
        switch lookup {
        case .notFound: throw Self.notFound
        case .tooLarge: throw HTTPError(.contentTooLarge, code: "fileTooLarge", message: "file too large to serve")
        case .redirect(let location):
            let query = request.head.target.rawQuery.map { "?" + $0 } ?? ""
            return HTTPResponse(status: .movedPermanently, headers: ["Location": location + query])
        case .file(let info, let bytes, let gzipped):
            let etag =
                "\"\(String(info.size, radix: 16))-\(String(info.modifiedSeconds, radix: 16))\(String(info.modifiedNanoseconds, radix: 16))\(gzipped ? "-gz" : "")\""
            let lastModified = HTTPDate.imfFixdate(unixTime: info.modifiedSeconds)
            var headers: HTTPHeaders = [
                "ETag": etag, "Last-Modified": lastModified, "Cache-Control": configuration.cacheControl,
                "Content-Type": MediaType.forPath(relative.isEmpty ? "index.html" : info.path),
            ]
            if gzipped {
                headers.add(name: "Content-Encoding", value: "gzip")
                headers.add(name: "Vary", value: "Accept-Encoding")
            }
            // RFC 9110 §13.1.3: If-Modified-Since counts only without If-None-Match.
            let unmodifiedSince =
                request.headers["If-None-Match"] == nil
                && request.headers["If-Modified-Since"].flatMap(HTTPDate.parse).map { info.modifiedSeconds <= $0 }
                    == true
            if Self.matches(etag, request.headers["If-None-Match"]) || unmodifiedSince {
                headers.remove(name: "Content-Type")
                headers.remove(name: "Content-Encoding")
                return HTTPResponse(status: .notModified, headers: headers)
            }
            return HTTPResponse(status: .ok, headers: headers, body: .bytes(bytes))
        }
    }

    private static let notFound = HTTPError(.notFound, code: "notFound", message: "no such file")

    /// The request path as a relative path with no way out: nil for `..`, `.`-prefixed segments, NUL or backslash.
    static func safeRelativePath(_ path: String) -> String? {
        guard path.hasPrefix("/"), !path.utf8.contains(0), !path.contains("\\") else { return nil }
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard !segment.hasPrefix(".") else { return nil }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }

    /// `/relative/`, percent-encoded (RFC 3986 §2.1) but for unreserved characters and `/`: a `Location` that is
    /// always a path on this host.
    static func location(ofDirectory relative: String) -> String {
        var out = "/"
        for byte in relative.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += byte < 16 ? "%0" + hex : "%" + hex
            }
        }
        return relative.isEmpty ? out : out + "/"
    }

    private static func matches(_ etag: String, _ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: " \t")
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    // MARK: Blocking part

    private func find(_ relative: String, requestPath: String, gzip: Bool) -> Lookup {
        var path = relative.isEmpty ? root : root + "/" + relative
        guard var info = Self.status(path) else { return .notFound }
        if info.isDirectory {
            guard let real = Self.realPath(path), real == root || real.hasPrefix(root + "/") else { return .notFound }
            // The canonical path, never the raw one: `//css` must not become the scheme-relative `//css/`.
            guard requestPath.hasSuffix("/") else { return .redirect(Self.location(ofDirectory: relative)) }
            path += "/index.html"
            guard let index = Self.status(path) else { return .notFound }
            info = index
        }
        guard info.isRegular, let real = Self.realPath(path), real.hasPrefix(root + "/") else { return .notFound }
        if gzip, let zipped = Self.status(real + ".gz"), zipped.isRegular, let realZipped = Self.realPath(real + ".gz"),
            realZipped.hasPrefix(root + "/"), let bytes = read(realZipped, info: zipped)
        {
            return .file(zipped.fileInfo(path: real), bytes, gzipped: true)
        }
        guard info.size <= configuration.maxFileBytes else { return .tooLarge }
        guard let bytes = read(real, info: info) else { return .notFound }
        return .file(info.fileInfo(path: real), bytes, gzipped: false)
    }

    private func read(_ path: String, info: Status) -> [UInt8]? {
        if let cached = cache.withLock({ $0.entries[path] }), cached.size == info.size,
            cached.modified == info.modifiedNanosecondsTotal
        {
            return cached.bytes
        }
        guard info.size <= configuration.maxFileBytes else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: info.size)
        var offset = 0
        while offset < info.size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(fd, base + offset, info.size - offset)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        guard offset == info.size else { return nil }
        if info.size <= configuration.maxCachedFileBytes {
            cache.withLock { cache in
                if cache.bytes + info.size > configuration.maxCacheBytes {
                    cache.entries.removeAll()
                    cache.bytes = 0
                }
                cache.bytes += info.size - (cache.entries[path]?.size ?? 0)
                cache.entries[path] = CachedFile(size: info.size, modified: info.modifiedNanosecondsTotal, bytes: bytes)
            }
        }
        return bytes
    }

    private struct Status {
        var isDirectory: Bool
        var isRegular: Bool
        var size: Int
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
        var modifiedNanosecondsTotal: Int { modifiedSeconds &* 1_000_000_000 &+ modifiedNanoseconds }
        func fileInfo(path: String) -> FileInfo {
            FileInfo(path: path, size: size, modifiedSeconds: modifiedSeconds, modifiedNanoseconds: modifiedNanoseconds)
        }
    }

    private static func status(_ path: String) -> Status? {
        var status = Glibc.stat()
        guard fstatat(AT_FDCWD, path, &status, 0) == 0 else { return nil }
        let type = status.st_mode & S_IFMT
        return Status(
            isDirectory: type == S_IFDIR, isRegular: type == S_IFREG, size: Int(status.st_size),
            modifiedSeconds: Int(status.st_mtim.tv_sec), modifiedNanoseconds: Int(status.st_mtim.tv_nsec))
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
