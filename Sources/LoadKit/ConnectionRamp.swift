import NetCore

/// Opens many connections without a SYN storm: hands out connection numbers as they fall due at a steady rate,
/// never more handshakes at once than the caller admits.
public enum ConnectionRamp {
    /// Deals the numbers of `range` to `deal`, in batches, as they become due: `perSecond` a second from now (0 or
    /// less: all at once), each only once `admit()` agrees (it counts one more handshake in flight, or says no).
    /// Checks every millisecond; returns when every number has been dealt.
    /// - Parameters:
    ///   - range: The connection numbers.
    ///   - perSecond: The opening rate; 0 for no limit.
    ///   - admit: Whether one more handshake may start now (and, if so, counts it).
    ///   - deal: Starts a batch of connections, in order.
    public static func run(
        _ range: Range<Int>, perSecond: Double, admit: () -> Bool, deal: ([Int]) -> Void
    ) async {
        let start = EventLoop.now()
        var next = range.lowerBound
        while next < range.upperBound {
            let elapsed = Double(EventLoop.now() - start) / 1e9
            let due =
                perSecond <= 0
                ? range.upperBound : min(range.upperBound, range.lowerBound + Int(perSecond * elapsed) + 1)
            var batch: [Int] = []
            while next < due && admit() {
                batch.append(next)
                next += 1
            }
            if !batch.isEmpty { deal(batch) }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
