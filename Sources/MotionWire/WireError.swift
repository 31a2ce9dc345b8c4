/// A refused message: the `code` and `message` of an `error` message (docs/protocol.md §3).
///
/// A bad message never ends a session: the server answers it with
/// `WireEncoder.encodeError(_:frame:into:)` and goes on.
public struct WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable wire code clients switch on.
    public var code: ErrorCode
    /// A short English explanation for logs and developers; not meant for end users.
    public var message: String
    /// A JSON Pointer (RFC 6901) to the offending field of the document, e.g. `/thresholds/enter`, when the error
    /// is about one field (an exercise definition, docs/protocol.md §5.1); `""` names the whole document. REST error
    /// bodies carry it as `pointer`.
    public var pointer: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The wire code.
    ///   - message: A short explanation.
    ///   - pointer: The offending field, when there is one.
    public init(code: ErrorCode, message: String, pointer: String? = nil) {
        self.code = code
        self.message = message
        self.pointer = pointer
    }

    /// `code: message`, or `code: pointer: message` with a pointer.
    public var description: String {
        guard let pointer else { return "\(code.rawValue): \(message)" }
        return "\(code.rawValue): \(pointer.isEmpty ? "(document)" : pointer): \(message)"
    }

    /// The wire error for a JSON syntax or size error: `messageTooBig` for ``JSONError/Reason/tooLarge``,
    /// `invalidJSON` otherwise, with the offset in the message.
    /// - Parameter error: The reader's error.
    public init(_ error: JSONError) {
        self.init(code: error.reason == .tooLarge ? .messageTooBig : .invalidJSON, message: error.description)
    }

    /// The `unknownJoint` error naming `name`: `unknown joint "left_shoulder_1_joint" (ignored)`.
    /// - Parameter name: The name, as ``DecodingReport/unknownJoint`` holds it.
    /// - Returns: The error a session sends, once, for its first unknown joint name.
    public static func unknownJoint(_ name: String) -> WireError {
        WireError(code: .unknownJoint, message: "unknown joint \"\(name)\" (ignored)")
    }

    static func invalidPose(_ message: String) -> WireError { WireError(code: .invalidPose, message: message) }
    static func invalidMessage(_ message: String) -> WireError { WireError(code: .invalidMessage, message: message) }

    /// A known member given twice (see ``KnownMembers``): `duplicate member "t"`, or with `object`,
    /// `duplicate member "nose" in points`.
    /// - Parameters:
    ///   - name: The member's name.
    ///   - object: The member holding the object, when it is not the top-level one.
    ///   - code: The code of the message kind's semantic errors (`invalidMessage` for a repeated `type`).
    static func duplicateMember(_ name: String, in object: String? = nil, code: ErrorCode) -> WireError {
        let place = object.map { " in \($0)" } ?? ""
        return WireError(code: code, message: "duplicate member \"\(name)\"\(place)")
    }
}
