/// Running a decoder over a whole message, and the typed reads decoders share.
extension JSONReader {
    /// Runs `body` over one JSON text and maps every failure to a ``WireError``.
    ///
    /// A syntax error anywhere in the input outranks a semantic one found earlier (a `t` given as a string, say):
    /// when `body` throws a `WireError`, the whole input is validated again and a syntax error, if any, is thrown
    /// instead, so the answer does not depend on where in the message the decoder stopped.
    /// - Parameters:
    ///   - bytes: The message.
    ///   - limits: Size and depth limits.
    ///   - body: Reads one value; ``finish()`` is checked afterwards.
    /// - Throws: `WireError` with `invalidJSON` or `messageTooBig` for syntax and size errors, else what `body`
    ///   throws.
    static func decode<Result>(
        _ bytes: UnsafeRawBufferPointer, limits: WireLimits, _ body: (inout JSONReader) throws -> Result
    ) throws(WireError) -> Result {
        do {
            var reader = try JSONReader(bytes, limits: limits)
            let result = try body(&reader)
            try reader.finish()
            return result
        } catch {
            throw wireError(for: error, in: bytes, limits: limits)
        }
    }

    /// Reads a batch message at the reader's position (`{"type": …, "frames": [ … ]}`, say): an object whose member
    /// `name` is an array, with `type` and `name` at most once each and other members skipped, calling `element`
    /// with the reader at each element of the array in turn.
    /// - Parameters:
    ///   - name: The array's member.
    ///   - code: The error code for an array member missing, repeated or not an array (a repeated `type` is
    ///     `invalidMessage`).
    ///   - element: Reads one element, given its index.
    /// - Throws: ``WireError`` with `code` for the shape; ``JSONError`` for syntax; what `element` throws.
    mutating func readBatch(
        of name: StaticString, code: ErrorCode, required: Bool = true,
        _ element: (inout JSONReader, Int) throws -> Void
    ) throws {
        var hasArray = false
        var hasType = false
        var count = 0
        try beginObject()
        var first = true
        while let key = try nextKey(&first) {
            if self.key(key, is: "type") {
                guard !hasType else { throw WireError.duplicateMember("type", code: .invalidMessage) }
                hasType = true
                try skipValue()
                continue
            }
            guard self.key(key, is: name) else {
                try skipValue()
                continue
            }
            guard !hasArray else { throw WireError.duplicateMember("\(name)", code: code) }
            hasArray = true
            guard try peekKind() == .array else { throw WireError(code: code, message: "\(name) must be an array") }
            try beginArray()
            var firstElement = true
            while try nextElement(&firstElement) {
                try element(&self, count)
                count += 1
            }
        }
        guard hasArray || !required else { throw WireError(code: code, message: "\(name) is required") }
    }

    /// The error to answer for what a decoding body threw: a syntax error anywhere in `bytes` first.
    private static func wireError(
        for error: any Error, in bytes: UnsafeRawBufferPointer, limits: WireLimits
    ) -> WireError {
        switch error {
        case let error as JSONError: return WireError(error)
        case let error as WireError:
            if let syntaxError = validate(bytes, limits: limits) { return WireError(syntaxError) }
            return error
        default: return WireError(code: .invalidJSON, message: "\(error)")
        }
    }

    /// Runs `body` over one JSON text held in an array, as ``decode(_:limits:_:)-(UnsafeRawBufferPointer,_,_)``.
    static func decode<Result>(
        _ bytes: [UInt8], limits: WireLimits, _ body: (inout JSONReader) throws -> Result
    ) throws(WireError) -> Result {
        let outcome = bytes.withUnsafeBytes { raw in
            Swift.Result { () throws(WireError) -> Result in try decode(raw, limits: limits, body) }
        }
        return try outcome.get()
    }

    /// Runs `body` over one JSON text, as ``decode(_:limits:_:)-(UnsafeRawBufferPointer,_,_)``, for decoders that
    /// note what they see in `report`: when the input is refused after all, whatever `body` noted is taken back,
    /// so a report only ever describes accepted input.
    ///
    /// Written out rather than built on the plain `decode`: one closure less on the way of every pose.
    static func decode<Result>(
        _ bytes: UnsafeRawBufferPointer, limits: WireLimits, report: inout DecodingReport,
        _ body: (inout JSONReader, inout DecodingReport) throws -> Result
    ) throws(WireError) -> Result {
        // Decoders fill a field only while it is nil, so putting back nil undoes them.
        let hadUnknownJoint = report.unknownJoint != nil
        do {
            var reader = try JSONReader(bytes, limits: limits)
            let result = try body(&reader, &report)
            try reader.finish()
            return result
        } catch {
            if !hadUnknownJoint { report.unknownJoint = nil }
            throw wireError(for: error, in: bytes, limits: limits)
        }
    }

    /// Runs `body` over one JSON text held in an array, as
    /// ``decode(_:limits:report:_:)-(UnsafeRawBufferPointer,_,_,_)``.
    static func decode<Result>(
        _ bytes: [UInt8], limits: WireLimits, report: inout DecodingReport,
        _ body: (inout JSONReader, inout DecodingReport) throws -> Result
    ) throws(WireError) -> Result {
        let outcome = bytes.withUnsafeBytes { raw in
            Swift.Result { () throws(WireError) -> Result in try decode(raw, limits: limits, report: &report, body) }
        }
        return try outcome.get()
    }

    /// The first syntax error of `bytes`, or nil when it is one well-formed JSON value.
    static func validate(_ bytes: UnsafeRawBufferPointer, limits: WireLimits) -> JSONError? {
        do throws(JSONError) {
            var reader = try JSONReader(bytes, limits: limits)
            try reader.skipValue()
            try reader.finish()
            return nil
        } catch {
            return error
        }
    }

    /// Reads a number, or throws `error` (built only then) when the value is of another kind.
    mutating func readNumber(or error: @autoclosure () -> WireError) throws -> Double {
        guard try peekKind() == .number else { throw error() }
        return try readNumber()
    }

    /// Reads a number or `null`, or throws `error` (built only then) when the value is of another kind.
    mutating func readOptionalNumber(or error: @autoclosure () -> WireError) throws -> Double? {
        switch try peekKind() {
        case .number: return try readNumber()
        case .null:
            try readNull()
            return nil
        default: throw error()
        }
    }

    /// Consumes `null` and returns true, or returns false without consuming anything.
    mutating func readNullIfPresent() throws -> Bool {
        guard try peekKind() == .null else { return false }
        try readNull()
        return true
    }
}
