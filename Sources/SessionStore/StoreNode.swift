/// How nodes name themselves in a shared store (docs/protocol.md §8).
public enum StoreNode {
    /// A new node id: 16 random lowercase hexadecimal digits, one per process run, so a node that restarts is a new
    /// node and the sessions its previous run held are orphans any node may claim.
    /// - Returns: The id.
    public static func generateID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int((value >> UInt64(shift)) & 0xF)]) }
        return String(decoding: text, as: UTF8.self)
    }
}
