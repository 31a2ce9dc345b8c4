import Basics

extension HTTPDate {
    /// Parses an HTTP-date in any of the three forms recipients must accept (RFC 9110 §5.6.7):
    /// IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
    /// `Sun Nov  6 08:49:37 1994`.
    /// - Parameter text: The field value.
    /// - Returns: Seconds since 1970-01-01T00:00:00Z, or nil when the value is not a valid HTTP-date.
    public static func parse(_ text: String) -> Int? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        guard tokens.count >= 5 else { return nil }
        var day: Int?
        var month: Int?
        var year: Int?
        var clock: [Int]?
        for token in tokens.dropFirst() {
            if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3, token.count == 8 else { return nil }
                clock = parts
            } else if let index = monthNames.firstIndex(of: token) {
                month = index + 1
            } else if let number = Int(token), token.allSatisfy(\.isASCII) {
                if day == nil && token.count <= 2 {
                    day = number
                } else if year == nil && (token.count == 4 || token.count == 2) {
                    // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
                    year = token.count == 4 ? number : (number < 70 ? 2000 + number : 1900 + number)
                } else {
                    return nil
                }
            } else if token != "GMT" {
                return nil
            }
        }
        guard let day, let month, let year, let clock, let date = CivilDate(year: year, month: month, day: day),
            clock[0] < 24, clock[1] < 60, clock[2] < 61
        else { return nil }
        return date.daysSinceEpoch * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
    }
}
