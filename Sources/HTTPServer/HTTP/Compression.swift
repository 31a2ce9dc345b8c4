import HTTPWire

/// When to gzip a response body (RFC 9110 §8.4, §12.5.3).
enum Compression {
    /// Gzips `bytes` into `body` when it pays, marking the encoding and a distinct strong ETag (RFC 9110 §8.8.3:
    /// each encoding of a resource needs its own); adds `Vary` whenever the choice depended on `Accept-Encoding`.
    static func apply(
        to body: inout HTTPResponse.Body, headers: inout HTTPHeaders, bytes: [UInt8], request: HTTPRequestHead,
        threshold: Int
    ) {
        guard bytes.count >= threshold, !headers.contains(name: "Content-Encoding"),
            isCompressible(headers["Content-Type"])
        else { return }
        if !headers.contains(token: "Accept-Encoding", in: "Vary") {
            headers.add(name: "Vary", value: "Accept-Encoding")
        }
        guard let compressed = gzipIfWorthIt(bytes, headers: headers, request: request, threshold: threshold) else {
            return
        }
        headers.replaceOrAdd(name: "Content-Encoding", value: "gzip")
        if let etag = headers["ETag"], etag.hasSuffix("\"") {
            headers.replaceOrAdd(name: "ETag", value: String(etag.dropLast()) + "-gzip\"")
        }
        body = .bytes(compressed)
    }

    /// The gzipped body when the client accepts gzip, the body is large enough, its type compresses, it is not
    /// already encoded, and compression saves at least an eighth; otherwise nil.
    static func gzipIfWorthIt(
        _ body: [UInt8], headers: HTTPHeaders, request: HTTPRequestHead, threshold: Int
    ) -> [UInt8]? {
        guard body.count >= threshold, !headers.contains(name: "Content-Encoding"),
            acceptsGzip(request.headers), isCompressible(headers["Content-Type"])
        else { return nil }
        let compressed = Gzip.compress(body)
        return compressed.count <= body.count - body.count / 8 ? compressed : nil
    }

    /// Whether `Accept-Encoding` lists gzip with a non-zero quality.
    static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
        for value in headers.values(for: "Accept-Encoding") {
            for item in value.split(separator: ",") {
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: " \t") }
                guard let coding = parts.first?.lowercased(), coding == "gzip" || coding == "x-gzip" else { continue }
                let quality = parts.dropFirst().first { $0.lowercased().hasPrefix("q=") }.flatMap {
                    Double($0.dropFirst(2))
                }
                return (quality ?? 1) > 0
            }
        }
        return false
    }

    static func isCompressible(_ contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type.hasPrefix("text/") || type.hasPrefix("application/json") || type.hasPrefix("application/javascript")
            || type.hasPrefix("image/svg+xml") || type.hasPrefix("application/xml")
            || type.hasPrefix("application/x-ndjson") || type.hasPrefix("application/manifest+json")
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
