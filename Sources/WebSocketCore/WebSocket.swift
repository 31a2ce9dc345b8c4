import Basics
import CNetShim
import Glibc
public import HTTPWire
public import NetCore

/// One WebSocket connection (server or client side) on its event loop.
///
/// All callbacks run on ``loop``'s thread, in order, so an actor that runs on the same loop (its executor)
/// handles messages without a thread hop. ``send(_:)`` and ``close(code:reason:)`` may be called from any
/// thread; off the loop they hop to it.
///
/// Outgoing messages queue per connection. A message sent with a `replacing` key replaces an older queued one
/// with the same key that has not started to leave (e.g. snapshots coalesce to the newest); pongs coalesce the same
/// way, to the answer to the newest ping. Other messages are never dropped: a peer that reads too slowly for
/// ``ConnectionBudget/pendingOutputBytes`` is disconnected with 1008 instead, and one that takes no byte for
/// ``WebSocketConfiguration/writeTimeout`` is dropped.
public final class WebSocket: EventLoopHandler, KeepAliveChecked, @unchecked Sendable {
    // Safety: mutable state is touched only on `loop`'s thread; public entry points hop there first.

    /// The loop the connection lives on.
    public let loop: EventLoop
    /// What the server attached when it accepted the connection (HTTPServer's box of the handshake request, which
    /// its `request` reads): a single reference, released once the connection starts unless
    /// ``WebSocketConfiguration/keepsRequest`` is on; nil on the client side. Loop thread only.
    package private(set) var handshake: AnyObject?
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
    /// Called once when the connection has closed, with the peer's close code: nil when none was received, which
    /// RFC 6455 §7.1.5 calls 1006 (abnormal closure): the connection was lost, failed, or dropped because the peer
    /// stopped reading. It runs on the loop thread, on a turn of the loop after the one that closed the connection, so
    /// a send or close of the application's that ends the connection never re-enters the application. Set it on the
    /// loop thread; if the connection has already closed it is called at once.
    public var onClose: ((WebSocketCloseCode?, String) -> Void)? {
        didSet {
            guard lifecycle.isClosed, let onClose else { return }
            self.onClose = nil
            onClose(lifecycle.peerClose?.code, lifecycle.peerClose?.reason ?? "")
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

    // Every open connection carries these fields, idle or not: what all connections of an endpoint share is in
    // `settings`, and the one-byte fields come last, together, so that they share one word of padding.
    private let transport: Transport
    private var fd: Int32 { transport.fd }
    private let settings: Settings
    private var configuration: WebSocketConfiguration { settings.configuration }
    private var logger: Logger { settings.logger }
    private let lifetime: ConnectionLifetime?
    /// The connection's ``ConnectionBudget/pendingOutputBytes``: unsent bytes past it fail the connection.
    private let maxPendingOutputBytes: Int
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private let deflater: PerMessageDeflate.Deflater?
    /// The smallest payload worth compressing, when ``deflater`` is set.
    private var compressionThreshold: Int { configuration.compression?.compressionThreshold ?? .max }
    /// Frames waiting for the socket and the write timeout, present only while some wait: an idle connection, or
    /// one whose frames leave at once, carries neither.
    private var backlog: Backlog?
    /// Open, closing from either side, failing, or closed: the state the connection acts on.
    private var lifecycle: WebSocketLifecycle
    /// The hub that counts the connection until it closes (``track(in:)``).
    private var hub: WebSocketHub?
    private var lastReceived: UInt64
    /// Where the keep-alive check waits in the loop's queue (``schedulePing()``).
    private var keepAliveTicket = 0
    /// The close timer: armed with our close frame, it drops a peer that does not answer it.
    private var timer: LoopTimer?
    private var role: WebSocketRole { lifecycle.role }
    /// Edge-triggered: every read continues to a short read (the socket is then empty) or EAGAIN, and writes are
    /// only watched while the socket is full.
    private var interest: IOEvents = [.readable, .readHangup, .edgeTriggered]
    /// Set by ``pauseReading()``: the socket is not read (a half-close or reset is seen once reading resumes).
    private var readingPaused = false
    /// Set once readiness reported the peer's half-close: a short read then no longer means the socket is empty,
    /// since the end of the stream after the data raises no further edge.
    private var peerHungUp = false

    package init(
        transport: Transport, loop: EventLoop, role: WebSocketRole, handshake: AnyObject?, subprotocol: String?,
        compression: PerMessageDeflate.Parameters?, settings: Settings, budget: ConnectionBudget,
        lifetime: ConnectionLifetime?
    ) {
        maxPendingOutputBytes = budget.pendingOutputBytes
        self.transport = transport
        self.loop = loop
        self.handshake = handshake
        self.subprotocol = subprotocol
        self.settings = settings
        self.lifetime = lifetime
        let configuration = settings.configuration
        lifecycle = WebSocketLifecycle(role: role)
        // A compressed frame may be a little larger than the message it inflates to (incompressible data grows);
        // the message size limit applies after inflation, so the frame limit must leave that room.
        let messageLimit = configuration.maxMessageBytes
        let frameLimit =
            compression == nil
            ? configuration.maxFrameBytes
            : max(configuration.maxFrameBytes, messageLimit + messageLimit / 16 + 1024)
        decoder = WebSocketFrameDecoder(role: role, maxFrameBytes: frameLimit, allowsRSV1: compression != nil)
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
        assembler = WebSocketMessageAssembler(maxMessageBytes: configuration.maxMessageBytes, inflater: inflater)
        lastReceived = loop.now()
    }

    /// Registers with the loop, processes bytes that arrived with the handshake, and arms the keep-alive check;
    /// releases ``handshake`` (unless kept). Loop thread only.
    package func start(leftover: [UInt8]) {
        // The application has read what it needs in `onUpgrade`; the headers would otherwise stay for the
        // connection's whole life.
        if !configuration.keepsRequest { handshake = nil }
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
        // Edge-triggered: bytes TLS already holds raise no event.
        if transport.hasBufferedInput { readAvailable() }
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
        guard lifecycle.isOpen else { return }
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
    ///   - reason: A short reason, cut between characters to fit the 125-byte control frame
    ///     (`WebSocketFrame.closePayload(code:reason:)`).
    public func close(code: WebSocketCloseCode = .normal, reason: String = "") {
        guard loop.inEventLoop else {
            loop.execute { self.close(code: code, reason: reason) }
            return
        }
        perform(lifecycle.close(code: code, reason: reason))
    }

    /// Whether the connection has fully closed.
    public var isClosed: Bool {
        precondition(loop.inEventLoop, "isClosed must be read on the socket's loop")
        return lifecycle.isClosed
    }

    /// Stops reading the socket, so TCP slows the peer down (flow control): no message is delivered after the one
    /// being delivered until ``resumeReading()`` (bytes already read wait in the frame decoder). Loop thread only.
    public func pauseReading() {
        precondition(loop.inEventLoop, "pauseReading() must be called on the socket's loop")
        readingPaused = true
    }

    /// Reads again after ``pauseReading()``, starting with what the socket holds already. Loop thread only.
    public func resumeReading() {
        precondition(loop.inEventLoop, "resumeReading() must be called on the socket's loop")
        guard readingPaused, !lifecycle.isClosed else { return }
        readingPaused = false
        // First the frames read before the pause, then the socket: edge-triggered, bytes that arrived while paused
        // raise no new event.
        process(UnsafeMutableRawBufferPointer(start: nil, count: 0))
        readAvailable()
    }

    /// Queued outgoing bytes not yet handed to the kernel (what ``ConnectionBudget/pendingOutputBytes`` bounds).
    /// Loop thread only.
    package var queuedByteCount: Int {
        precondition(loop.inEventLoop, "queuedByteCount must be read on the socket's loop")
        return backlog?.frames.byteCount ?? 0
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
        if backlog == nil && mask == nil {
            // Nothing waits: the frame leaves at once, header and payload in one call, the payload from where it is.
            switch header.withUnsafeBytes({ transport.send($0, payload) }) {
            case .transferred(let count):
                if count == header.count + payload.count {
                    // A TLS record the socket could not take whole waits for writability.
                    if transport.hasPendingOutput { flush() }
                    return
                }
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
        // A frame partly sent heads the queue, started (so it is never replaced).
        queueFrame(bytes, key: key.map { .message($0) }, sent: sent)
    }

    private func sendControl(_ opcode: WebSocketOpcode, payload: [UInt8]) {
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.encode(
            WebSocketFrame(fin: true, rsv1: false, opcode: opcode, payload: payload),
            mask: role == .client ? Self.randomMask() : nil, into: &bytes)
        // RFC 6455 §5.5.3: when pings arrive faster than pongs can leave, only the most recent needs an answer. The
        // queued pong that has not started is replaced by the newest, so a peer that pings without reading holds
        // one pong here, not one per ping.
        queueFrame(bytes, key: opcode == .pong ? .pong : nil, isClose: opcode == .close)
    }

    /// Queues a frame and writes what the socket takes. Every frame counts against the connection's
    /// ``ConnectionBudget/pendingOutputBytes``, control frames included, except a close frame: it must always be
    /// sendable, and nothing is queued after it. Replaceable messages coalesce long before the bound, and so do
    /// pongs: at most one waits, answering the newest ping (RFC 6455 §5.5.3), so a peer that pings without reading
    /// is not disconnected for it.
    private func queueFrame(_ frame: [UInt8], key: OutgoingQueue.Key?, sent: Int = 0, isClose: Bool = false) {
        let backlog = self.backlog ?? Backlog(limit: maxPendingOutputBytes)
        self.backlog = backlog
        guard backlog.frames.append(frame, key: key, sent: sent, exempt: isClose) else {
            logger.log(.warning, "websocket peer too slow; disconnecting", ["queued": "\(backlog.frames.byteCount)"])
            failConnection(.policyViolation, reason: "too slow")
            return
        }
        flush()
    }

    /// Does what the lifecycle answered.
    private func perform(_ action: WebSocketLifecycle.Action?) {
        switch action {
        case nil:
            break
        case .sendClose(let code, let reason):
            let payload = WebSocketFrame.closePayload(code: code, reason: reason)
            // Armed first: the frame may leave at once and end the connection, which cancels the timer.
            loop.cancel(timer)
            timer = loop.schedule(after: configuration.closeTimeout) { [self] in finish() }
            sendControl(.close, payload: payload)
            // The peer's close frame must be read, even from a connection paused for flow control.
            if readingPaused { loop.execute { self.resumeReading() } }
        case .shutdownWrite:
            transport.shutdownWrite()
        case .finish:
            finish()
        }
    }

    /// Counts the connection among `hub`'s open ones until it closes (it leaves the hub before ``onClose``). Loop
    /// thread only.
    package func track(in hub: WebSocketHub) {
        self.hub = hub
        hub.add(self)
    }

    private func failConnection(_ code: WebSocketCloseCode, reason: String) {
        // RFC 6455 §7.1.7: fail the connection: send a close frame if possible, then drop the socket.
        perform(lifecycle.fail(code: code, reason: reason))
        flush()
    }

    private func flush() {
        guard !lifecycle.isClosed else { return }
        // Until the queue is empty, and then any TLS record still waiting for the socket.
        while true {
            let queued = backlog.flatMap { $0.frames.isEmpty ? nil : $0 }
            guard queued != nil || transport.hasPendingOutput else { break }
            switch queued?.frames.withUnsentHead({ transport.send($0) }) ?? transport.flushPending() {
            case .transferred(let count):
                queued?.frames.removeSent(count)
                queued?.writeTimeout.progressed(at: loop.time)
            case .wouldBlock:
                // Edge-triggered: once watched, the socket reports when it has room again.
                let filled = !interest.contains(.writable)
                if filled { setInterest(interest.union(.writable)) }
                // Only queued frames can stall; their stall is timed from the write that first found no room.
                if let backlog, filled || !backlog.isStallTimed {
                    backlog.isStallTimed = true
                    backlog.writeTimeout.socketFilled(fd: fd, on: loop, timeout: configuration.writeTimeout) {
                        [self] in checkWriteProgress()
                    }
                }
                return
            case .endOfStream, .failed:
                finish()
                return
            }
        }
        releaseBacklog()
        if interest.contains(.writable) && !transport.readWaitsForWritable {
            setInterest(interest.subtracting(.writable))
        }
        perform(lifecycle.outputDrained())
    }

    // MARK: Receiving

    /// Handles readiness. Loop thread only.
    public func handle(_ events: IOEvents) {
        if events.contains(.readHangup) { peerHungUp = true }
        if events.contains(.writable) { flush() }
        if events.contains(.readable) || events.contains(.readHangup)
            || (events.contains(.writable) && transport.readWaitsForWritable)
        {
            readAvailable()
        }
        if events.contains(.error) || events.contains(.hangup) { finish() }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        while !lifecycle.isClosed && !readingPaused {
            switch transport.receive(into: buffer.bytes) {
            case .transferred(let count):
                lastReceived = loop.time
                if lifecycle.discardsInput { continue }
                process(UnsafeMutableRawBufferPointer(start: buffer.pointer, count: count))
                // Data and the peer's FIN reported in one event: read on to the end of the stream.
                if !peerHungUp && !transport.mayHaveMore(afterReading: count, capacity: buffer.capacity) { return }
            case .endOfStream:
                // RFC 6455 §7.1.5: the TCP connection closed without a close frame: code 1006 (abnormal).
                finish()
                return
            case .wouldBlock:
                if transport.readWaitsForWritable && !interest.contains(.writable) {
                    setInterest(interest.union(.writable))
                }
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
            guard !lifecycle.isClosed else { return false }
            guard lifecycle.readsFrames else { return true }
            switch assembler.push(frame) {
            case .none:
                break
            case .unfragmented(let isText):
                deliver(WebSocketMessageView(isText: isText, bytes: frame.payload))
            case .message(let message):
                message.withView { deliver($0) }
            case .ping(let payload):
                if lifecycle.isOpen { sendControl(.pong, payload: payload) }
            case .pong:
                break
            case .close(let code, let reason):
                // Our echo, if one is due, leaves at once, and the server then closes first (RFC 6455 §7.1.1).
                perform(lifecycle.receivedClose(code: code, reason: reason))
            case .error(let error):
                failConnection(error.closeCode, reason: "\(error)")
                return false
            }
            // Paused for flow control: the frames after this one wait in the decoder.
            return !lifecycle.isClosed && !readingPaused
        }
        if let failure { failConnection(failure.closeCode, reason: "\(failure)") }
    }

    /// Hands a message to ``onMessage``, or keeps a copy until it is set.
    private func deliver(_ message: WebSocketMessageView) {
        guard lifecycle.isOpen else { return }
        if let onMessage {
            onMessage(message)
        } else if early.count < 1024 {
            early.append(message.message)
        } else {
            failConnection(.policyViolation, reason: "messages not consumed")
        }
    }

    // MARK: Timers and closing

    /// Arms the keep-alive check one ping interval from now. It waits in the loop's queue for that interval, not in
    /// a timer of its own: an idle connection holds no timer. The queue holds the socket strongly (a weak reference
    /// would move its reference count to a slower side table for good); `finish` disarms it, which releases it.
    private func schedulePing() {
        keepAliveTicket = keepAliveQueue.arm(self)
    }

    /// The loop's keep-alive queue for this connection's ping interval, made on first use.
    private var keepAliveQueue: IntervalQueue<AnyObject> { loop.keepAliveQueue(every: configuration.pingInterval) }

    /// A ping interval has passed since the last check: ping a quiet connection, close a silent one.
    package func checkKeepAlive() {
        let silence = Duration.nanoseconds(Int64(loop.now() - lastReceived))
        switch lifecycle.keepAlive(
            silentFor: silence, pingInterval: configuration.pingInterval, idleTimeout: configuration.idleTimeout)
        {
        case .stop: return
        case .closeIdle: return close(code: .goingAway, reason: "idle")
        // Only a quiet connection needs a ping to show it is alive.
        case .ping: sendControl(.ping, payload: [])
        case .wait: break
        }
        schedulePing()
    }

    /// Drops the connection if bytes are queued and the peer has taken none for
    /// ``WebSocketConfiguration/writeTimeout``; otherwise waits for the rest of that time (nothing when none is queued).
    private func checkWriteProgress() {
        guard let backlog else { return }
        let pending = !lifecycle.isClosed && !backlog.frames.isEmpty
        guard
            let stalled = backlog.writeTimeout.check(
                fd: fd, on: loop, timeout: configuration.writeTimeout, pending: pending, then: checkWriteProgress)
        else { return }
        logger.log(
            .warning, "websocket peer stopped reading; dropping the connection",
            ["queued": "\(backlog.frames.byteCount)", "stalled": "\(stalled)"])
        abort()
    }

    /// Gives back the queue's storage and disarms the write timeout once everything has left. A client's backlog
    /// stays: every frame a client sends is masked, so each goes through the queue.
    private func releaseBacklog() {
        guard let backlog, role == .server || lifecycle.isClosed else { return }
        backlog.writeTimeout.cancel(on: loop)
        self.backlog = nil
    }

    /// Drops the connection without a close frame, resetting it. RFC 6455 §7.1.7 asks for a close frame before
    /// closing, but one cannot reach a peer that does not read; a reset also frees the kernel's buffers for the
    /// socket at once instead of after its retries. ``onClose`` gets no code (1006, RFC 6455 §7.1.5).
    private func abort() {
        var reset = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        finish()
    }

    private func setInterest(_ events: IOEvents) {
        interest = events
        loop.modify(fd, for: events)
    }

    private func finish() {
        guard lifecycle.finished() else { return }
        loop.cancel(timer)
        timer = nil
        keepAliveQueue.disarm(keepAliveTicket, of: self)
        loop.deregister(fd)
        transport.close()
        releaseBacklog()
        lifetime?.close()
        // Safety: the callback is only called on this loop's thread, where it was set (the closure below runs there).
        nonisolated(unsafe) let callback = onClose
        onClose = nil
        onMessage = nil
        early.removeAll()
        let (code, reason) = (lifecycle.peerClose?.code, lifecycle.peerClose?.reason ?? "")
        let hub = self.hub
        self.hub = nil
        // On a later turn of the loop, never inside the call that ended the connection: that may be the
        // application's own (a send the socket refuses, a close), and its handler must not be re-entered from it.
        loop.execute {
            callback?(code, reason)
            // Counted until its handler has run: a shutdown waiting for the hub to empty (WebSocketHub.closeAll)
            // then knows that what the handler started (a session's last checkpoint) has been started.
            hub?.remove(self)
        }
    }

    private static func randomMask() -> (UInt8, UInt8, UInt8, UInt8) {
        let value = UInt32.random(in: .min ... .max)
        return (UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }
}
