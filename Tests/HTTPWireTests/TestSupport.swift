import Basics
import HTTPWire
import Testing

/// The seeded generator of the base module (SplitMix64).
typealias SeededGenerator = SeededRandom

/// One request as observed through the parser's actions; body pieces are concatenated.
struct ParsedMessage: Equatable {
    var head: HTTPRequestHead
    var body: [UInt8] = []
    var trailers: HTTPHeaders?
    var isComplete = false
}

/// Everything a byte stream produced, independent of how it was split into reads.
struct ParseOutcome: Equatable {
    var messages: [ParsedMessage] = []
    var error: HTTPParseError?

    var completeMessages: [ParsedMessage] { messages.filter(\.isComplete) }
}

/// Converts a string with `\r\n` escapes into bytes.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// Feeds `chunks` in order, draining the parser after each, and records the outcome.
///
/// Alternates between the two `append` overloads so both are exercised.
func parse(chunks: [[UInt8]], limits: HTTPParserLimits = HTTPParserLimits()) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    let totalBytes = chunks.reduce(0) { $0 + $1.count }
    var budget = 4 * totalBytes + 100
    for (chunkIndex, chunk) in chunks.enumerated() {
        if chunkIndex % 2 == 0 {
            parser.append(contentsOf: chunk)
        } else {
            chunk.withUnsafeBytes { parser.append($0) }
        }
        while true {
            budget -= 1
            guard budget > 0 else {
                Issue.record("parser made no progress")
                return outcome
            }
            switch parser.next() {
            case .needMoreData:
                break
            case .head(let head):
                outcome.messages.append(ParsedMessage(head: head))
                continue
            case .body(let piece):
                #expect(!piece.isEmpty, "body pieces are never empty")
                guard !outcome.messages.isEmpty else {
                    Issue.record("body before head")
                    return outcome
                }
                outcome.messages[outcome.messages.count - 1].body += piece
                continue
            case .trailers(let trailers):
                guard !outcome.messages.isEmpty else {
                    Issue.record("trailers before head")
                    return outcome
                }
                outcome.messages[outcome.messages.count - 1].trailers = trailers
                continue
            case .end:
                guard !outcome.messages.isEmpty else {
                    Issue.record("end before head")
                    return outcome
                }
                outcome.messages[outcome.messages.count - 1].isComplete = true
                continue
            case .error(let error):
                outcome.error = error
                #expect(parser.next() == .error(error), "the parser stays failed")
                return outcome
            }
            break
        }
    }
    return outcome
}

/// Parses `input` fed as one read.
func parseWhole(_ input: [UInt8], limits: HTTPParserLimits = HTTPParserLimits()) -> ParseOutcome {
    parse(chunks: [input], limits: limits)
}

/// Parses `input` fed as one read.
func parseWhole(_ input: String, limits: HTTPParserLimits = HTTPParserLimits()) -> ParseOutcome {
    parse(chunks: [bytes(input)], limits: limits)
}

/// Splits `input` into reads at the given sorted offsets.
func split(_ input: [UInt8], at offsets: [Int]) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    for offset in offsets + [input.count] {
        chunks.append(Array(input[start..<offset]))
        start = offset
    }
    return chunks
}

/// Splits `input` into random reads of 1...maxChunk bytes.
func randomChunks(_ input: [UInt8], maxChunk: Int, using generator: inout SeededGenerator) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    while start < input.count {
        let length = Int.random(in: 1...maxChunk, using: &generator)
        let end = min(start + length, input.count)
        chunks.append(Array(input[start..<end]))
        start = end
    }
    return chunks
}

/// Parses `input` whole, one byte at a time, split at every position (if `everySplit`), and in seeded random
/// chunkings; expects every way of feeding to produce the same outcome, which it returns.
@discardableResult
func parseInAllSplits(
    _ input: [UInt8],
    limits: HTTPParserLimits = HTTPParserLimits(),
    everySplit: Bool = true,
    seed: UInt64 = 42,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ParseOutcome {
    let whole = parseWhole(input, limits: limits)
    let byteByByte = parse(chunks: input.map { [$0] }, limits: limits)
    #expect(byteByByte == whole, "one byte at a time", sourceLocation: sourceLocation)
    if everySplit {
        for position in 0...input.count {
            let outcome = parse(chunks: split(input, at: [position]), limits: limits)
            #expect(outcome == whole, "split at \(position)", sourceLocation: sourceLocation)
        }
    }
    var generator = SeededGenerator(seed: seed)
    for round in 0..<20 {
        let chunks = randomChunks(input, maxChunk: 1 + round * 3, using: &generator)
        #expect(parse(chunks: chunks, limits: limits) == whole, "random round \(round)", sourceLocation: sourceLocation)
    }
    return whole
}

/// Convenience overload taking the request as text.
@discardableResult
func parseInAllSplits(
    _ input: String,
    limits: HTTPParserLimits = HTTPParserLimits(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> ParseOutcome {
    parseInAllSplits(bytes(input), limits: limits, sourceLocation: sourceLocation)
}

/// Parses a single complete request (in all splits) and returns its message.
func parseSingle(
    _ input: String,
    limits: HTTPParserLimits = HTTPParserLimits(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ParsedMessage {
    let outcome = parseInAllSplits(bytes(input), limits: limits, sourceLocation: sourceLocation)
    #expect(outcome.error == nil, sourceLocation: sourceLocation)
    #expect(outcome.messages.count == 1, sourceLocation: sourceLocation)
    let message = try #require(outcome.messages.first, sourceLocation: sourceLocation)
    #expect(message.isComplete, sourceLocation: sourceLocation)
    return message
}

/// Parses input (in all splits) and returns the error it must produce.
func parseError(
    _ input: [UInt8],
    limits: HTTPParserLimits = HTTPParserLimits(),
    everySplit: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) -> HTTPParseError? {
    parseInAllSplits(input, limits: limits, everySplit: everySplit, sourceLocation: sourceLocation).error
}

/// Text convenience for `parseError`.
func parseError(
    _ input: String,
    limits: HTTPParserLimits = HTTPParserLimits(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> HTTPParseError? {
    parseError(bytes(input), limits: limits, sourceLocation: sourceLocation)
}

/// A named request byte string used as a test argument.
struct Fixture: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String

    var testDescription: String { name }
}
