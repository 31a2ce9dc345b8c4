/// The known members of one JSON object that a decoder has read so far, one bit each: enough to refuse a
/// member name given twice without allocating.
///
/// RFC 8259 §4 only says names "SHOULD be unique" and leaves a repeated one to the parser, which may keep the
/// first value or the last. Two parsers that choose differently read one message two ways, so a message that
/// says `{"type":"pose","type":"stop"}` or `{"t":1,"t":2}` is refused rather than guessed at. Our decoders
/// refuse a repeated name among the members they know and skip unknown members, repeated or not: refusing
/// those too would need a set of names per object, and what is skipped is never read either way.
///
/// Member numbers are the decoder's own (a joint's wire index, a member enum's raw value), below 63; the last bit
/// says whether a member the decoder does not know was read.
struct KnownMembers {
    private var bits: UInt64 = 0

    /// Records member `number` and returns whether it had not been recorded before.
    @inline(__always)
    mutating func insert(_ number: Int) -> Bool {
        let bit: UInt64 = 1 &<< UInt64(truncatingIfNeeded: number)
        guard bits & bit == 0 else { return false }
        bits |= bit
        return true
    }

    /// Records that a member the decoder does not know was read.
    @inline(__always)
    mutating func insertUnknown() {
        bits |= 1 &<< 63
    }

    /// Whether a member the decoder does not know was read.
    var hasUnknown: Bool { bits & (1 &<< 63) != 0 }
}
