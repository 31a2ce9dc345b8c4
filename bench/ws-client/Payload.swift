import HTTPWire

/// The benchmark message: pose-like JSON text (a skeleton's joints with position, orientation and velocity),
/// padded to exactly `size` bytes.
enum Payload {
    static func json(size: Int) -> [UInt8] {
        let closing = "],\"pad\":\"\"}"
        var text = "{\"type\":\"pose\",\"seq\":1,\"t\":1718000000.123456,\"frame\":\"world\",\"joints\":["
        guard size >= text.utf8.count + closing.utf8.count else {
            let padding = max(0, size - 8)
            return Array(("{\"p\":\"" + String(repeating: "x", count: padding) + "\"}").utf8)
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func number() -> String {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Int((seed >> 33) % 20_001) - 10_000  // -1.0000 ... 1.0000
            let digits = String(abs(value) % 10_000)
            return (value < 0 ? "-" : "") + "\(abs(value) / 10_000)." + String(repeating: "0", count: 4 - digits.count)
                + digits
        }
        var joint = 0
        while true {
            let entry =
                (joint == 0 ? "" : ",") + "{\"name\":\"joint_\(joint)\",\"p\":[\(number()),\(number()),\(number())],"
                + "\"q\":[\(number()),\(number()),\(number()),\(number())],\"v\":[\(number()),\(number()),\(number())]}"
            if text.utf8.count + entry.utf8.count + closing.utf8.count > size { break }
            text += entry
            joint += 1
        }
        text += "],\"pad\":\"" + String(repeating: " ", count: size - text.utf8.count - closing.utf8.count) + "\"}"
        return Array(text.utf8)
    }

    /// `count` copies of the message as masked client text frames, each with its own random masking key.
    static func maskedFrames(_ payload: [UInt8], count: Int) -> [[UInt8]] {
        (0..<count).map { _ in frame(.text, payload) }
    }

    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        let key = UInt32.random(in: .min ... .max)
        let mask = (UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF))
        return WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload), mask: mask)
    }
}
