extension POSIXTimeZone {
    /// Text that is not a POSIX `TZ` rule as RFC 8536 §3.3 allows one: where in it reading stopped.
    public struct SyntaxError: Error, Hashable, Sendable {
        /// The byte offset at which the text stops being a rule (its length when it ends too early).
        public var position: Int

        /// The error at a byte offset.
        public init(position: Int) { self.position = position }
    }

    /// Reads a POSIX `TZ` rule with the extensions of RFC 8536 §3.3.1: `std offset [dst [offset] ,start[/time],
    /// end[/time]]`, names alphabetic (`CET`) or quoted (`<-03>`), offsets `[+-]hh[:mm[:ss]]` with hours 0–24 and
    /// transition times with hours −167 to 167.
    ///
    /// A daylight-saving name without its rules (the `EST5EDT` of old systems, whose rules POSIX leaves to each
    /// system) is refused: the footers of TZif files always spell them out.
    /// - Parameter text: The rule, e.g. `CET-1CEST,M3.5.0,M10.5.0/3`, `<-03>3`, `EST5EDT,M3.2.0,M11.1.0`.
    /// - Throws: ``SyntaxError`` with the position of the first byte that does not fit.
    public init(parsing text: some StringProtocol) throws(SyntaxError) {
        var reader = RuleReader(bytes: Array(text.utf8))
        try reader.skipName()
        let west = try reader.offset()
        let standard = -west
        standardOffset = standard
        if reader.isAtEnd {
            daylight = nil
            return
        }
        try reader.skipName()
        var offset = standard + 3600
        if !reader.isAt(","), !reader.isAtEnd {
            let west = try reader.offset()
            offset = -west
        }
        try reader.expect(",")
        let start = try reader.transition()
        try reader.expect(",")
        let end = try reader.transition()
        guard reader.isAtEnd else { throw SyntaxError(position: reader.position) }
        daylight = Daylight(offset: offset, start: start, end: end)
    }
}

/// A cursor over the bytes of a `TZ` rule.
private struct RuleReader {
    let bytes: [UInt8]
    var position = 0

    var isAtEnd: Bool { position == bytes.count }

    private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    private var failure: POSIXTimeZone.SyntaxError { POSIXTimeZone.SyntaxError(position: position) }

    func isAt(_ character: Unicode.Scalar) -> Bool { next == UInt8(ascii: character) }

    /// Consumes `character` when it is next.
    mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard next == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    mutating func expect(_ character: Unicode.Scalar) throws(POSIXTimeZone.SyntaxError) {
        guard consume(character) else { throw failure }
    }

    /// A zone abbreviation: three or more letters, or `<`three or more letters, digits, `+` or `-``>`.
    mutating func skipName() throws(POSIXTimeZone.SyntaxError) {
        let start = position
        if consume("<") {
            while let byte = next, Self.isLetter(byte) || Self.isDigit(byte) || byte == 0x2B || byte == 0x2D {
                position += 1
            }
            guard position - start - 1 >= 3 else { throw failure }
            try expect(">")
        } else {
            while let byte = next, Self.isLetter(byte) { position += 1 }
            guard position - start >= 3 else { throw failure }
        }
    }

    /// `[+-]hh[:mm[:ss]]` with hours 0–24, as seconds west of UTC (POSIX's sign).
    mutating func offset() throws(POSIXTimeZone.SyntaxError) -> Int {
        try signedDuration(maxHours: 24)
    }

    /// A transition: a day, then `/time` (hours −167 to 167, RFC 8536 §3.3.1) or 02:00.
    mutating func transition() throws(POSIXTimeZone.SyntaxError) -> POSIXTimeZone.Transition {
        let day: POSIXTimeZone.Day
        if consume("J") {
            day = .julian(try number(in: 1...365, digits: 3))
        } else if consume("M") {
            let month = try number(in: 1...12, digits: 2)
            try expect(".")
            let week = try number(in: 1...5, digits: 1)
            try expect(".")
            day = .monthWeekDay(month: month, week: week, weekday: try number(in: 0...6, digits: 1))
        } else {
            day = .zeroBased(try number(in: 0...365, digits: 3))
        }
        var time = 7200
        if consume("/") { time = try signedDuration(maxHours: 167) }
        return POSIXTimeZone.Transition(day: day, time: time)
    }

    /// `[+-]h[h[h]][:mm[:ss]]` as seconds.
    private mutating func signedDuration(maxHours: Int) throws(POSIXTimeZone.SyntaxError) -> Int {
        let sign = consume("-") ? -1 : 1
        if sign == 1 { _ = consume("+") }
        var seconds = try number(in: 0...maxHours, digits: 3) * 3600
        if consume(":") {
            seconds += try number(in: 0...59, digits: 2) * 60
            if consume(":") { seconds += try number(in: 0...59, digits: 2) }
        }
        return sign * seconds
    }

    /// A decimal number of 1 to `digits` digits within `range`.
    private mutating func number(in range: ClosedRange<Int>, digits: Int) throws(POSIXTimeZone.SyntaxError) -> Int {
        let start = position
        var value = 0
        while let byte = next, Self.isDigit(byte), position - start < digits {
            value = value * 10 + Int(byte - 0x30)
            position += 1
        }
        guard position > start else { throw failure }
        guard range.contains(value) else {
            position = start
            throw failure
        }
        return value
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
