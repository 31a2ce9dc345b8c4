import Testing

@testable import MotionServer

/// The tokens file (docs/protocol.md §6): one `token tenant [operator]` line per token.
@Suite("TokenTable")
struct TokenTableTests {
    static let alice = "alice-token-0123456789"
    static let ops = "ops-token-0123456789abc"

    @Test func readsTokensTenantsAndOperators() throws {
        let table = try TokenTable(
            parsing: """
                # token                 tenant   role
                \(Self.alice)  alice

                \tbob-token-0123456789ab\tbob\t
                \(Self.ops) ops operator
                """)
        #expect(table.count == 3)
        #expect(table.grant(for: Self.alice) == TokenTable.Grant(tenant: "alice"))
        #expect(table.tenant(for: "bob-token-0123456789ab") == "bob")
        #expect(table.grant(for: Self.ops) == TokenTable.Grant(tenant: "ops", isOperator: true))
    }

    @Test func grantsOnlyTheExactToken() throws {
        let table = try TokenTable(parsing: "\(Self.alice) alice")
        for presented in [
            "", "alice", String(Self.alice.dropLast()), Self.alice + "x", Self.alice.uppercased(),
            " " + Self.alice, "# \(Self.alice)",
        ] {
            #expect(table.grant(for: presented) == nil, "\(presented)")
        }
    }

    @Test(arguments: ["", "\n\n", "# only a comment\n", "   \n\t\n"])
    func anEmptyFileHasNoTokens(text: String) throws {
        let table = try TokenTable(parsing: text)
        #expect(table.count == 0)
        #expect(table.grant(for: "") == nil)
    }

    @Test func readsWindowsLineEndings() throws {
        let table = try TokenTable(parsing: "# tokens\r\n\(Self.alice) alice\r\n\(Self.ops) ops operator\r\n")
        #expect(table.count == 2)
        #expect(table.grant(for: Self.alice) == TokenTable.Grant(tenant: "alice"))
        #expect(table.grant(for: Self.ops) == TokenTable.Grant(tenant: "ops", isOperator: true))
    }

    @Test func aCarriageReturnNeverJoinsTwoLinesIntoOneGrant() {
        // Read as one line, this would be token `alice-…` of tenant "alice\r\nsomeone" with the operator role.
        #expect(throws: TokenTable.InvalidFile.self) {
            try TokenTable(parsing: "\(Self.alice) alice\r\nsomeone operator")
        }
    }

    @Test func refusesADuplicateTokenNamingItsLine() {
        #expect(throws: TokenTable.InvalidFile(line: 3, reason: "duplicate token")) {
            try TokenTable(parsing: "\(Self.alice) alice\n\n\(Self.alice) mallory operator\n")
        }
    }

    @Test func tokensNeedSixteenPrintableASCIICharacters() throws {
        let reason = "tokens must be at least 16 printable ASCII characters"
        #expect(try TokenTable(parsing: "0123456789abcdef t").count == 1)
        #expect(throws: TokenTable.InvalidFile(line: 1, reason: reason)) {
            try TokenTable(parsing: "0123456789abcde t")
        }
        #expect(throws: TokenTable.InvalidFile(line: 2, reason: reason)) {
            try TokenTable(parsing: "# é\n0123456789abcdeé t")
        }
        #expect(throws: TokenTable.InvalidFile(line: 1, reason: reason)) {
            try TokenTable(parsing: "0123456789abcdef\u{0}x t")
        }
    }

    @Test(arguments: [
        "\(TokenTableTests.alice)", "\(TokenTableTests.alice) alice admin",
        "\(TokenTableTests.alice) alice operator extra", "\(TokenTableTests.alice) alice Operator",
        "\(TokenTableTests.alice) alice  operator  x",
    ])
    func refusesLinesOfTheWrongShape(line: String) {
        let reason = #"expected "token tenant" or "token tenant operator""#
        #expect(throws: TokenTable.InvalidFile(line: 2, reason: reason)) {
            try TokenTable(parsing: "# header\n\(line)\n")
        }
    }

    @Test func theErrorNamesTheLine() {
        #expect(
            TokenTable.InvalidFile(line: 7, reason: "duplicate token").description == "tokens line 7: duplicate token")
    }
}
