/// Just enough reading of the server's messages (docs/protocol.md §3) for a load generator: the type, and single
/// fields found by their key — no JSON parser, no allocation for snapshots. The server writes `type` first.
enum ServerMessage {
    enum Kind {
        case snapshot, event, started, summary, error, checkpoint, resumed, other
    }

    private static let typePrefix: [UInt8] = Array(#"{"type":""#.utf8)

    /// The type names with their closing quote, the most frequent first.
    private static let types: [(name: [UInt8], kind: Kind)] = [
        (Array(#"snapshot""#.utf8), .snapshot), (Array(#"event""#.utf8), .event),
        (Array(#"started""#.utf8), .started), (Array(#"summary""#.utf8), .summary), (Array(#"error""#.utf8), .error),
        (Array(#"checkpoint""#.utf8), .checkpoint), (Array(#"resumed""#.utf8), .resumed),
    ]

    static func kind(of payload: UnsafeRawBufferPointer) -> Kind {
        guard payload.starts(with: typePrefix) else { return .other }
        let start = typePrefix.count
        for (name, kind) in types
        where payload.count >= start + name.count && payload[start..<(start + name.count)].elementsEqual(name) {
            return kind
        }
        return .other
    }

    /// Keys, as they appear in the server's messages.
    static let timeKey: [UInt8] = Array(#""t":"#.utf8)
    static let motionTimeKey: [UInt8] = Array(#""motionT":"#.utf8)
    static let eventKey: [UInt8] = Array(#""event":"#.utf8)
    static let codeKey: [UInt8] = Array(#""code":"#.utf8)
    static let sessionKey: [UInt8] = Array(#""session":"#.utf8)
    static let resumeKey: [UInt8] = Array(#""resume":"#.utf8)

    /// Where the value of the first `key` (`"name":`) begins, if anywhere.
    private static func valueStart(_ key: [UInt8], in payload: UnsafeRawBufferPointer) -> Int? {
        guard payload.count >= key.count else { return nil }
        var index = 0
        while index + key.count <= payload.count {
            if payload[index] == key[0] && payload[index..<(index + key.count)].elementsEqual(key) {
                return index + key.count
            }
            index += 1
        }
        return nil
    }

    /// The bytes of the number that is the value of the first `key`.
    static func numberField(_ key: [UInt8], in payload: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let start = valueStart(key, in: payload) else { return nil }
        var end = start
        while end < payload.count {
            let byte = payload[end]
            guard (0x30...0x39).contains(byte) || byte == 0x2E || byte == 0x2D || byte == 0x2B || byte | 0x20 == 0x65
            else { break }
            end += 1
        }
        return end > start ? UnsafeRawBufferPointer(rebasing: payload[start..<end]) : nil
    }

    /// The string value of the first `key` (escapes left as they are; the server's codes and kinds have none).
    static func stringField(_ key: [UInt8], in payload: UnsafeRawBufferPointer) -> String? {
        guard let start = valueStart(key, in: payload), start < payload.count, payload[start] == 0x22 else {
            return nil
        }
        var end = start + 1
        while end < payload.count && payload[end] != 0x22 { end += 1 }
        guard end < payload.count else { return nil }
        return String(decoding: payload[(start + 1)..<end], as: UTF8.self)
    }
}
