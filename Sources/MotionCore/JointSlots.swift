/// One value per joint, held inline, read one at a time.
///
/// A stored `InlineArray` of a value that is borrowed (a `Pose` parameter) is copied whole before it is
/// subscripted or viewed through its `span`: the array needs an address, and a borrowed argument has none the
/// compiler will lend it. For a pose that meant copying its 468 bytes for every joint a measurement read. Here each
/// joint is a field of a tuple, and reading one is a load at its offset.
struct JointSlots<Element> {
    private var storage:
        (
            Element, Element, Element, Element, Element, Element, Element, Element, Element, Element,
            Element, Element, Element, Element, Element, Element, Element, Element, Element
        )

    /// Every joint holding `value`.
    init(repeating value: Element) {
        storage = (
            value, value, value, value, value, value, value, value, value, value,
            value, value, value, value, value, value, value, value, value
        )
    }

    /// The value of `joint`.
    subscript(joint: Joint) -> Element {
        @inline(__always) get {
            switch joint {
            case .nose: storage.0
            case .leftEye: storage.1
            case .rightEye: storage.2
            case .leftEar: storage.3
            case .rightEar: storage.4
            case .neck: storage.5
            case .root: storage.6
            case .leftShoulder: storage.7
            case .rightShoulder: storage.8
            case .leftElbow: storage.9
            case .rightElbow: storage.10
            case .leftWrist: storage.11
            case .rightWrist: storage.12
            case .leftHip: storage.13
            case .rightHip: storage.14
            case .leftKnee: storage.15
            case .rightKnee: storage.16
            case .leftAnkle: storage.17
            case .rightAnkle: storage.18
            }
        }
        @inline(__always) set {
            switch joint {
            case .nose: storage.0 = newValue
            case .leftEye: storage.1 = newValue
            case .rightEye: storage.2 = newValue
            case .leftEar: storage.3 = newValue
            case .rightEar: storage.4 = newValue
            case .neck: storage.5 = newValue
            case .root: storage.6 = newValue
            case .leftShoulder: storage.7 = newValue
            case .rightShoulder: storage.8 = newValue
            case .leftElbow: storage.9 = newValue
            case .rightElbow: storage.10 = newValue
            case .leftWrist: storage.11 = newValue
            case .rightWrist: storage.12 = newValue
            case .leftHip: storage.13 = newValue
            case .rightHip: storage.14 = newValue
            case .leftKnee: storage.15 = newValue
            case .rightKnee: storage.16 = newValue
            case .leftAnkle: storage.17 = newValue
            case .rightAnkle: storage.18 = newValue
            }
        }
    }
}

extension JointSlots: Sendable where Element: Sendable {}
