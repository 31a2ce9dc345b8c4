/// A generic JSON value: the tree the ``JSONReader`` would build, for tests and tools.
///
/// Decoders of wire messages never build it; they read what they need straight from the bytes. Duplicate member
/// names keep the last value, as Foundation's `JSONSerialization` does.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one JSON text.
    /// - Parameters:
    ///   - bytes: UTF-8 input.
    ///   - limits: Size and depth limits.
    /// - Throws: `JSONError` when the input is not a single well-formed JSON value (RFC 8259).
    static func parse(_ bytes: [UInt8], limits: WireLimits = WireLimits()) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBytes { raw in
            do throws(JSONError) {
                var reader = try JSONReader(raw, limits: limits)
                let value = try read(&reader)
                try reader.finish()
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func read(_ reader: inout JSONReader) throws(JSONError) -> JSONValue {
        switch try reader.peekKind() {
        case .null:
            try reader.readNull()
            return .null
        case .bool: return .bool(try reader.readBool())
        case .number: return .number(try reader.readNumber())
        case .string: return .string(try reader.readString())
        case .array:
            try reader.beginArray()
            var elements: [JSONValue] = []
            var first = true
            while try reader.nextElement(&first) { elements.append(try read(&reader)) }
            return .array(elements)
        case .object:
            try reader.beginObject()
            var members: [String: JSONValue] = [:]
            var first = true
            while let key = try reader.nextKey(&first) { members[reader.string(key)] = try read(&reader) }
            return .object(members)
        }
    }
}
