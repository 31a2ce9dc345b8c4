import PortableBasics

extension StartRequest {
    /// The request as a `start` object that ``init(decoding:limits:)-([UInt8],_)`` reads back as an equal value:
    /// every member this version reads, `null` where nothing was given, members in a fixed order, numbers in their
    /// shortest round-trip form.
    ///
    /// What a server keeps of a session's `start` so that it can rebuild the session elsewhere (docs/protocol.md §3.1);
    /// what a client sends.
    ///
    /// ```swift
    /// let text = StartRequest(exercise: "squat", subject: "p-17").encoded()
    /// // {"type":"start","exercise":"squat","side":null,"subject":"p-17","format":"joints",…}
    /// ```
    /// - Returns: The UTF-8 JSON object.
    public func encoded() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(256)
        buffer.appendLiteral(#"{"type":"start","exercise":"#)
        buffer.appendJSONString(exercise)
        buffer.appendLiteral(#","side":"#)
        if let side { buffer.appendJSONString(side.rawValue) } else { buffer.appendLiteral("null") }
        buffer.appendLiteral(#","subject":"#)
        if let subject { buffer.appendJSONString(subject) } else { buffer.appendLiteral("null") }
        buffer.appendLiteral(#","format":"#)
        buffer.appendJSONString(format.rawValue)
        buffer.appendLiteral(#","mirrored":"#)
        buffer.appendJSONBool(mirrored)
        buffer.appendLiteral(#","normalized":"#)
        buffer.appendJSONBool(normalized)
        buffer.appendLiteral(#","minConfidence":"#)
        buffer.appendJSONNumber(minConfidence)
        buffer.appendLiteral(#","options":{"#)
        WireEncoder.appendPrescriptionMembers(options.prescription, into: &buffer)
        buffer.appendLiteral(#","baselineReps":"#)
        WireEncoder.appendCount(options.baselineReps, into: &buffer)
        buffer.appendLiteral(#","snapshots":"#)
        switch options.snapshots {
        case .every: buffer.appendLiteral(#""every""#)
        case .off: buffer.appendLiteral(#""off""#)
        case .interval(let seconds): buffer.appendJSONNumber(seconds)
        }
        buffer.append(UInt8(ascii: "}"))
        if let programme {
            buffer.appendLiteral(#","programme":{"id":"#)
            buffer.appendJSONString(programme.id)
            buffer.appendLiteral(#","item":"#)
            buffer.appendJSONString(programme.item)
            buffer.appendLiteral(#","version":"#)
            buffer.appendJSONInteger(programme.version)
            buffer.append(UInt8(ascii: "}"))
        }
        if demo { buffer.appendLiteral(#","demo":true"#) }
        buffer.append(UInt8(ascii: "}"))
        return buffer
    }
}
