@testable import HTTPServer

/// A test's loop-confined object: made on a one-loop group driven by a manual clock, touched only through
/// ``on(_:)``, which runs on the loop's thread.
protocol LoopTestSubject: AnyObject, Sendable {
    /// The loop the subject lives on.
    var loop: EventLoop { get }

    /// Makes the subject on `loop`.
    init(loop: EventLoop)
}

extension LoopTestSubject {
    /// Runs `body` on the loop and returns its result.
    func on<T: Sendable>(_ body: @escaping @Sendable (Self) -> T) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: body(self)) }
        }
    }

    /// Runs `body` with a subject on a new one-loop group and the manual clock that drives it; the group is shut
    /// down after.
    static func withSubject(_ body: (Self, ManualClock) async throws -> Void) async throws {
        let clock = ManualClock()
        let group = try EventLoopGroup(loops: 1, clock: .manual(clock))
        defer { group.shutdown() }
        try await body(Self(loop: group.loops[0]), clock)
    }
}
