import Glibc
import HTTPWire
public import NetCore

/// What a ``RawWebSocketConnection`` tells its owner. Every call comes on the connection's loop thread.
public protocol RawWebSocketDelegate: AnyObject {
    /// The handshake succeeded; the connection can send.
    func webSocketDidOpen(_ connection: RawWebSocketConnection)
    /// The connection never opened (connect, handshake or timeout); ``webSocketDidFinish(_:)`` follows.
    func webSocketDidFail(_ connection: RawWebSocketConnection, reason: String)
    /// A whole data message arrived.
    /// - Parameters:
    ///   - payload: Its bytes when the context keeps payloads, otherwise empty; valid only during the call.
    ///   - length: Its length in bytes.
    ///   - text: Whether it is a text message.
    func webSocket(
        _ connection: RawWebSocketConnection, didReceive payload: UnsafeRawBufferPointer, length: Int, text: Bool)
    /// The open connection ended without this side asking: the server's close code, or nil and why it was lost.
    func webSocketDidClose(_ connection: RawWebSocketConnection, code: Int?, reason: String)
    /// The socket is closed and released; the last call for this connection.
    func webSocketDidFinish(_ connection: RawWebSocketConnection)
}

/// A WebSocket client connection for load generation, written directly on an event-loop-registered socket: it
/// speaks RFC 6455 framing itself, with far less work per message than the server under test — outgoing text is
/// masked eight bytes at a time (or sent pre-masked), incoming frames are parsed in place by HTTPWire's
/// ``WebSocketFrameDecoder`` and their payloads handed over without a copy (a frame split across reads is completed in
/// the decoder's buffer and lent from there). Pings are answered; fragmented messages are reassembled (their payloads
/// kept only when the context keeps payloads). No compression, no UTF-8 validation. Over `wss://` the
/// bytes go through a ``Transport`` with TLS (the TLS handshake follows the TCP connect); in the clear they go
/// straight to the socket as before, with no copy or allocation added per message. Used only on its context's loop
/// thread.
public final class RawWebSocketConnection: EventLoopHandler {
    /// What connections on one loop share: the loop, the target, its TLS context and a read buffer.
    public final class Context: @unchecked Sendable {
        // Safety: `buffer` is used only on `loop`'s thread; everything else is immutable.
        static let bufferSize = 64 * 1024
        /// The loop every connection of this context runs on.
        public let loop: EventLoop
        let address: sockaddr_in
        let request: [UInt8]
        let keepsPayloads: Bool
        /// Whether the target is `wss://`.
        let usesTLS: Bool
        /// The TLS client context (`wss://` only; nil there makes every connection fail).
        let tls: TLSContext?
        /// The name the server's certificate must carry (and SNI).
        let serverName: String
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Context.bufferSize, alignment: 16)

        /// A context for connections to `target` on `loop`.
        /// - Parameters:
        ///   - loop: The loop the connections run on.
        ///   - target: Where they connect, with extra headers, and TLS for `wss://`.
        ///   - keepsPayloads: Whether received messages' bytes are handed to the delegate (otherwise only lengths).
        public init(loop: EventLoop, target: WebSocketTarget, keepsPayloads: Bool) {
            self.loop = loop
            address = target.address
            self.keepsPayloads = keepsPayloads
            usesTLS = target.usesTLS
            tls = target.usesTLS ? target.tls : nil
            serverName = target.serverName
            var head = "GET \(target.path) HTTP/1.1\r\n"
            let headers = WebSocketHandshake.clientRequestHeaders(
                host: target.hostHeader, key: "KEY", protocols: [], extensions: nil)
            for (name, value) in headers + target.headers { head += "\(name): \(value)\r\n" }
            request = Array((head + "\r\n").utf8)
        }

        deinit { buffer.deallocate() }
    }

    private enum State {
        /// `securing`: the TLS handshake; `handshaking`: the WebSocket (HTTP upgrade) handshake.
        case idle, connecting, securing, handshaking, open, closing, closed
    }

    /// The owner's index for this connection.
    public let index: Int
    /// The owner; held until the connection finishes (after ``RawWebSocketDelegate/webSocketDidFinish(_:)``).
    public private(set) var delegate: (any RawWebSocketDelegate)?
    private let context: Context
    private var state = State.idle
    /// The socket (fd -1 before start and once finished), with TLS over it for `wss://`.
    private var transport = Transport.plain(-1)
    private var fd: Int32 { transport.fd }
    /// What the socket is watched for while connecting and during the handshakes (level-triggered).
    private var handshakeInterest: IOEvents = [.writable]
    private var request: [UInt8] = []
    private var requestSent = 0
    private var response: [UInt8] = []
    private var key = ""
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var wantsWritable = false
    private var reading = false
    /// Set once readiness reported the server's half-close: a short read no longer means the socket is empty.
    private var peerHungUp = false
    private var timer: LoopTimer?
    private var maskState: UInt64
    // Incoming frames.
    private var decoder = RawWebSocketConnection.makeDecoder()
    private var messageOpcode = WebSocketOpcode.text
    private var messageLength = 0
    private var message: [UInt8] = []

    /// Whether the handshake is done and no close has begun.
    public var isOpen: Bool { state == .open }

    /// A connection, not yet started.
    /// - Parameters:
    ///   - index: The owner's index for it.
    ///   - context: Its loop and target.
    ///   - delegate: Who hears of it.
    public init(index: Int, context: Context, delegate: any RawWebSocketDelegate) {
        self.index = index
        self.context = context
        self.delegate = delegate
        maskState = UInt64.random(in: 1 ... .max)
    }

    /// Connects and sends the handshake (loop thread). The handshakes (TLS and WebSocket) must finish within
    /// 10 seconds.
    public func start() {
        guard !context.usesTLS || context.tls != nil else { return fail("TLS: no client context for wss://") }
        let fd = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return fail("socket: \(String(cString: strerror(errno)))") }
        transport = .plain(fd)
        peerHungUp = false
        decoder = Self.makeDecoder()
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = context.address
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 && errno != EINPROGRESS {
            return fail("connect: \(String(cString: strerror(errno)))")
        }
        key = WebSocketHandshake.makeKey()
        request = context.request
        if let range = request.firstRange(of: Array("Sec-WebSocket-Key: KEY\r\n".utf8)) {
            request.replaceSubrange(range, with: Array("Sec-WebSocket-Key: \(key)\r\n".utf8))
        }
        state = .connecting
        do {
            try context.loop.register(fd, for: [.writable], handler: self)
        } catch {
            return fail("register: \(error)")
        }
        timer = context.loop.schedule(after: .seconds(10)) { [self] in fail("handshake timed out") }
    }

    /// Handles readiness (the event loop calls this).
    /// - Parameter events: What the socket is ready for.
    public func handle(_ events: IOEvents) {
        switch state {
        case .connecting:
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { return fail("connect: \(String(cString: strerror(error)))") }
            if events.contains(.error) || events.contains(.hangup) { return fail("connect: hangup") }
            guard events.contains(.writable) else { return }
            if let tls = context.tls {
                guard let stream = tls.makeStream(fd: fd, serverName: context.serverName) else {
                    return fail("TLS: cannot create a connection")
                }
                transport = Transport(fd: fd, tls: stream)
                state = .securing
                return secure()
            }
            state = .handshaking
            writeRequest()
        case .securing:
            secure()
            if state == .securing && (events.contains(.error) || events.contains(.hangup)) {
                fail("TLS handshake: hangup")
            }
        case .handshaking:
            if events.contains(.writable) && (requestSent < request.count || transport.hasPendingOutput) {
                writeRequest()
            }
            if events.contains(.readable) || (events.contains(.writable) && transport.readWaitsForWritable) {
                readResponse()
            }
            if state == .handshaking && (events.contains(.error) || events.contains(.hangup)) {
                fail("handshake: hangup")
            }
        case .open, .closing:
            if events.contains(.readHangup) { peerHungUp = true }
            if events.contains(.writable) { flush() }
            if state != .closed
                && (events.contains(.readable) || events.contains(.readHangup)
                    || (events.contains(.writable) && transport.readWaitsForWritable))
            {
                readFrames()
            }
            if state != .closed && (events.contains(.error) || events.contains(.hangup)) { lost("hangup") }
        case .idle, .closed:
            break
        }
    }

    // MARK: Handshake

    /// Watches the socket for `events` while handshaking, if that changes anything.
    private func watchDuringHandshake(_ events: IOEvents) {
        guard events != handshakeInterest else { return }
        handshakeInterest = events
        context.loop.modify(fd, for: events)
    }

    /// Takes the TLS handshake as far as the socket allows, then sends the WebSocket handshake.
    private func secure() {
        guard let stream = transport.tls else { return fail("TLS: no stream") }
        switch stream.handshake() {
        case .done:
            state = .handshaking
            writeRequest()
        case .wantsRead: watchDuringHandshake([.readable])
        case .wantsWrite: watchDuringHandshake([.writable])
        case .failed(let reason): fail("TLS handshake: \(reason)")
        }
    }

    private func writeRequest() {
        switch write(request, from: &requestSent) {
        case .done: watchDuringHandshake([.readable])
        case .wouldBlock: watchDuringHandshake([.writable])
        case .failed(let error): fail("handshake write: \(String(cString: strerror(error)))")
        }
    }

    private enum WriteOutcome {
        case done, wouldBlock
        case failed(Int32)
    }

    /// Writes `bytes` from `offset` on, moving `offset` past what the transport took, then any TLS record still
    /// waiting for the socket: `.done` only once every byte is on the socket.
    private func write(_ bytes: [UInt8], from offset: inout Int) -> WriteOutcome {
        while offset < bytes.count || transport.hasPendingOutput {
            let start = offset
            let result =
                start < bytes.count
                ? bytes.withUnsafeBytes { transport.send(UnsafeRawBufferPointer(rebasing: $0[start...])) }
                : transport.flushPending()
            switch result {
            case .transferred(let count): offset += count
            case .wouldBlock: return .wouldBlock
            case .endOfStream: return .failed(EPIPE)
            case .failed(let error): return .failed(error)
            }
        }
        return .done
    }

    /// The context's read buffer.
    private var readBuffer: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: context.buffer, count: Context.bufferSize)
    }

    private func readResponse() {
        while state == .handshaking {
            switch transport.receive(into: readBuffer) {
            case .transferred(let count):
                response += UnsafeRawBufferPointer(start: context.buffer, count: count)
                guard response.count <= 16 * 1024 else { return fail("handshake: response head too large") }
                let parsed: (HTTPResponseHead, Int)?
                do {
                    parsed = try HTTPResponseHead.parse(response)
                } catch {
                    return fail("handshake: malformed response")
                }
                guard let (head, used) = parsed else { continue }
                let validation = WebSocketHandshake.validateServerResponse(
                    status: head.status.code, headers: head.headers, key: key, offeredProtocols: [])
                guard case .success(let accepted) = validation else {
                    return fail("handshake: HTTP \(head.status.code)")
                }
                guard accepted.extensions == nil else { return fail("handshake: unexpected extensions") }
                timer?.cancel()
                timer = nil
                state = .open
                context.loop.modify(fd, for: Self.openInterest)
                request = []
                var leftover = Array(response[used...])
                response = []
                delegate?.webSocketDidOpen(self)
                if !leftover.isEmpty { leftover.withUnsafeMutableBytes { consume($0) } }
                // Edge-triggered from now on: bytes TLS already holds raise no event.
                if state == .open && transport.hasBufferedInput { readFrames() }
                return
            case .endOfStream: return fail("handshake: connection closed")
            case .wouldBlock:
                if transport.readWaitsForWritable {
                    watchDuringHandshake([.readable, .writable])
                } else if requestSent == request.count && !transport.hasPendingOutput {
                    watchDuringHandshake([.readable])
                }
                return
            case .failed(let error): return fail("handshake read: \(String(cString: strerror(error)))")
            }
        }
    }

    // MARK: Sending

    /// Sends a complete, already masked client frame (loop thread; ignored unless open).
    /// - Parameter frame: The frame's bytes.
    public func send(frame: [UInt8]) {
        guard state == .open else { return }
        output.append(contentsOf: frame)
        if !reading { flush() }
    }

    /// Sends `payload` as one text message, masked with a fresh key (loop thread; ignored unless open).
    /// - Parameter payload: UTF-8 text.
    public func sendText(_ payload: UnsafeRawBufferPointer) {
        guard state == .open else { return }
        appendFrame(.text, payload)
        if !reading { flush() }
    }

    /// Sends `payload` as one binary message, masked with a fresh key (loop thread; ignored unless open).
    /// - Parameter payload: The bytes.
    public func sendBinary(_ payload: UnsafeRawBufferPointer) {
        guard state == .open else { return }
        appendFrame(.binary, payload)
        if !reading { flush() }
    }

    /// Starts the closing handshake with code 1000 (loop thread); the socket is released when the server answers,
    /// or after 3 seconds.
    public func close() {
        guard state == .open else { return }
        [UInt8]([0x03, 0xE8]).withUnsafeBytes { appendFrame(.close, $0) }
        if !reading { flush() }
        state = .closing
        timer = context.loop.schedule(after: .seconds(3)) { [self] in finish() }
    }

    /// Releases the socket at once, without a closing handshake (loop thread).
    public func abort() { finish() }

    private func appendFrame(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) {
        maskState ^= maskState << 13
        maskState ^= maskState >> 7
        maskState ^= maskState << 17
        let bits = UInt32(truncatingIfNeeded: maskState >> 16)
        let key = (UInt8(bits >> 24), UInt8((bits >> 16) & 0xFF), UInt8((bits >> 8) & 0xFF), UInt8(bits & 0xFF))
        let header = WebSocketFrameHeader(opcode: opcode, payloadCount: payload.count, mask: key)
        header.withUnsafeBytes { output.append(contentsOf: $0) }
        let start = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { bytes in
            WebSocketFrameEncoder.applyMask(key, to: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
        }
    }

    private func flush() {
        switch write(output, from: &outputOffset) {
        case .done:
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputOffset = 0
            if wantsWritable && !transport.readWaitsForWritable {
                wantsWritable = false
                context.loop.modify(fd, for: Self.openInterest)
            }
        case .wouldBlock:
            if !wantsWritable {
                wantsWritable = true
                context.loop.modify(fd, for: Self.openInterest.union(.writable))
            }
        case .failed(let error):
            lost("write: \(String(cString: strerror(error)))")
        }
    }

    /// What an open connection watches: edge-triggered, since every read continues to a short read or EAGAIN.
    private static let openInterest: IOEvents = [.readable, .readHangup, .edgeTriggered]

    // MARK: Receiving

    private func readFrames() {
        reading = true
        defer {
            reading = false
            if state != .closed && outputOffset < output.count { flush() }
        }
        while state == .open || state == .closing {
            switch transport.receive(into: readBuffer) {
            case .transferred(let count):
                consume(UnsafeMutableRawBufferPointer(start: context.buffer, count: count))
                // Data and the server's FIN reported in one event: read on to the end of the stream.
                if !peerHungUp && !transport.mayHaveMore(afterReading: count, capacity: Context.bufferSize) { return }
            case .endOfStream:
                return state == .closing ? finish() : lost("connection closed without a close frame")
            case .wouldBlock:
                if transport.readWaitsForWritable && !wantsWritable {
                    // TLS must write before it can read on: watch for writability, and read again then.
                    wantsWritable = true
                    context.loop.modify(fd, for: Self.openInterest.union(.writable))
                }
                return
            case .failed(let error):
                return lost("recv: \(String(cString: strerror(error)))")
            }
        }
    }

    /// The decoder of the server's frames: unmasked, no extension, at most 16 MiB each.
    private static func makeDecoder() -> WebSocketFrameDecoder {
        WebSocketFrameDecoder(role: .client, maxFrameBytes: 16 << 20)
    }

    /// Decodes frames from `bytes` and acts on each; a framing violation drops the connection.
    private func consume(_ bytes: UnsafeMutableRawBufferPointer) {
        let failure = decoder.decode(bytes) { frame in
            received(frame)
            return state != .closed
        }
        if let failure { lost("protocol: \(failure)") }
    }

    /// Acts on one frame, its payload lent: a data frame that is a whole message is delivered as it lies; the frames
    /// of a fragmented message are collected first (only when payloads are kept).
    private func received(_ frame: borrowing WebSocketFrameView) {
        let (opcode, fin, payload) = (frame.opcode, frame.fin, frame.payload)
        switch opcode {
        case .close:
            guard state == .open else { return }
            let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
            // The server closed first: answer, then wait for it to close the TCP connection.
            state = .closing
            delegate?.webSocketDidClose(self, code: code ?? 1005, reason: "server sent close")
            appendFrame(.close, UnsafeRawBufferPointer(rebasing: payload.prefix(2)))
            if !reading { flush() }
            timer = context.loop.schedule(after: .seconds(3)) { [self] in finish() }
        case .ping:
            guard state == .open else { return }
            appendFrame(.pong, payload)
            if !reading { flush() }
        case .pong:
            break
        default:
            if opcode != .continuation {
                messageOpcode = opcode
                messageLength = 0
                message.removeAll(keepingCapacity: message.capacity <= 64 * 1024)
            }
            messageLength += payload.count
            let kept = context.keepsPayloads
            if opcode != .continuation && fin {
                // The fast path: a whole message in one frame.
                return deliver(kept ? payload : UnsafeRawBufferPointer(start: nil, count: 0))
            }
            if kept { message.append(contentsOf: payload) }
            guard fin else { return }
            if kept {
                message.withUnsafeBytes { deliver($0) }
            } else {
                deliver(UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }
    }

    private func deliver(_ payload: UnsafeRawBufferPointer) {
        guard state == .open || state == .closing else { return }
        delegate?.webSocket(self, didReceive: payload, length: messageLength, text: messageOpcode == .text)
    }

    // MARK: Ending

    /// The connection ended while open.
    private func lost(_ reason: String) {
        if state == .open {
            state = .closing
            delegate?.webSocketDidClose(self, code: nil, reason: reason)
        }
        finish()
    }

    private func fail(_ reason: String) {
        guard state == .idle || state == .connecting || state == .securing || state == .handshaking else { return }
        delegate?.webSocketDidFail(self, reason: reason)
        finish()
    }

    private func finish() {
        guard state != .closed else { return }
        let registered = state != .idle
        state = .closed
        timer?.cancel()
        timer = nil
        if fd >= 0 {
            if registered { context.loop.deregister(fd) }
            transport.close()
            // Frees the TLS state now rather than with this connection.
            transport = .plain(-1)
        }
        output = []
        message = []
        delegate?.webSocketDidFinish(self)
        delegate = nil
    }
}
