import Foundation
import Testing

@testable import MotionCore

@Suite("Joint and EnumSet")
struct JointSetTests {
    @Test func jointsAreInWireOrder() {
        let wire = [
            "nose", "leftEye", "rightEye", "leftEar", "rightEar", "neck", "root",
            "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist", "rightWrist",
            "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle",
        ]
        #expect(Joint.allCases.map(\.rawValue) == wire)
        #expect(Joint.count == 19)
        #expect(Joint.allCases.map(\.index) == Array(0..<19))
    }

    @Test(arguments: Joint.allCases)
    func jointRoundTripsThroughIndex(_ joint: Joint) {
        #expect(Joint(index: joint.index) == joint)
        #expect(Joint(bitIndex: joint.bitIndex) == joint)
        #expect(Joint.allCases[joint.index] == joint)
    }

    @Test(arguments: [-1, 19, 20, 31, Int.max, Int.min])
    func indexOutsideTheVocabularyGivesNil(_ index: Int) {
        #expect(Joint(index: index) == nil)
    }

    @Test func iterationFollowsWireOrderWhateverTheInsertionOrder() {
        let set = JointSet(Joint.allCases.reversed())
        #expect(Array(set) == Joint.allCases)
        let some: JointSet = [.rightAnkle, .nose, .leftElbow, .root]
        #expect(Array(some) == [.nose, .root, .leftElbow, .rightAnkle])
        #expect(Array(some) == some.sorted())
        #expect(some.underestimatedCount == 4)
    }

    @Test func insertRemoveAndContains() {
        var set = JointSet()
        #expect(set.isEmpty)
        #expect(set.count == 0)
        let first = set.insert(.leftKnee)
        #expect(first.inserted)
        #expect(first.memberAfterInsert == .leftKnee)
        #expect(!set.insert(.leftKnee).inserted)
        #expect(set.contains(.leftKnee))
        #expect(!set.contains(.rightKnee))
        #expect(set.count == 1)
        #expect(set.update(with: .rightKnee) == nil)
        #expect(set.update(with: .rightKnee) == .rightKnee)
        #expect(set.count == 2)
        #expect(set.remove(.leftKnee) == .leftKnee)
        #expect(set.remove(.leftKnee) == nil)
        #expect(!set.contains(.leftKnee))
        #expect(set == [.rightKnee])
        #expect(set.rawValue == 1 << 16)
    }

    @Test func setAlgebra() {
        let arm: JointSet = [.rightShoulder, .rightElbow, .rightWrist]
        let upper: JointSet = [.neck, .rightShoulder, .leftShoulder]
        #expect(arm.union(upper) == [.neck, .leftShoulder, .rightShoulder, .rightElbow, .rightWrist])
        #expect(arm.union(upper).count == 5)
        #expect(arm.intersection(upper) == [.rightShoulder])
        #expect(arm.subtracting(upper) == [.rightElbow, .rightWrist])
        #expect(arm.symmetricDifference(upper) == [.neck, .leftShoulder, .rightElbow, .rightWrist])
        #expect(arm.isSubset(of: arm.union(upper)))
        #expect(!arm.isSubset(of: upper))
        #expect(arm.subtracting(arm).isEmpty)
        var mutable = arm
        mutable.formUnion(upper)
        #expect(mutable == arm.union(upper))
        mutable.formIntersection(upper)
        #expect(mutable == upper)
        mutable.formSymmetricDifference([.neck, .nose])
        #expect(mutable == [.nose, .leftShoulder, .rightShoulder])
        #expect(JointSet(Joint.allCases).count == Joint.count)
    }

    @Test func encodesAsAJSONArrayOfWireNamesInWireOrder() throws {
        let set: JointSet = [.rightWrist, .nose, .leftHip]
        let data = try JSONEncoder().encode(set)
        #expect(String(decoding: data, as: UTF8.self) == #"["nose","rightWrist","leftHip"]"#)
        #expect(try JSONDecoder().decode(JointSet.self, from: data) == set)
        #expect(String(decoding: try JSONEncoder().encode(JointSet()), as: UTF8.self) == "[]")
    }

    @Test func decodesUnorderedArraysWithDuplicates() throws {
        let data = Data(#"["rightAnkle","nose","rightAnkle"]"#.utf8)
        #expect(try JSONDecoder().decode(JointSet.self, from: data) == [.nose, .rightAnkle])
    }

    @Test func decodingAnUnknownJointFails() {
        let data = Data(#"["nose","tail"]"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JointSet.self, from: data) }
    }

    @Test func otherVocabulariesRoundTrip() throws {
        let faults: FormFeedbackSet = [.keepHipsLevel, .keepUpperArmStill]
        let faultData = try JSONEncoder().encode(faults)
        #expect(String(decoding: faultData, as: UTF8.self) == #"["keepUpperArmStill","keepHipsLevel"]"#)
        #expect(try JSONDecoder().decode(FormFeedbackSet.self, from: faultData) == faults)
        let issues: SetupIssueSet = [.notSideways, .tooClose]
        let issueData = try JSONEncoder().encode(issues)
        #expect(try JSONDecoder().decode(SetupIssueSet.self, from: issueData) == issues)
        #expect(Array(issues) == [.tooClose, .notSideways])
        #expect(FormFeedback.allCases.map(\.bitIndex) == Array(FormFeedback.allCases.indices))
        #expect(SetupIssue.allCases.map(\.bitIndex) == Array(SetupIssue.allCases.indices))
        #expect(FormFeedback(bitIndex: FormFeedback.allCases.count) == nil)
        #expect(SetupIssue(bitIndex: -1) == nil)
    }

    @Test func descriptionListsWireNames() {
        let set: JointSet = [.rightWrist, .rightElbow]
        #expect(set.description == "[rightElbow, rightWrist]")
        #expect(JointSet().description == "[]")
    }

    @Test(arguments: Joint.allCases)
    func mirroredIsAnInvolutionAndSwapsTheSide(_ joint: Joint) {
        #expect(joint.mirrored.mirrored == joint)
        #expect(joint.mirrored.side == joint.side?.opposite)
        if joint.side == nil {
            #expect(joint.mirrored == joint)
        } else {
            #expect(joint.mirrored != joint)
        }
        // The mirror keeps the body part: only the left/right prefix changes.
        let part = { (name: String) in
            name.replacingOccurrences(of: "left", with: "").replacingOccurrences(of: "right", with: "")
        }
        #expect(part(joint.mirrored.rawValue) == part(joint.rawValue))
    }

    @Test func centralJointsHaveNoSide() {
        let central = Joint.allCases.filter { $0.side == nil }
        #expect(central == [.nose, .neck, .root])
        #expect(Joint.allCases.filter { $0.side == .left }.count == 8)
        #expect(Joint.allCases.filter { $0.side == .right }.count == 8)
    }

    @Test func oppositeSide() {
        #expect(BodySide.left.opposite == .right)
        #expect(BodySide.right.opposite == .left)
    }

    @Test(arguments: BodySide.allCases)
    func shortcutsNameTheJointOnThatSide(_ side: BodySide) {
        let prefix = side.rawValue
        let shortcuts: [(Joint, String)] = [
            (.shoulder(side), "Shoulder"), (.elbow(side), "Elbow"), (.wrist(side), "Wrist"), (.hip(side), "Hip"),
            (.knee(side), "Knee"), (.ankle(side), "Ankle"), (.eye(side), "Eye"), (.ear(side), "Ear"),
        ]
        for (joint, part) in shortcuts {
            #expect(joint.rawValue == prefix + part)
            #expect(joint.side == side)
        }
        #expect(Joint.shoulder(.left) == .leftShoulder)
        #expect(Joint.ankle(.right) == .rightAnkle)
    }
}
