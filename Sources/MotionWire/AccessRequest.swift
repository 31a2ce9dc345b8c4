/// The body of `POST /v1/subjects/{subject}/access` (docs/protocol.md §6.1): `{}` or `{"expiresInSeconds":86400}`.
public enum AccessRequest {
    /// Reads `expiresInSeconds`, nil when absent or `null`; other members are skipped.
    /// - Parameters:
    ///   - bytes: The body.
    ///   - range: The seconds allowed.
    /// - Returns: The seconds.
    /// - Throws: `invalidJSON` for text that is no JSON object, `invalidMessage` for a value that is no whole number
    ///   within `range` or a member given twice.
    public static func expiresInSeconds(_ bytes: [UInt8], range: ClosedRange<Int>) throws(WireError) -> Int? {
        try JSONReader.decode(bytes, limits: WireLimits(maxMessageBytes: 4_096, maxDepth: 8)) { reader in
            guard try reader.peekKind() == .object else { throw WireError.invalidMessage("the body must be an object") }
            var seconds: Int?
            var seen = false
            try reader.beginObject()
            var first = true
            while let key = try reader.nextKey(&first) {
                guard reader.key(key, is: "expiresInSeconds") else {
                    try reader.skipValue()
                    continue
                }
                guard !seen else {
                    throw WireError.duplicateMember("expiresInSeconds", code: .invalidMessage)
                }
                seen = true
                let invalid = WireError.invalidMessage(
                    "expiresInSeconds must be a whole number within \(range.lowerBound)…\(range.upperBound)")
                guard let value = try reader.readOptionalNumber(or: invalid) else { continue }
                guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound)
                else { throw invalid }
                seconds = Int(value)
            }
            return seconds
        }
    }
}

extension WireEncoder {
    /// Appends a server time, Unix milliseconds, as a quoted ISO-8601 UTC timestamp (`null` for nil).
    /// - Parameters:
    ///   - milliseconds: The time.
    ///   - buffer: The buffer to append to.
    public static func appendTimestamp(milliseconds: Int64?, into buffer: inout [UInt8]) {
        ISO8601Timestamp.append(milliseconds.map { Double($0) / 1000 }, to: &buffer)
    }
}
