import HTTPServer

/// A live session's timers, all on its connection's loop: the checkpoint and idle tick, the end of a flow-control
/// pause, and the end of the resume window.
struct LiveTimers {
    var tick, flow, expiry: LoopTimer?

    /// Cancels the tick and the resume window, and the end of a flow-control pause unless `keepingFlow` (a session
    /// that ends still lets its connection read what the client sends next).
    mutating func cancel(keepingFlow: Bool = false) {
        for timer in keepingFlow ? [tick, expiry] : [tick, flow, expiry] { timer?.cancel() }
        (tick, expiry) = (nil, nil)
        if !keepingFlow { flow = nil }
    }

    /// The connection ended: nothing is read from it any more, and its session ticks no more.
    mutating func connectionClosed() {
        tick?.cancel()
        flow?.cancel()
        flow = nil
    }
}
