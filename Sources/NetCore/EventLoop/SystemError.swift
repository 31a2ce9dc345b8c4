import CNetShim
import Glibc

/// A failed system call: which call, and errno.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `bind`.
    public var call: String
    /// The errno value.
    public var code: Int32

    /// Creates an error.
    /// - Parameters:
    ///   - call: The call that failed.
    ///   - code: The errno value.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The error for `call` with the calling thread's current errno.
    package static func last(_ call: String) -> SystemError { SystemError(call: call, code: cnet_errno()) }

    /// `bind: Address already in use (98)`.
    public var description: String {
        "\(call): \(String(cString: strerror(code))) (\(code))"
    }
}
