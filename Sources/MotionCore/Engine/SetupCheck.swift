/// Placement limits for the setup checks (docs/clinical.md, "Setup checks"), as fractions of the image.
public struct SetupLimits: Sendable, Hashable, Codable {
    /// `tooClose` when a measured joint lies within this fraction of the image border.
    public var borderMargin: Double = 0.03
    /// `tooClose` when the body is taller than this fraction of the image height.
    public var maxBodyHeight: Double = 0.95
    /// `tooFar` when the torso (neck → root) is shorter than this fraction of the image height.
    public var minTorsoHeight: Double = 0.12
    /// `notCentered` when the body's centre lies outside this central fraction of the width.
    public var centerBand: Double = 0.6
    /// `notFacing` (frontal exercises) when shoulder width across the trunk line / torso length is below this.
    public var minFacingRatio: Double = 0.5
    /// `notSideways` (sagittal exercises) when shoulder width across the trunk line / torso length is above this.
    public var maxSidewaysRatio: Double = 0.3
    /// Lying when the trunk is further than this from vertical, degrees: a person lying on the front propped on the
    /// forearms (the start of a plank) has the trunk about 55° from vertical.
    public var minLyingTrunkAngle: Double = 50
    /// Lying only when no seen foot is further below its hip than this many shank lengths: a body lying down has
    /// its feet about as high as its hips, while a person sitting and leaning forward (the start of a sit-to-stand)
    /// or bending over has them a shank length or more below.
    public var maxLyingFootDrop: Double = 0.5
    /// Standing or seated only with the trunk nearer vertical than this, degrees.
    public var maxUprightTrunkAngle: Double = 45
    /// Standing when the knee is further below the hip than this many shank lengths (a thigh near vertical).
    public var minStandingThighDrop: Double = 0.6
    /// Seated when the knee is less far below the hip than this many shank lengths (a thigh near horizontal, or
    /// pointing at the camera).
    public var maxSeatedThighDrop: Double = 0.4

    /// Creates the default limits.
    public init() {}
}

/// Judges camera placement from one pose: the image size, the body's extent and its orientation.
struct SetupCheck: Sendable {
    let limits: SetupLimits
    let view: Exercise.View

    /// The posture seen in `pose`, nil when it cannot be told (joints unseen, or in between).
    ///
    /// From the trunk's angle to vertical and how far the knees hang below the hips, in shank lengths: about one
    /// standing, near zero seated (the thigh horizontal in a side view, pointing at the camera in a front view).
    /// Standing when either leg stands (a person on one leg, marching or lunging, is standing), seated when every
    /// seen leg is seated. Lying takes a near-horizontal trunk with the feet about as high as the hips: a trunk
    /// leaning far forward over feet on the floor below is no posture that can be told.
    func posture(in pose: Pose) -> Exercise.Posture? {
        guard let neck = pose[.neck], let root = pose[.root],
            let trunk = ResolvedMeasurement.angle(root.vector(to: neck), (0, -1))
        else { return nil }
        if trunk > limits.minLyingTrunkAngle { return feetHangBelowHips(pose) ? nil : .lying }
        guard trunk < limits.maxUprightTrunkAngle else { return nil }
        var legs = 0
        var seated = 0
        for leg in BodySide.allCases {
            guard let hip = pose[.hip(leg)], let knee = pose[.knee(leg)], let ankle = pose[.ankle(leg)] else {
                continue
            }
            let shank = knee.distance(to: ankle)
            guard shank > 0 else { continue }
            let drop = (knee.y - hip.y) / shank
            if drop > limits.minStandingThighDrop { return .standing }
            legs += 1
            if drop < limits.maxSeatedThighDrop { seated += 1 }
        }
        return legs > 0 && seated == legs ? .seated : nil
    }

    /// Whether a seen foot is further below its hip than ``SetupLimits/maxLyingFootDrop`` shank lengths.
    private func feetHangBelowHips(_ pose: Pose) -> Bool {
        BodySide.allCases.contains { leg in
            guard let hip = pose[.hip(leg)], let knee = pose[.knee(leg)], let ankle = pose[.ankle(leg)] else {
                return false
            }
            let shank = knee.distance(to: ankle)
            return shank > 0 && (ankle.y - hip.y) / shank > limits.maxLyingFootDrop
        }
    }

    /// The issues seen in `pose`; checks that need a missing joint or the image size are skipped.
    func issues(in pose: Pose, measured: JointSet) -> SetupIssueSet {
        var issues: SetupIssueSet = []
        let torso: Double? =
            if let neck = pose[.neck], let root = pose[.root] { neck.distance(to: root) } else { nil }
        if let torso, torso > 0, let neck = pose[.neck], let root = pose[.root], let left = pose[.leftShoulder],
            let right = pose[.rightShoulder]
        {
            // The shoulder width across the trunk line (horizontal for an upright trunk), so that a body lying on
            // its side facing the camera (a side plank) faces it as one standing does.
            let along = ((neck.x - root.x) / torso, (neck.y - root.y) / torso)
            let ratio = abs((left.x - right.x) * along.1 - (left.y - right.y) * along.0) / torso
            switch view {
            case .frontal where ratio < limits.minFacingRatio: issues.insert(.notFacing)
            case .sagittal where ratio > limits.maxSidewaysRatio: issues.insert(.notSideways)
            default: break
            }
        }
        guard let size = pose.imageSize else { return issues }
        var minX = Double.infinity
        var maxX = -Double.infinity
        var minY = Double.infinity
        var maxY = -Double.infinity
        for joint in pose.seenJoints {
            guard let p = pose[joint] else { continue }
            minX = min(minX, p.x)
            maxX = max(maxX, p.x)
            minY = min(minY, p.y)
            maxY = max(maxY, p.y)
        }
        guard minX <= maxX else { return issues }
        let marginX = limits.borderMargin * size.width
        let marginY = limits.borderMargin * size.height
        for joint in measured.intersection(pose.seenJoints) {
            guard let p = pose[joint] else { continue }
            if p.x < marginX || p.x > size.width - marginX || p.y < marginY || p.y > size.height - marginY {
                issues.insert(.tooClose)
            }
        }
        if maxY - minY > limits.maxBodyHeight * size.height { issues.insert(.tooClose) }
        if let torso, torso < limits.minTorsoHeight * size.height { issues.insert(.tooFar) }
        let centre = (minX + maxX) / 2
        let band = (1 - limits.centerBand) / 2 * size.width
        if centre < band || centre > size.width - band { issues.insert(.notCentered) }
        return issues
    }
}
