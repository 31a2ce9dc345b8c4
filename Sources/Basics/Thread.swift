import Glibc

/// Starts a detached thread that runs `body`: a plain pthread (not Foundation's `Thread`, which would bring
/// Foundation and its memory into the server), named for tools like top, perf and gdb.
///
/// ```swift
/// startThread(name: "event-loop-0", stackSize: 1 << 20) { loop.run() }
/// ```
/// - Parameters:
///   - name: The thread's name. Only its first 15 bytes are kept (the kernel's limit), cut between characters.
///   - stackSize: The stack's size in bytes; nil takes the process default (`ulimit -s`, usually 8 MiB).
///   - body: The thread's work; the thread ends when it returns.
public func startThread(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ThreadContext(name: name, body: body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
    var thread = pthread_t()
    let result = pthread_create(
        &thread, &attributes,
        { argument in
            guard let argument else { return nil }
            let context = Unmanaged<ThreadContext>.fromOpaque(argument).takeRetainedValue()
            nameCurrentThread(context.name)
            context.body()
            return nil
        }, context)
    precondition(result == 0, "pthread_create failed: \(result)")
}

/// What a new thread is handed through `pthread_create`'s context pointer.
private final class ThreadContext {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

/// Names the calling thread through `/proc/thread-self/comm` (proc(5)), what `pthread_setname_np` does (Swift's
/// Glibc module leaves that function out: it is a GNU extension). Unnamed, a thread keeps the name of whichever
/// thread created it, and profiles mix the two up.
private func nameCurrentThread(_ name: String) {
    var bytes = Array(name.utf8)
    if bytes.count > 15 {
        var end = 15
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a multi-byte character
        bytes.removeSubrange(end...)
    }
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}
