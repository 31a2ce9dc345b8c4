/// A reusable read buffer shared by the connections of one loop.
final class ReadBuffer: @unchecked Sendable {
    // Safety: used only on the thread of the loop that owns it.
    let pointer: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// The whole buffer.
    var bytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: pointer, count: capacity) }

    deinit { pointer.deallocate() }
}
