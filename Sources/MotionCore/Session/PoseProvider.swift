/// A source of poses a ``MotionSession`` can read by itself: a camera feed, a recording, a simulation.
///
/// Any `AsyncSequence` of ``Pose`` that is `Sendable` can conform; `AsyncStream<Pose>` and
/// `AsyncThrowingStream<Pose, Error>` already do.
public protocol PoseProvider: AsyncSequence, Sendable where Element == Pose {}

extension AsyncStream: PoseProvider where Element == Pose {}

extension AsyncThrowingStream: PoseProvider where Element == Pose {}

extension PoseProvider {
    /// Calls `body` with each pose until the provider ends, the calling task is cancelled, or `body` returns false:
    /// the reading loop of ``MotionSession/run(with:)``, shared with sessions that analyse elsewhere.
    /// - Parameter body: Takes one pose; answers whether to go on.
    /// - Throws: What the provider throws.
    public func forEachPose(_ body: (Pose) -> Bool) async throws {
        for try await pose in self {
            if Task.isCancelled || !body(pose) { return }
        }
    }
}
