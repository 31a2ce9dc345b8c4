import COpenSSL

/// OpenSSL's per-thread error queue.
enum OpenSSLErrors {
    /// The oldest queued error as one line (OpenSSL's reason string), or `fallback`; empties the queue, which every
    /// TLS call on this thread needs empty before it starts (`SSL_get_error`).
    static func take(or fallback: String = "unknown error") -> String {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return fallback }
        if let reason = ERR_reason_error_string(code) { return String(cString: reason) }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Empties the queue.
    static func clear() { ERR_clear_error() }
}
