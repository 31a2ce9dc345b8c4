extension Substring {
    /// The text without the spaces and tabs it begins and ends with (HTTP's optional whitespace, RFC 9110 §5.6.3;
    /// the blanks around a comma-separated flag's items).
    func trimmingBlanks() -> String {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
