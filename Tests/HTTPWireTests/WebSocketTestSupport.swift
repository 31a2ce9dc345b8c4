import Basics
import HTTPWire
import Testing

/// Everything a decoder produced for a byte stream, independent of how it was split.
struct WebSocketDecodeOutcome: Equatable {
    var frames: [WebSocketFrame] = []
    var error: WebSocketError?
    var bufferedAfter = 0
}

/// Feeds `chunks` to fresh decoders both ways — pulling owned frames with `append` and `next()`, and having frames
/// lent in place by `decode(_:_:)` — expects the same frames and error from both, and returns the first outcome.
func webSocketDecode(
    _ chunks: [[UInt8]], role: WebSocketRole, maxFrameBytes: Int = 1 << 20, allowsRSV1: Bool = false
) -> WebSocketDecodeOutcome {
    let pulled = webSocketDecodePulling(chunks, role: role, maxFrameBytes: maxFrameBytes, allowsRSV1: allowsRSV1)
    let lent = webSocketDecodeLending(chunks, role: role, maxFrameBytes: maxFrameBytes, allowsRSV1: allowsRSV1)
    #expect(lent.frames == pulled.frames, "decode(_:_:) lends the frames next() returns")
    #expect(lent.error == pulled.error, "decode(_:_:) fails as next() does")
    return pulled
}

/// Feeds `chunks` to a fresh decoder with `decode(_:_:)`, copying each lent frame.
func webSocketDecodeLending(
    _ chunks: [[UInt8]], role: WebSocketRole, maxFrameBytes: Int = 1 << 20, allowsRSV1: Bool = false
) -> WebSocketDecodeOutcome {
    var decoder = WebSocketFrameDecoder(role: role, maxFrameBytes: maxFrameBytes, allowsRSV1: allowsRSV1)
    var outcome = WebSocketDecodeOutcome()
    for chunk in chunks {
        var bytes = chunk
        var frames: [WebSocketFrame] = []
        let error = bytes.withUnsafeMutableBytes { input in
            decoder.decode(input) { frame in
                frames.append(frame.frame)
                return true
            }
        }
        outcome.frames += frames
        if let error {
            outcome.error = error
            var more: [UInt8] = [0x81, 0x80, 0, 0, 0, 0]
            let again = more.withUnsafeMutableBytes { decoder.decode($0) { _ in true } }
            #expect(again == error, "the decoder stays failed")
            break
        }
    }
    outcome.bufferedAfter = decoder.bufferedByteCount
    return outcome
}

/// Feeds `chunks` to a fresh decoder, draining it after each chunk; alternates between both `append` overloads.
func webSocketDecodePulling(
    _ chunks: [[UInt8]], role: WebSocketRole, maxFrameBytes: Int = 1 << 20, allowsRSV1: Bool = false
) -> WebSocketDecodeOutcome {
    var decoder = WebSocketFrameDecoder(role: role, maxFrameBytes: maxFrameBytes, allowsRSV1: allowsRSV1)
    var outcome = WebSocketDecodeOutcome()
    for (index, chunk) in chunks.enumerated() {
        if index % 2 == 0 {
            decoder.append(contentsOf: chunk)
        } else {
            chunk.withUnsafeBytes { decoder.append($0) }
        }
        drain: while true {
            switch decoder.next() {
            case .needMoreData:
                break drain
            case .frame(let frame):
                outcome.frames.append(frame)
            case .error(let error):
                outcome.error = error
                #expect(decoder.next() == .error(error), "the decoder stays failed")
                outcome.bufferedAfter = decoder.bufferedByteCount
                return outcome
            }
        }
    }
    outcome.bufferedAfter = decoder.bufferedByteCount
    return outcome
}

/// `input` cut at the given offsets.
func webSocketSplit(_ input: [UInt8], at offsets: [Int]) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    for offset in offsets.sorted() where offset >= start && offset <= input.count {
        chunks.append(Array(input[start..<offset]))
        start = offset
    }
    chunks.append(Array(input[start...]))
    return chunks
}

/// `input` fed one byte at a time.
func webSocketBytewise(_ input: [UInt8]) -> [[UInt8]] {
    input.map { [$0] }
}

/// Compact hex for failure messages and fixtures: "81 05 48".
func webSocketHex(_ text: String) -> [UInt8] {
    text.split(separator: " ").compactMap { UInt8($0, radix: 16) }
}

/// The client-side frame encoding with a fixed mask, as a client would send it.
func webSocketMasked(_ frame: WebSocketFrame, mask: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)) -> [UInt8]
{
    WebSocketFrameEncoder.encode(frame, mask: mask)
}
