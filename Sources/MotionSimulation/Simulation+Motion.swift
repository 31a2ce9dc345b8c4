public import MotionCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A phone on the simulated limb (docs/protocol.md §3.3): what its accelerometer reads while the figure acts the session
/// out.
public struct SimulatedPhone: Sendable, Hashable {
    /// Samples per second. Default 60 (a browser's `devicemotion` rate).
    public var rate = 60.0
    /// The person's height in metres, which turns the figure's proportions into distances. Default 1.7.
    public var stature = 1.7
    /// The amplitude of a tremor along the phone's x axis, m/s²; 0 for none (the default).
    public var tremorAmplitude = 0.0
    /// The tremor's frequency, Hz. Default 6 (within the 4–12 Hz band the analysis calls tremor).
    public var tremorFrequency = 6.0

    /// Creates a phone.
    /// - Parameters:
    ///   - rate: Samples per second.
    ///   - tremorAmplitude: A tremor's amplitude along x, m/s² (0: none).
    ///   - tremorFrequency: Its frequency, Hz.
    public init(rate: Double = 60, tremorAmplitude: Double = 0, tremorFrequency: Double = 6) {
        self.rate = rate
        self.tremorAmplitude = tremorAmplitude
        self.tremorFrequency = tremorFrequency
    }
}

extension Simulation {
    /// The joints a phone may be held or strapped at, the limb's end first.
    private static let phoneJoints: [(left: Joint, right: Joint)] = [
        (.leftWrist, .rightWrist), (.leftAnkle, .rightAnkle), (.leftElbow, .rightElbow), (.leftKnee, .rightKnee),
    ]

    /// The joint of the working side that moves furthest over the session: where the phone is held (the wrist in an
    /// arm exercise, the ankle in a leg raise, the knee when the foot stays down…).
    public var phoneJoint: Joint {
        let times = stride(from: startTime, through: startTime + duration, by: 0.1).map { $0 }
        var best = (joint: side == .left ? Joint.leftWrist : .rightWrist, travel: -1.0)
        for pair in Self.phoneJoints {
            let joint = side == .left ? pair.left : pair.right
            let positions = times.compactMap { body(at: $0).joints[joint] }
            guard let first = positions.first else { continue }
            let travel = positions.map { ($0 - first).length }.max() ?? 0
            if travel > best.travel + 1e-9 { best = (joint, travel) }
        }
        return best.joint
    }

    /// The accelerometer of a phone held at ``phoneJoint`` while the session is acted out, as motion samples
    /// `[t, ax, ay, az]` on the poses' clock (deterministic: no detector noise, dropouts or moments out of frame).
    ///
    /// The phone is held upright facing the camera side and does not turn: its x axis is the body's lateral
    /// direction, y up, z forward. It reads the joint's acceleration (the second difference of its position,
    /// metres from the figure's proportions × `phone.stature`) plus gravity's reaction, +9.81 m/s² on y as a phone
    /// at rest upright reads it, plus the optional tremor, a sine along x.
    /// - Parameter phone: The phone's rate, the person's stature and the tremor.
    /// - Returns: The samples, from the session's start to its end.
    /// - Complexity: O(duration × rate).
    public func motionSamples(_ phone: SimulatedPhone = SimulatedPhone()) -> [MotionSample] {
        let joint = phoneJoint
        let step = 1 / max(1, phone.rate)
        let count = Int((duration * max(1, phone.rate)).rounded(.down)) + 1
        func position(_ t: Double) -> Vector { (body(at: t).joints[joint] ?? .zero) * phone.stature }
        return (0..<count).map { index in
            let t = startTime + Double(index) * step
            // Second central difference with the sample spacing: the acceleration the phone feels.
            let a = (position(t + step) - position(t) * 2 + position(t - step)) * (1 / (step * step))
            let tremor = phone.tremorAmplitude * sin(2 * Double.pi * phone.tremorFrequency * t)
            return MotionSample(
                t: t, acceleration: MotionVector(x: a.lateral + tremor, y: a.up + 9.81, z: a.forward))
        }
    }
}
