import Basics

/// Serialises responses into a caller-provided buffer, so a whole response can be sent with one write.
///
/// Rules applied by `write(_:body:date:requestMethod:into:)`:
/// - `Date` is added from the `date` argument when given and not already present (time is an input; format it
///   with `HTTPDate.imfFixdate(unixTime:)`, RFC 9110 §6.6.1);
/// - `Content-Length` is added when absent, unless Transfer-Encoding is set or the status is 1xx, 204 or 304
///   (RFC 9110 §8.6); an explicit Content-Length must match the body except for HEAD;
/// - the body is omitted for HEAD requests and 1xx/204/304 statuses (RFC 9110 §6.4.1), but a HEAD response keeps
///   the Content-Length of the body it would have sent (RFC 9110 §9.3.2);
/// - with Transfer-Encoding set, the body bytes are written verbatim (the caller frames them, e.g. with
///   `HTTPChunkedWriter`).
///
/// Field names must be tokens and values must not contain CR, LF, NUL or other controls; violations throw
/// `HTTPWriteError` before anything is appended, which prevents response splitting.
public enum HTTPResponseWriter {
    /// Appends a complete response (status line, fields, blank line, body) to `buffer`.
    ///
    /// - Parameters:
    ///   - head: The status and header fields.
    ///   - body: The content; omitted on the wire for HEAD requests and 1xx/204/304 statuses.
    ///   - date: A preformatted IMF-fixdate for the `Date` field, or `nil` to send none.
    ///   - requestMethod: The method of the request being answered; `.head` suppresses the body.
    ///   - buffer: The buffer to append to; unchanged when an error is thrown.
    /// - Throws: `HTTPWriteError` for invalid status, fields, or inconsistent framing.
    public static func write(
        _ head: HTTPResponseHead,
        body: some Collection<UInt8>,
        date: String? = nil,
        requestMethod: HTTPMethod = .get,
        into buffer: inout [UInt8]
    ) throws(HTTPWriteError) {
        let fields = try HeadFields(head, date: date)
        let isHeadRequest = requestMethod == .head
        let status = head.status
        let hasTransferEncoding = fields.hasTransferEncoding
        let declaredLength = fields.contentLength
        if hasTransferEncoding && declaredLength != nil { throw .conflictingFraming }
        var automaticLength: Int?
        if status.permitsContent && !hasTransferEncoding {
            if let declaredLength {
                if !isHeadRequest && ASCII.parseDecimal(declaredLength.utf8) != .value(body.count) {
                    throw .contentLengthMismatch(declared: declaredLength, actual: body.count)
                }
            } else {
                automaticLength = body.count
            }
        }
        let writesBody = status.permitsContent && !isHeadRequest
        buffer.reserveCapacity(buffer.count + fields.estimatedSize + (writesBody ? body.count : 0))
        appendHead(head, date: fields.hasDate ? nil : date, to: &buffer)
        if let automaticLength {
            buffer.append(contentsOf: "Content-Length: ".utf8)
            buffer.appendDecimal(automaticLength)
            buffer.append(contentsOf: ByteWriting.crlf)
        }
        buffer.append(contentsOf: ByteWriting.crlf)
        if writesBody {
            buffer.append(contentsOf: body)
        }
    }

    /// Appends a complete response without content (`Content-Length: 0` where permitted).
    ///
    /// - Parameters:
    ///   - head: The status and header fields.
    ///   - date: A preformatted IMF-fixdate for the `Date` field, or `nil` to send none.
    ///   - requestMethod: The method of the request being answered.
    ///   - buffer: The buffer to append to; unchanged when an error is thrown.
    /// - Throws: `HTTPWriteError` for invalid status or fields.
    public static func write(
        _ head: HTTPResponseHead,
        date: String? = nil,
        requestMethod: HTTPMethod = .get,
        into buffer: inout [UInt8]
    ) throws(HTTPWriteError) {
        try write(head, body: EmptyCollection<UInt8>(), date: date, requestMethod: requestMethod, into: &buffer)
    }

    /// Appends only the status line, fields and blank line, for a body streamed afterwards. No Content-Length is
    /// added: set `Transfer-Encoding: chunked` (and use `HTTPChunkedWriter`) or an explicit Content-Length.
    ///
    /// - Parameters:
    ///   - head: The status and header fields.
    ///   - date: A preformatted IMF-fixdate for the `Date` field, or `nil` to send none.
    ///   - buffer: The buffer to append to; unchanged when an error is thrown.
    /// - Throws: `HTTPWriteError` for invalid status or fields, or both Content-Length and Transfer-Encoding.
    public static func writeHead(
        _ head: HTTPResponseHead,
        date: String? = nil,
        into buffer: inout [UInt8]
    ) throws(HTTPWriteError) {
        let fields = try HeadFields(head, date: date)
        if fields.hasTransferEncoding && fields.contentLength != nil { throw .conflictingFraming }
        buffer.reserveCapacity(buffer.count + fields.estimatedSize)
        appendHead(head, date: fields.hasDate ? nil : date, to: &buffer)
        buffer.append(contentsOf: ByteWriting.crlf)
    }

    /// What the framing rules read from a head, found in the one pass that also checks every field (RFC 9110 §5.1,
    /// §5.5: names are tokens, values have no CR, LF, NUL or other controls) before anything is written.
    private struct HeadFields {
        var hasTransferEncoding = false
        /// The first `Content-Length` value.
        var contentLength: String?
        var hasDate = false
        /// A generous estimate of the serialised head size, to reserve capacity once.
        var estimatedSize: Int

        init(_ head: HTTPResponseHead, date: String?) throws(HTTPWriteError) {
            // RFC 9112 §4: status-code = 3DIGIT; reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ).
            guard (100...999).contains(head.status.code) else { throw .invalidStatusCode(head.status.code) }
            guard ASCII.isFieldValue(head.status.reasonPhrase) else { throw .invalidReasonPhrase }
            estimatedSize = 64 + head.status.reasonPhrase.utf8.count + (date.map { $0.utf8.count + 8 } ?? 0)
            for (name, value) in head.headers {
                try ByteWriting.validateField(name: name, value: value)
                let bytes = name.utf8
                estimatedSize += bytes.count + value.utf8.count + 4
                switch bytes.count {
                case 4 where ASCII.equalsIgnoringCase(bytes, "Date".utf8):
                    hasDate = true
                case 14 where ASCII.equalsIgnoringCase(bytes, "Content-Length".utf8):
                    if contentLength == nil { contentLength = value }
                case 17 where ASCII.equalsIgnoringCase(bytes, "Transfer-Encoding".utf8):
                    hasTransferEncoding = true
                default:
                    continue
                }
            }
            if let date, !hasDate { try ByteWriting.validateField(name: "Date", value: date) }
        }
    }

    /// Appends the status line, `Date` (when given: nil when the head has its own) and the fields, without the
    /// terminating blank line.
    private static func appendHead(_ head: HTTPResponseHead, date: String?, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: "HTTP/".utf8)
        buffer.appendDecimal(head.version.major)
        buffer.append(0x2E)
        buffer.appendDecimal(head.version.minor)
        buffer.append(ASCII.space)
        buffer.appendDecimal(head.status.code)
        buffer.append(ASCII.space)
        ByteWriting.appendUTF8(of: head.status.reasonPhrase, to: &buffer)
        buffer.append(contentsOf: ByteWriting.crlf)
        if let date {
            ByteWriting.appendField(name: "Date", value: date, to: &buffer)
        }
        for field in head.headers {
            ByteWriting.appendField(name: field.name, value: field.value, to: &buffer)
        }
    }
}
