import MotionCore

/// Reads the members of one server message, naming the first bad one in its error.
struct MemberReader {
    let type: String
    let object: [String: JSONValue]
    let limits: WireLimits

    private func invalid(_ member: String) -> ServerMessageError { .invalid(type: type, member: member) }

    private func nested(_ member: String, _ object: [String: JSONValue]) -> MemberReader {
        MemberReader(type: "\(type).\(member)", object: object, limits: limits)
    }

    func string(_ member: String) throws(ServerMessageError) -> String {
        guard case .string(let value)? = object[member] else { throw invalid(member) }
        return value
    }

    func optionalString(_ member: String) throws(ServerMessageError) -> String? {
        switch object[member] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw invalid(member)
        }
    }

    func number(_ member: String) throws(ServerMessageError) -> Double {
        guard case .number(let value)? = object[member] else { throw invalid(member) }
        return value
    }

    func optionalNumber(_ member: String) throws(ServerMessageError) -> Double? {
        switch object[member] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default: throw invalid(member)
        }
    }

    func integer(_ member: String) throws(ServerMessageError) -> Int {
        guard let value = Int(exactly: try number(member)) else { throw invalid(member) }
        return value
    }

    func optionalInteger(_ member: String) throws(ServerMessageError) -> Int? {
        guard let number = try optionalNumber(member) else { return nil }
        guard let value = Int(exactly: number) else { throw invalid(member) }
        return value
    }

    /// A finite number, at least 0 (a duration).
    func duration(_ member: String) throws(ServerMessageError) -> Double {
        let value = try number(member)
        guard value.isFinite, value >= 0 else { throw invalid(member) }
        return value
    }

    func bool(_ member: String) throws(ServerMessageError) -> Bool {
        guard case .bool(let value)? = object[member] else { throw invalid(member) }
        return value
    }

    func optionalObject(_ member: String) throws(ServerMessageError) -> MemberReader? {
        switch object[member] {
        case nil, .null?: return nil
        case .object(let value)?: return nested(member, value)
        default: throw invalid(member)
        }
    }

    /// An array of raw-valued names (joints, faults, setup issues); unknown names from a newer server are skipped.
    func names<Element: RawRepresentable>(_ member: String, as _: Element.Type) throws(ServerMessageError) -> [Element]
    where Element.RawValue == String {
        guard case .array(let values)? = object[member] else { throw invalid(member) }
        var result: [Element] = []
        for value in values {
            guard case .string(let name) = value else { throw invalid(member) }
            if let element = Element(rawValue: name) { result.append(element) }
        }
        return result
    }

    func side(_ member: String) throws(ServerMessageError) -> BodySide? {
        guard let name = try optionalString(member) else { return nil }
        guard let side = BodySide(rawValue: name) else { throw invalid(member) }
        return side
    }

    // MARK: Values

    /// A rep object (`WireEncoder.encodeRep`). Motion figures carry smoothness and tremor only.
    func rep() throws(ServerMessageError) -> Rep {
        var motion: RepMotion?
        if object["tremor"] != nil {
            motion = RepMotion(
                smoothness: try optionalNumber("smoothness"), tremor: try number("tremor"), rms: 0, covered: 0)
        }
        return Rep(
            index: try integer("index"), peak: try number("peak"), trough: try number("trough"),
            start: try number("start"), end: try number("end"), timeToPeak: try optionalNumber("timeToPeak"),
            side: try side("side"), faults: FormFeedbackSet(try names("faults", as: FormFeedback.self)),
            motion: motion)
    }

    func rep(_ member: String) throws(ServerMessageError) -> Rep? { try optionalObject(member)?.rep() }

    /// The event of an `event` message (`WireEncoder.encodeEvent`).
    func event() throws(ServerMessageError) -> MotionEvent {
        let name = try string("event")
        switch name {
        case "repCompleted", "repRejected":
            guard let rep = try rep("rep") else { throw invalid("rep") }
            return name == "repCompleted" ? .repCompleted(rep) : .repRejected(rep)
        case "holdStarted":
            return .holdStarted
        case "holdEnded":
            // `start` is this server's addition to docs/protocol.md §5.4; without it, the hold began `held` before
            // the pose that ended it (exact unless poses paused during the hold).
            let held = try duration("held")
            var start = try number("t") - held
            if let given = try optionalNumber("start") { start = given }
            guard start.isFinite else { throw invalid("start") }
            return .holdEnded(Hold(start: start, held: held, completed: try bool("completed")))
        case "formFault":
            guard let fault = FormFeedback(rawValue: try string("fault")) else { throw invalid("fault") }
            return .formFault(fault)
        case "visibilityChanged":
            return .visibilityChanged(Visibility(missingJoints: JointSet(try names("missingJoints", as: Joint.self))))
        case "setupChanged":
            return .setupChanged(SetupIssueSet(try names("issues", as: SetupIssue.self)))
        case "baselineCompleted":
            return .baselineCompleted(try number("value"))
        case "setCompleted":
            return .setCompleted(number: try integer("set"))
        default:
            throw invalid("event")
        }
    }

    /// A `snapshot` message (`WireEncoder.encodeSnapshot`).
    func snapshot() throws(ServerMessageError) -> MotionSnapshot {
        var baseline: BaselineStatus?
        if let member = try optionalObject("baseline") {
            baseline = BaselineStatus(
                progress: try member.number("progress"), value: try member.optionalNumber("value"))
        }
        var set: SetProgress?
        if let member = try optionalObject("set") {
            set = SetProgress(
                number: try member.integer("number"), of: try member.integer("of"), reps: try member.integer("reps"),
                goal: try member.integer("goal"))
        }
        var motion: MotionLevel?
        if let member = try optionalObject("motion") {
            motion = MotionLevel(rms: try member.number("rms"), tremor: try member.number("tremor"))
        }
        return MotionSnapshot(
            timestamp: try optionalNumber("t"), value: try optionalNumber("value"), best: try optionalNumber("best"),
            repCount: try integer("repCount"), rejectedCount: try integer("rejectedCount"), lastRep: try rep("lastRep"),
            holdProgress: try optionalNumber("holdProgress"), confidence: try optionalNumber("confidence"),
            setupIssues: SetupIssueSet(try names("setupIssues", as: SetupIssue.self)), isVisible: try bool("isVisible"),
            missingJoints: JointSet(try names("missingJoints", as: Joint.self)), isRunning: try bool("isRunning"),
            baseline: baseline, side: try side("side"), set: set, motion: motion)
    }

    /// A hold object (`WireEncoder.encodeHold`): `held` finite and at least 0.
    func hold() throws(ServerMessageError) -> Hold {
        let start = try number("start")
        guard start.isFinite else { throw invalid("start") }
        return Hold(start: start, held: try duration("held"), completed: try bool("completed"))
    }

    /// A summary's `holds` (docs/protocol.md §5.4), none from a server without them; at most
    /// ``WireLimits/maxHoldsPerSummary``. `bestHold`, when given, must be the longest of them (`null` without one).
    func holds() throws(ServerMessageError) -> [Hold] {
        let values: [JSONValue]
        switch object["holds"] {
        case nil: values = []
        case .array(let array)?: values = array
        default: throw invalid("holds")
        }
        guard values.count <= limits.maxHoldsPerSummary else {
            throw .tooMany(type: type, member: "holds", limit: limits.maxHoldsPerSummary)
        }
        var holds: [Hold] = []
        holds.reserveCapacity(values.count)
        for value in values {
            guard case .object(let hold) = value else { throw invalid("holds") }
            holds.append(try nested("holds", hold).hold())
        }
        if object["bestHold"] != nil, try optionalNumber("bestHold") != holds.map(\.held).max() {
            throw invalid("bestHold")
        }
        return holds
    }

    /// A `summary` message (`WireEncoder.encodeSummary`).
    func summary() throws(ServerMessageError) -> SessionSummary {
        guard case .array(let repValues)? = object["reps"] else { throw invalid("reps") }
        var reps: [Rep] = []
        for value in repValues {
            guard case .object(let rep) = value else { throw invalid("reps") }
            reps.append(try nested("reps", rep).rep())
        }
        var faultCounts: [FormFeedback: Int] = [:]
        if let counts = try optionalObject("faultCounts") {
            for (name, _) in counts.object {
                guard let fault = FormFeedback(rawValue: name) else { continue }
                faultCounts[fault] = try counts.integer(name)
            }
        }
        var perSide: [BodySide: SideTally] = [:]
        if let sides = try optionalObject("perSide") {
            for side in [BodySide.left, .right] {
                guard let tally = try sides.optionalObject(side.rawValue) else { continue }
                perSide[side] = SideTally(
                    repCount: try tally.integer("repCount"), rejectedCount: try tally.integer("rejectedCount"),
                    best: try tally.optionalNumber("best"))
            }
        }
        var prescription = Prescription()
        if let member = try optionalObject("prescription") {
            prescription = Prescription(
                target: try member.optionalNumber("target"), rest: try member.optionalNumber("rest"),
                enter: try member.optionalNumber("enter"), exit: try member.optionalNumber("exit"),
                holdSeconds: try member.optionalNumber("holdSeconds"), reps: try member.optionalInteger("reps"),
                sets: try member.optionalInteger("sets"))
        }
        let frames = try integer("frames")
        let duration = try number("duration")
        return SessionSummary(
            exercise: try string("exercise"), exerciseVersion: try optionalInteger("exerciseVersion") ?? 1,
            side: try side("side"), prescription: prescription, firstTimestamp: frames > 0 ? 0 : nil,
            lastTimestamp: frames > 0 ? duration : nil, frames: frames,
            visibleFrames: Int((try number("visibleRatio") * Double(frames)).rounded()),
            repCount: try integer("repCount"), rejectedCount: try integer("rejectedCount"),
            best: try optionalNumber("best"), baseline: try optionalNumber("baseline"), reps: reps,
            holds: try holds(), faultCounts: faultCounts, perSide: perSide)
    }
}
