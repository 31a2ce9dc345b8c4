/// A reusable read buffer shared by the connections of one loop.
package final class ReadBuffer: @unchecked Sendable {
    // Safety: used only on the thread of the loop that owns it.
    package let pointer: UnsafeMutableRawPointer
    package let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// The whole buffer.
    package var bytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: pointer, count: capacity) }

    deinit { pointer.deallocate() }
}
