import CNetShim
import Glibc
public import HTTPWire

/// One WebSocket connection (server or client side) on its event loop.
///
/// All callbacks run on ``loop``'s thread, in order, so an actor that runs on the same loop (its executor)
/// handles messages without a thread hop. ``send(_:)`` and ``close(code:reason:)`` may be called from any
/// thread; off the loop they hop to it.
///
/// Outgoing messages queue per connection. A message sent with a `replacing` key replaces an older queued one
/// with the same key that has not started to leave (e.g. snapshots coalesce to the newest); other messages are
/// never dropped: a peer that stops reading until ``WebSocketConfiguration/maxQueuedBytes`` is exceeded is
/// disconnected with 1008 instead.
public final class WebSocket: EventLoopHandler, @unchecked Sendable {
    // Safety: mutable state is touched only on `loop`'s thread; public entry points hop there first.

    /// The loop the connection lives on.
    public let loop: EventLoop
    /// The request that opened the connection (server side), for its path, query and headers.
    public let request: HTTPRequest?
    /// The subprotocol agreed in the handshake, if any.
    public let subprotocol: String?
    /// Called with every message, on the loop thread, lent without a copy: the view's bytes are valid only during
    /// the call (`view.message` copies them). Set it on the loop thread; messages that arrive before it is set are
    /// kept (up to 1,024) and delivered when it is.
    public var onMessage: ((WebSocketMessageView) -> Void)? {
        didSet {
            guard onMessage != nil, !early.isEmpty else { return }
            let waiting = early
            early.removeAll()
            for message in waiting { message.withView { onMessage?($0) } }
        }
    }
    /// Called once when the connection has closed, with the peer's close code (nil when none was received).
    /// Set it on the loop thread; if the connection has already closed it is called at once.
    public var onClose: ((WebSocketCloseCode?, String) -> Void)? {
        didSet {
            guard closed, let onClose else { return }
            self.onClose = nil
            let (code, reason) = peerClose ?? (nil, "")
            onClose(code, reason)
        }
    }
    private var early: [WebSocketMessage] = []

    /// The connection's messages as an async sequence, ending when it closes. Safe from any thread; replaces
    /// ``onMessage`` and ``onClose``. Each message crosses to the consuming task (a thread hop unless that task
    /// runs on this loop); use the callbacks on the loop for the lowest cost.
    public func messages() -> AsyncStream<WebSocketMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self)
        let install: @Sendable () -> Void = {
            self.onMessage = { continuation.yield($0.message) }
            self.onClose = { _, _ in continuation.finish() }
        }
        if loop.inEventLoop { install() } else { loop.execute(install) }
        return stream
    }

    private struct Pending {
        var bytes: [UInt8]
        var key: String?
    }

    private let fd: Int32
    private let role: WebSocketRole
    private let configuration: WebSocketConfiguration
    private let lifetime: ConnectionLifetime?
    private let logger: Logger
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private let deflater: PerMessageDeflate.Deflater?
    private let compressionThreshold: Int
    private var queue: [Pending] = []
    private var queueHead = 0
    private var headOffset = 0
    private var queuedBytes = 0
    /// Edge-triggered: every read continues to a short read (the socket is then empty) or EAGAIN, and writes are
    /// only watched while the socket is full.
    private var interest: IOEvents = [.readable, .readHangup, .edgeTriggered]
    private var closeSent = false
    private var closed = false
    private var peerClose: (WebSocketCloseCode?, String)?
    private var lastReceived: UInt64
    private var timer: LoopTimer?

    init(
        fd: Int32, loop: EventLoop, role: WebSocketRole, request: HTTPRequest?, subprotocol: String?,
        compression: PerMessageDeflate.Parameters?, configuration: WebSocketConfiguration,
        lifetime: ConnectionLifetime?, logger: Logger
    ) {
        self.fd = fd
        self.loop = loop
        self.role = role
        self.request = request
        self.subprotocol = subprotocol
        self.configuration = configuration
        self.lifetime = lifetime
        self.logger = logger
        // A compressed frame may be a little larger than the message it inflates to (incompressible data grows);
        // the message size limit applies after inflation, so the frame limit must leave that room.
        let frameLimit =
            compression == nil
            ? configuration.maxFrameSize
            : max(configuration.maxFrameSize, configuration.maxMessageSize + configuration.maxMessageSize / 16 + 1024)
        decoder = WebSocketFrameDecoder(role: role, maxFrameSize: frameLimit, allowsRSV1: compression != nil)
        var inflater: PerMessageDeflate.Inflater?
        if let compression {
            // The peer compresses with its own parameters: a server inflates with the client's window.
            let (peerBits, peerReset, ownBits, ownReset) =
                role == .server
                ? (
                    compression.clientMaxWindowBits, compression.clientNoContextTakeover,
                    compression.serverMaxWindowBits, compression.serverNoContextTakeover
                )
                : (
                    compression.serverMaxWindowBits, compression.serverNoContextTakeover,
                    compression.clientMaxWindowBits, compression.clientNoContextTakeover
                )
            inflater = PerMessageDeflate.Inflater(windowBits: peerBits, noContextTakeover: peerReset)
            deflater = PerMessageDeflate.Deflater(windowBits: ownBits, noContextTakeover: ownReset)
        } else {
            deflater = nil
        }
        compressionThreshold = configuration.compression?.compressionThreshold ?? Int.max
        assembler = WebSocketMessageAssembler(maxMessageSize: configuration.maxMessageSize, inflater: inflater)
        lastReceived = EventLoop.now()
    }

    /// Registers with the loop, processes bytes that arrived with the handshake, and starts the ping timer.
    /// Loop thread only.
    func start(leftover: [UInt8]) {
        do {
            try loop.register(fd, for: interest, handler: self)
        } catch {
            logger.log(.warning, "cannot register websocket", ["error": "\(error)"])
            finish()
            return
        }
        schedulePing()
        if !leftover.isEmpty {
            var bytes = leftover
            bytes.withUnsafeMutableBytes { process($0) }
        }
    }

    // MARK: Sending

    /// Sends a message. Safe from any thread.
    /// - Parameters:
    ///   - message: The text or binary message.
    ///   - key: A coalescing key: a queued, not yet started message with the same key is replaced by this one.
    public func send(_ message: WebSocketMessage, replacing key: String? = nil) {
        guard loop.inEventLoop else {
            loop.execute { self.send(message, replacing: key) }
            return
        }
        message.withView { send($0, replacing: key) }
    }

    /// Sends a message from bytes that stay the caller's (text must be valid UTF-8): when nothing is queued they go
    /// straight to the socket, with no copy. Loop thread only.
    /// - Parameters:
    ///   - message: The message; its bytes are read during the call only.
    ///   - key: A coalescing key, as in ``send(_:replacing:)``.
    public func send(_ message: WebSocketMessageView, replacing key: String? = nil) {
        precondition(loop.inEventLoop, "send(_: WebSocketMessageView) must be called on the socket's loop")
        guard !closeSent, !closed else { return }
        enqueue(opcode: message.isText ? .text : .binary, payload: message.bytes, key: key)
    }

    /// Sends a text message from bytes that are already valid UTF-8 (no copy into a `String`). Loop thread only.
    /// - Parameters:
    ///   - utf8: The text's bytes.
    ///   - key: A coalescing key, as in ``send(_:replacing:)``.
    public func sendText(utf8 bytes: [UInt8], replacing key: String? = nil) {
        bytes.withUnsafeBytes { send(WebSocketMessageView(isText: true, bytes: $0), replacing: key) }
    }

    /// Starts the closing handshake (RFC 6455 §7.1.2). Safe from any thread; idempotent.
    /// - Parameters:
    ///   - code: The close code.
    ///   - reason: A short UTF-8 reason (truncated to fit the 125-byte control frame).
    public func close(code: WebSocketCloseCode = .normal, reason: String = "") {
        guard loop.inEventLoop else {
            loop.execute { self.close(code: code, reason: reason) }
            return
        }
        sendClose(code: code, reason: reason)
    }

    /// Whether the connection has fully closed.
    public var isClosed: Bool {
        precondition(loop.inEventLoop, "isClosed must be read on the socket's loop")
        return closed
    }

    private func enqueue(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, key: String?) {
        if let deflater, payload.count >= compressionThreshold {
            let compressed = deflater.compress(Array(payload))
            compressed.withUnsafeBytes { enqueueFrame(opcode: opcode, rsv1: true, payload: $0, key: key) }
        } else {
            enqueueFrame(opcode: opcode, rsv1: false, payload: payload, key: key)
        }
    }

    private func enqueueFrame(opcode: WebSocketOpcode, rsv1: Bool, payload: UnsafeRawBufferPointer, key: String?) {
        let mask = role == .client ? Self.randomMask() : nil
        let header = WebSocketFrameHeader(rsv1: rsv1, opcode: opcode, payloadCount: payload.count, mask: mask)
        var sent = 0
        if queueHead == queue.count && mask == nil {
            // Nothing waits: the frame leaves at once, header and payload in one call, the payload from where it is.
            switch header.withUnsafeBytes({ Socket.send(fd, $0, payload) }) {
            case .transferred(let count):
                if count == header.count + payload.count { return }
                sent = count
            case .wouldBlock:
                break
            case .endOfStream, .failed:
                finish()
                return
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.count + payload.count)
        header.withUnsafeBytes { bytes.append(contentsOf: $0) }
        let start = bytes.count
        bytes.append(contentsOf: payload)
        if let mask {
            bytes.withUnsafeMutableBytes {
                WebSocketFrameEncoder.applyMask(mask, to: UnsafeMutableRawBufferPointer(rebasing: $0[start...]))
            }
        }
        if sent > 0 {
            // Partly sent: it heads the queue, started (so it is never replaced).
            queue.append(Pending(bytes: bytes, key: key))
            headOffset = sent
            queuedBytes += bytes.count - sent
        } else if let key, let index = queue[queueHead...].lastIndex(where: { $0.key == key }),
            index != queueHead || headOffset == 0
        {
            queuedBytes += bytes.count - queue[index].bytes.count
            queue[index].bytes = bytes
        } else {
            queue.append(Pending(bytes: bytes, key: key))
            queuedBytes += bytes.count
        }
        guard queuedBytes <= configuration.maxQueuedBytes else {
            logger.log(.warning, "websocket peer too slow; disconnecting", ["queued": "\(queuedBytes)"])
            failConnection(.policyViolation, reason: "too slow")
            return
        }
        flush()
    }

    private func sendControl(_ opcode: WebSocketOpcode, payload: [UInt8]) {
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.encode(
            WebSocketFrame(fin: true, rsv1: false, opcode: opcode, payload: payload),
            mask: role == .client ? Self.randomMask() : nil, into: &bytes)
        queue.append(Pending(bytes: bytes, key: nil))
        queuedBytes += bytes.count
        flush()
    }

    private func sendClose(code: WebSocketCloseCode, reason: String) {
        guard !closeSent, !closed else { return }
        closeSent = true
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = Array(reason.utf8.prefix(123))
        while !reasonBytes.isEmpty, String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        payload += reasonBytes
        sendControl(.close, payload: payload)
        timer?.cancel()
        timer = loop.schedule(after: configuration.closeTimeout) { [self] in finish() }
        // RFC 6455 §7.1.1: after both close frames the server closes the TCP connection first.
        if peerClose != nil, role == .server { finishAfterFlush = true }
    }

    private var finishAfterFlush = false
    private var discarding = false
    private var closeObservers: [() -> Void] = []

    /// Runs `observer` once the connection has closed (before ``onClose``). Loop thread only.
    func addCloseObserver(_ observer: @escaping () -> Void) { closeObservers.append(observer) }

    private func failConnection(_ code: WebSocketCloseCode, reason: String) {
        // RFC 6455 §7.1.7: fail the connection: send a close frame if possible, then drop the socket.
        sendClose(code: code, reason: reason)
        finishAfterFlush = true
        flush()
    }

    private func flush() {
        guard !closed else { return }
        while queueHead < queue.count {
            let offset = headOffset
            let result = queue[queueHead].bytes.withUnsafeBytes {
                Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...]))
            }
            switch result {
            case .transferred(let count):
                headOffset += count
                queuedBytes -= count
                if headOffset == queue[queueHead].bytes.count {
                    queueHead += 1
                    headOffset = 0
                }
            case .wouldBlock:
                setInterest(interest.union(.writable))
                return
            case .endOfStream, .failed:
                finish()
                return
            }
        }
        queue.removeAll(keepingCapacity: queue.capacity <= 16)
        queueHead = 0
        headOffset = 0
        queuedBytes = 0
        if interest.contains(.writable) { setInterest(interest.subtracting(.writable)) }
        guard finishAfterFlush else { return }
        if peerClose != nil || role == .client {
            finish()
        } else {
            // Failing a peer that is still sending: closing now would reset the connection and could destroy our
            // close frame in flight. Stop writing, discard what arrives, and close at its end or the close timeout.
            finishAfterFlush = false
            discarding = true
            shutdown(fd, Int32(SHUT_WR))
        }
    }

    // MARK: Receiving

    /// Handles readiness. Loop thread only.
    public func handle(_ events: IOEvents) {
        if events.contains(.writable) { flush() }
        if events.contains(.readable) || events.contains(.readHangup) { readAvailable() }
        if events.contains(.error) || events.contains(.hangup) { finish() }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        while !closed {
            switch Socket.receive(fd, into: buffer.bytes) {
            case .transferred(let count):
                lastReceived = loop.time
                if discarding { continue }
                process(UnsafeMutableRawBufferPointer(start: buffer.pointer, count: count))
                if count < buffer.capacity { return }
            case .endOfStream:
                // RFC 6455 §7.1.5: the TCP connection closed without a close frame: code 1006 (abnormal).
                finish()
                return
            case .wouldBlock:
                return
            case .failed:
                finish()
                return
            }
        }
    }

    /// Decodes received bytes (payloads are unmasked in place) and acts on each frame.
    private func process(_ input: UnsafeMutableRawBufferPointer) {
        let failure = decoder.decode(input) { frame in
            guard !closed else { return false }
            guard peerClose == nil else { return true }
            switch assembler.push(frame) {
            case .none:
                break
            case .unfragmented(let isText):
                deliver(WebSocketMessageView(isText: isText, bytes: frame.payload))
            case .message(let message):
                message.withView { deliver($0) }
            case .ping(let payload):
                if !closeSent { sendControl(.pong, payload: payload) }
            case .pong:
                break
            case .close(let code, let reason):
                peerClose = (code, reason)
                if closeSent {
                    if role == .server { finish() } else { finishAfterFlush = true }
                } else {
                    // RFC 6455 §5.5.1: echo the status code.
                    sendClose(code: code ?? .normal, reason: "")
                    if role == .server { finishAfterFlush = true }
                    flush()
                }
            case .error(let error):
                failConnection(error.closeCode, reason: "\(error)")
                return false
            }
            return !closed
        }
        if let failure { failConnection(failure.closeCode, reason: "\(failure)") }
    }

    /// Hands a message to ``onMessage``, or keeps a copy until it is set.
    private func deliver(_ message: WebSocketMessageView) {
        guard !closeSent else { return }
        if let onMessage {
            onMessage(message)
        } else if early.count < 1024 {
            early.append(message.message)
        } else {
            failConnection(.policyViolation, reason: "messages not consumed")
        }
    }

    // MARK: Timers and closing

    private func schedulePing() {
        // The timer holds the socket strongly (a weak reference would move its reference count to a slower side
        // table for good); `finish` cancels the timer, which releases it.
        timer = loop.schedule(after: configuration.pingInterval) { [self] in
            guard !self.closed, !self.closeSent else { return }
            let silent = Duration.nanoseconds(Int64(EventLoop.now() - self.lastReceived))
            if silent >= self.configuration.idleTimeout {
                self.close(code: .goingAway, reason: "idle")
                return
            }
            // Only a quiet connection needs a ping to show it is alive.
            if silent >= self.configuration.pingInterval { self.sendControl(.ping, payload: []) }
            self.schedulePing()
        }
    }

    private func setInterest(_ events: IOEvents) {
        interest = events
        loop.modify(fd, for: events)
    }

    private func finish() {
        guard !closed else { return }
        closed = true
        timer?.cancel()
        timer = nil
        loop.deregister(fd)
        Glibc.close(fd)
        queue.removeAll()
        lifetime?.close()
        for observer in closeObservers { observer() }
        closeObservers.removeAll()
        let (code, reason) = peerClose ?? (nil, "")
        let callback = onClose
        onClose = nil
        onMessage = nil
        early.removeAll()
        callback?(code, reason)
    }

    private static func randomMask() -> (UInt8, UInt8, UInt8, UInt8) {
        let value = UInt32.random(in: .min ... .max)
        return (UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }
}
