import Glibc

/// Lines to standard output and standard error without Foundation or stdio buffering: each call is one `write(2)`
/// (more only when the kernel takes part of it), so lines written by different threads do not interleave.
public enum Console {
    /// Writes `text` and a newline to standard output.
    /// - Parameter text: One line.
    public static func line(_ text: String) { write(Array((text + "\n").utf8), to: STDOUT_FILENO) }

    /// Writes `text` and a newline to standard error.
    /// - Parameter text: One line.
    public static func error(_ text: String) { write(Array((text + "\n").utf8), to: STDERR_FILENO) }

    /// Writes all of `bytes` to `fd`, again after a partial write or EINTR; gives up on any other error.
    /// - Parameters:
    ///   - bytes: What to write.
    ///   - fd: An open file descriptor.
    public static func write(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let count = Glibc.write(fd, base + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }
}
