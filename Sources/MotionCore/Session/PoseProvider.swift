/// A source of poses a ``MotionSession`` can read by itself: a camera feed, a recording, a simulation.
///
/// Any `AsyncSequence` of ``Pose`` that is `Sendable` can conform; `AsyncStream<Pose>` and
/// `AsyncThrowingStream<Pose, Error>` already do.
public protocol PoseProvider: AsyncSequence, Sendable where Element == Pose {}

extension AsyncStream: PoseProvider where Element == Pose {}

extension AsyncThrowingStream: PoseProvider where Element == Pose {}
