import MotionCore
import Testing

/// The one rule for the texts clients name things with: bounded in bytes and scalars (never Characters), no
/// controls, bidirectional controls or separators; what subjects and exercise names both keep.
@Suite struct TextRuleTests {
    static let rule = TextRule(maxBytes: 8, maxScalars: 4)

    @Test func boundsBytesAndScalarsApart() {
        #expect(Self.rule.violation(in: "abcd") == nil)
        #expect(Self.rule.violation(in: "abcde") == .tooLong, "5 scalars")
        #expect(Self.rule.violation(in: "éééé") == nil, "8 bytes, 4 scalars")
        #expect(Self.rule.violation(in: "😀😀") == nil, "8 bytes")
        #expect(Self.rule.violation(in: "😀😀a") == .tooLong, "9 bytes, 3 scalars")
        #expect(Self.rule.violation(in: "a\u{301}\u{301}\u{301}\u{301}") == .tooLong, "one Character, 5 scalars")
    }

    @Test func emptyIsAllowedOnlyWhereTheRuleSaysSo() {
        #expect(Self.rule.violation(in: "") == nil)
        let required = TextRule(maxBytes: 8, maxScalars: 4, allowsEmpty: false)
        #expect(required.violation(in: "") == .empty)
        #expect(required.message(for: .empty, field: "name") == "name must not be empty")
    }

    @Test(
        arguments: [
            0x00, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0x85, 0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E,
            0x2066, 0x2069,
        ] as [UInt32])
    func refusesControlsBidirectionalControlsAndSeparators(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(!TextRule.isAllowed(scalar))
        #expect(Self.rule.violation(in: "a\(Character(scalar))b") == .forbidden(scalar))
    }

    @Test(arguments: [0x20, 0x7E, 0xA0, 0xE9, 0x061B, 0x200C, 0x200D, 0x2027, 0x202F, 0x206A, 0x1F600] as [UInt32])
    func allowsEverythingElse(_ value: UInt32) throws {
        #expect(TextRule.isAllowed(try #require(Unicode.Scalar(value))))
    }

    @Test func reportsLengthBeforeContent() {
        #expect(Self.rule.violation(in: "\u{202E}abcdefgh") == .tooLong)
    }

    @Test func saysTheByteBoundOnlyWhereItBinds() {
        #expect(
            Self.rule.message(for: .tooLong, field: "subject")
                == "subject must be at most 4 characters and 8 bytes of UTF-8")
        let loose = TextRule(maxBytes: 400, maxScalars: 100)
        #expect(loose.message(for: .tooLong, field: "name") == "name must be at most 100 characters")
    }
}
