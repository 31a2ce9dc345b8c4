public import MotionCore

/// Decodes the phone's motion samples (docs/protocol.md §3.3): the `samples` of a `motion` message, or of a
/// `POST /v1/sessions/{id}/motion` body, each `[t, ax, ay, az]` or `[t, ax, ay, az, rx, ry, rz]`.
///
/// ```swift
/// let decoder = MotionDecoder()
/// for (batchIndex, sample) in try decoder.decodeSamples(body).enumerated() {
///     switch sample {
///     case .success(let sample): try analyzer.append(sample)
///     case .failure(let error): …  // answered with its batchIndex; the other samples go on
///     }
/// }
/// ```
///
/// Samples are judged one by one, as the frames of a `poses` batch are (docs/protocol.md §3): a sample that is
/// well-formed JSON but not a valid sample is refused alone with ``ErrorCode/invalidMessage``, its message naming
/// it (`samples[3]: must be [t, ax, ay, az] or [t, ax, ay, az, rx, ry, rz]`), and the samples after it are still
/// read. Accepted ranges: `t` finite and within ±1e12 s; accelerations and rotation rates finite and within ±1e6.
/// Whether `t` increases is the session's to judge (``ErrorCode/nonIncreasingTime``): the stream goes on across
/// messages.
///
/// What is wrong with the whole message throws: a syntax error anywhere (`invalidJSON`), too many bytes or more
/// than ``WireLimits/maxSamplesPerMessage`` samples (`messageTooBig`), `samples` missing, given twice or not an
/// array, or `type` given twice (`invalidMessage`). Other members are skipped.
public struct MotionDecoder: Sendable, Hashable {
    /// Size, depth and sample-count limits.
    public var limits: WireLimits

    /// Creates a decoder.
    /// - Parameter limits: Size, depth and sample-count limits.
    public init(limits: WireLimits = WireLimits()) {
        self.limits = limits
    }

    private static let maxTimestamp = 1e12
    private static let maxReading = 1e6

    /// Decodes a `motion` message or a REST body: an object with a `samples` array (`type`, if present, is not
    /// checked, but may appear only once).
    /// - Parameter bytes: The UTF-8 JSON object.
    /// - Returns: Each sample in order, the sample or the error that refused it; the element's index is the sample's
    ///   `batchIndex`.
    /// - Throws: `WireError` for the whole message; see the type's documentation.
    /// - Complexity: O(n) in the size of the input; allocates the result, and the error of each refused sample.
    public func decodeSamples(_ bytes: [UInt8]) throws(WireError) -> [Result<MotionSample, WireError>] {
        try JSONReader.decode(bytes, limits: limits) { reader in try readSamples(&reader) }
    }

    /// Decodes a `motion` message or a REST body from raw bytes, as ``decodeSamples(_:)-([UInt8])``.
    /// - Parameter bytes: The UTF-8 JSON object.
    /// - Returns: Each sample in order, the sample or the error that refused it.
    /// - Throws: `WireError` for the whole message.
    public func decodeSamples(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> [Result<MotionSample, WireError>] {
        try JSONReader.decode(bytes, limits: limits) { reader in try readSamples(&reader) }
    }

    /// Decodes the `motion` member of a `POST /v1/analyze` body: the recording's samples, judged one by one as a
    /// `motion` message's are, each refusal naming `motion[i]`. Without the member there are none; at most
    /// ``WireLimits/maxSamplesPerRecording`` (`messageTooBig` beyond). Other members (the frames, the options) are
    /// skipped: the body is read again for them.
    /// - Parameter bytes: The UTF-8 JSON object.
    /// - Returns: Each sample in order, the sample or the error that refused it; the element's index is the sample's
    ///   index in `motion`.
    /// - Throws: `WireError` for the whole body, as ``decodeSamples(_:)-([UInt8])``.
    public func decodeRecordingSamples(_ bytes: [UInt8]) throws(WireError) -> [Result<MotionSample, WireError>] {
        try JSONReader.decode(bytes, limits: limits) { reader in
            try readSamples(&reader, member: "motion", required: false, limit: limits.maxSamplesPerRecording)
        }
    }

    /// Reads the object at the reader's position: its `samples` (or `member`), each judged alone.
    func readSamples(_ reader: inout JSONReader) throws -> [Result<MotionSample, WireError>] {
        try readSamples(&reader, member: "samples", required: true, limit: limits.maxSamplesPerMessage)
    }

    private func readSamples(
        _ reader: inout JSONReader, member: StaticString, required: Bool, limit: Int
    ) throws -> [Result<MotionSample, WireError>] {
        guard try reader.peekKind() == .object else {
            throw WireError.invalidMessage("a motion message must be a JSON object")
        }
        var samples: [Result<MotionSample, WireError>] = []
        samples.reserveCapacity(16)
        try reader.readBatch(of: member, code: .invalidMessage, required: required) { reader, index in
            guard index < limit else {
                throw WireError(code: .messageTooBig, message: "more than \(limit) samples")
            }
            samples.append(try readSample(&reader, member: member, index: index))
        }
        return samples
    }

    /// Reads sample `index`: the sample, or the error that refuses it alone. A refused sample is then skipped from
    /// its start, still validated, so a syntax error later in it throws as anywhere else.
    private func readSample(
        _ reader: inout JSONReader, member: StaticString, index: Int
    ) throws(JSONError) -> Result<MotionSample, WireError> {
        let start = reader.mark
        if let sample = Self.readPlainSample(&reader) { return .success(sample) }
        reader.rewind(to: start)
        do {
            return .success(try Self.readSample(&reader))
        } catch let error as WireError {
            reader.rewind(to: start)
            try reader.skipValue()
            return .failure(WireError(code: error.code, message: "\(member)[\(index)]: \(error.message)"))
        } catch let error as JSONError {
            throw error
        } catch {
            preconditionFailure("the sample reader throws only JSONError and WireError")
        }
    }

    /// The common case on the fast path: an array of 4 or 7 plain numbers, all in range. Nil for anything else,
    /// which ``readSample(_:)`` then reads step by step, with the error if there is one.
    @inline(__always)
    private static func readPlainSample(_ reader: inout JSONReader) -> MotionSample? {
        guard reader.consumeOpeningBracket(), let t = reader.readPlainNumber(), reader.consumeComma(),
            let ax = reader.readPlainNumber(), reader.consumeComma(), let ay = reader.readPlainNumber(),
            reader.consumeComma(), let az = reader.readPlainNumber()
        else { return nil }
        guard abs(t) <= maxTimestamp, abs(ax) <= maxReading, abs(ay) <= maxReading, abs(az) <= maxReading else {
            return nil
        }
        let acceleration = MotionVector(x: ax, y: ay, z: az)
        if reader.consumeClosingBracket() { return MotionSample(t: t, acceleration: acceleration) }
        guard reader.consumeComma(), let rx = reader.readPlainNumber(), reader.consumeComma(),
            let ry = reader.readPlainNumber(), reader.consumeComma(), let rz = reader.readPlainNumber(),
            reader.consumeClosingBracket(), abs(rx) <= maxReading, abs(ry) <= maxReading, abs(rz) <= maxReading
        else { return nil }
        return MotionSample(t: t, acceleration: acceleration, rotation: MotionVector(x: rx, y: ry, z: rz))
    }

    /// Reads one sample step by step, refusing it with the reason.
    private static func readSample(_ reader: inout JSONReader) throws -> MotionSample {
        let shape = WireError.invalidMessage("must be [t, ax, ay, az] or [t, ax, ay, az, rx, ry, rz]")
        guard try reader.peekKind() == .array else { throw shape }
        var numbers: [Double] = []
        numbers.reserveCapacity(7)
        try reader.beginArray()
        var first = true
        while try reader.nextElement(&first) {
            guard numbers.count < 7, try reader.peekKind() == .number else { throw shape }
            numbers.append(try reader.readNumber())
        }
        guard numbers.count == 4 || numbers.count == 7 else { throw shape }
        guard abs(numbers[0]) <= maxTimestamp else {
            throw WireError.invalidMessage("t must be finite and within ±1e12 s")
        }
        guard numbers.dropFirst().allSatisfy({ abs($0) <= maxReading }), let sample = try? MotionSample(numbers) else {
            throw WireError.invalidMessage("readings must be finite and within ±1e6")
        }
        return sample
    }
}
