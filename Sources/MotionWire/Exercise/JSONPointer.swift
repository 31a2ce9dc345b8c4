/// A JSON Pointer (RFC 6901): the path to one value of a JSON document, e.g. `/rules/1/limit`.
///
/// Built while decoding, member by member, so an error can name the field it is about.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// One step of the path.
    public enum Token: Sendable, Hashable {
        /// An object member, by its (unescaped) name.
        case member(String)
        /// An array element, counted from 0.
        case index(Int)
    }

    /// The steps from the document's root; empty for the root itself.
    public var tokens: [Token]

    /// The pointer to the whole document (`""`).
    public init() { tokens = [] }

    /// A pointer from its steps.
    /// - Parameter tokens: The steps from the root.
    public init(_ tokens: [Token]) { self.tokens = tokens }

    /// The pointer to member `name` of the object this one points to.
    /// - Parameter name: The member's name.
    public func appending(_ name: String) -> JSONPointer { JSONPointer(tokens + [.member(name)]) }

    /// The pointer to element `index` of the array this one points to.
    /// - Parameter index: The element's index, from 0.
    public func appending(_ index: Int) -> JSONPointer { JSONPointer(tokens + [.index(index)]) }

    /// The pointer's string form: `""` for the root, else `/` before every step, with `~` written `~0` and `/`
    /// written `~1` in member names (RFC 6901 §3), e.g. `/a~1b/0`.
    public var description: String {
        var text = ""
        for token in tokens {
            text.append("/")
            switch token {
            case .index(let index): text.append(String(index))
            case .member(let name):
                for character in name.unicodeScalars {
                    switch character {
                    case "~": text.append("~0")
                    case "/": text.append("~1")
                    default: text.unicodeScalars.append(character)
                    }
                }
            }
        }
        return text
    }

    /// The field for messages: `thresholds.enter`, `rules[1].limit`, `the definition` for the root.
    public var label: String {
        guard !tokens.isEmpty else { return "the definition" }
        var text = ""
        for token in tokens {
            switch token {
            case .index(let index): text.append("[\(index)]")
            case .member(let name): text.append(text.isEmpty ? name : "." + name)
            }
        }
        return text
    }
}
