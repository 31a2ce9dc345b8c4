/// Why a response could not be serialised. Nothing is written to the buffer when one of these is thrown.
public enum HTTPWriteError: Error, Equatable, Sendable {
    /// A field name that is empty or not a token (RFC 9110 §5.1); the name is attached.
    case invalidHeaderName(String)
    /// A field value containing CR, LF, NUL or another control character (RFC 9110 §5.5): response splitting.
    case invalidHeaderValue(name: String)
    /// A reason phrase containing CR, LF or another control character (RFC 9112 §4).
    case invalidReasonPhrase
    /// A status code outside 100...999 (RFC 9112 §4).
    case invalidStatusCode(Int)
    /// Both Content-Length and Transfer-Encoding were set (RFC 9112 §6.2).
    case conflictingFraming
    /// The Content-Length header does not match the body that was passed.
    case contentLengthMismatch(declared: String, actual: Int)
}
