import CNetShim
import Glibc
import HTTPWire

/// One HTTP/1.1 connection on its event loop: reads and parses requests, runs their handlers one at a time
/// (so pipelined responses leave in order), writes responses, and enforces the timeouts.
///
/// Lives on its loop's thread; the only other code that touches it is the handler task, which runs on the
/// same loop (its executor preference) and hands the response back with `loop.execute`.
final class HTTPConnection: EventLoopHandler, ServerConnection, @unchecked Sendable {
    // Safety: every method runs on `loop`'s thread (handlers are invoked by the loop, tasks prefer the loop
    // as their executor and re-enter through `loop.execute`), so no state is shared between threads.

    private enum Phase {
        /// Between requests, nothing buffered.
        case idle
        /// A request is arriving.
        case reading
        /// Its handler runs; input is buffered but not parsed.
        case handling
        /// Writing the last response, then closing.
        case closing
        /// The last response has left and the write side is shut down; what the client still sends is read and
        /// dropped for a bounded time and size before closing, so the kernel does not answer it with a reset that
        /// destroys the response before the client reads it (nginx's lingering close).
        case lingering
        case closed
    }

    let transport: Transport
    var fd: Int32 { transport.fd }
    let loop: EventLoop
    private let server: ServerContext
    private let remote: SocketAddress?
    private var parser: HTTPRequestParser
    private var phase = Phase.idle
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var output: [UInt8] = []
    private var written = 0
    private var interest: IOEvents = [.readable, .readHangup]
    private var timer: LoopTimer?
    /// Armed while unsent output waits for the socket; closes the connection if the client takes no byte for a
    /// whole ``HTTPServerConfiguration/writeTimeout``.
    private var writeTimer: LoopTimer?
    private var stall = WriteStall()
    /// Whether the response being written is complete (the next request waits only for it to leave).
    private var responseComplete = false
    /// Whether reading is paused because enough input is buffered while a response is pending.
    private var readingPaused = false
    private var peerClosed = false
    /// Input dropped since the last response began to close the connection.
    private var discarded = 0
    private var writeWaiters: [CheckedContinuation<Bool, Never>] = []
    private var upgrade: (@Sendable (UpgradedConnection) -> Void, HTTPRequest)?

    init(transport: Transport, loop: EventLoop, server: ServerContext, remote: SocketAddress?) {
        self.transport = transport
        self.loop = loop
        self.server = server
        self.remote = remote
        self.parser = HTTPRequestParser(limits: server.configuration.limits)
    }

    /// Registers with the loop and starts the idle timer.
    func start() {
        do {
            try loop.register(fd, for: interest, handler: self)
        } catch {
            server.logger.log(.warning, "cannot register connection", ["error": "\(error)"])
            closeNow()
            return
        }
        server.registry(for: loop).insert(self)
        armTimer(server.configuration.idleTimeout, phase: .idle)
        // Bytes TLS read with the end of the handshake raise no readiness event of their own.
        if transport.hasBufferedInput { readAvailable() }
    }

    func handle(_ events: IOEvents) {
        if events.contains(.writable) {
            flush()
            if transport.readWaitsForWritable { readAvailable() }
        }
        if events.contains(.readable) || events.contains(.readHangup) { readAvailable() }
        if events.contains(.error) || events.contains(.hangup) { closeNow() }
    }

    // MARK: Reading

    private func readAvailable() {
        guard phase != .closed else { return }
        let buffer = loop.readBuffer
        reading: while true {
            switch transport.receive(into: buffer.bytes) {
            case .transferred(let count):
                server.metrics.received(count)
                if phase == .closing || phase == .lingering {
                    guard discard(count) else { break reading }
                    continue
                }
                parser.append(UnsafeRawBufferPointer(start: buffer.pointer, count: count))
                if phase == .handling && parser.bufferedByteCount >= server.configuration.maxBufferedInput {
                    pauseReading()
                    break reading
                }
                if !transport.mayHaveMore(afterReading: count, capacity: buffer.capacity, levelTriggered: true) {
                    break reading
                }
            case .endOfStream:
                if phase == .lingering { return closeNow() }
                // End of input stays readable under level-triggered epoll: stop asking, or the loop spins.
                peerClosed = true
                setInterest(interest.subtracting([.readable, .readHangup]))
                break reading
            case .wouldBlock:
                if transport.readWaitsForWritable && !interest.contains(.writable) {
                    setInterest(interest.union(.writable))
                }
                break reading
            case .failed:
                closeNow()
                break reading
            }
        }
        guard phase != .closed && phase != .lingering else { return }
        // Part of a TLS record is a request begun: the head timeout applies, not the idle one.
        if phase == .idle && parser.bufferedByteCount == 0 && transport.hasBufferedInput {
            phase = .reading
            armTimer(server.configuration.headTimeout, phase: .reading)
        }
        processInput()
        // A request still incomplete when the peer stops sending can never complete.
        if peerClosed && (phase == .idle || phase == .reading) { closeNow() }
    }

    private func processInput() {
        while phase == .idle || phase == .reading {
            if phase == .idle {
                guard parser.bufferedByteCount > 0 else { return }
                phase = .reading
                armTimer(server.configuration.headTimeout, phase: .reading)
            }
            switch parser.next() {
            case .needMoreData:
                return
            case .head(let parsed):
                head = parsed
                body.removeAll(keepingCapacity: true)
                armTimer(server.configuration.bodyTimeout, phase: .reading)
                if parsed.expectsContinue, parsed.bodyFraming != .noBody {
                    output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
                    flush()
                }
            case .body(let bytes):
                body.append(contentsOf: bytes)
            case .trailers:
                continue
            case .end:
                guard let head else { return }
                self.head = nil
                dispatch(HTTPRequest(head: head, body: body, remoteAddress: remote))
            case .error(let error):
                respondToParseError(error)
                return
            }
        }
    }

    // MARK: Responding

    private func dispatch(_ request: HTTPRequest) {
        phase = .handling
        timer?.cancel()
        timer = nil
        let started = loop.now()
        let responder = server.responder
        Task(executorPreference: loop) {
            let response = await responder(request)
            self.loop.execute { self.send(response, to: request, started: started) }
        }
    }

    private func send(_ original: HTTPResponse, to request: HTTPRequest, started: UInt64) {
        guard phase == .handling else { return }
        var response = original
        let keepAlive =
            request.head.keepAlive && !server.isDraining && !peerClosed && response.upgrade == nil
            && !(response.status.code == HTTPStatus.switchingProtocols.code && response.upgrade == nil)
        var headers = response.headers
        if !keepAlive && response.upgrade == nil {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if keepAlive && request.head.version == .http10 {
            // RFC 9112 §9.3: an HTTP/1.0 connection persists only when the response says so.
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        // HEAD is compressed too, so its Content-Length is the one GET would send (RFC 9110 §9.3.2).
        if case .bytes(let bytes) = response.body {
            Compression.apply(
                to: &response.body, headers: &headers, bytes: bytes, request: request.head,
                threshold: server.configuration.compressionThreshold)
        }
        let head = HTTPResponseHead(status: response.status, headers: headers)
        let date = server.date(for: loop)
        let before = output.count
        do throws(HTTPWriteError) {
            switch response.body {
            case .empty:
                try HTTPResponseWriter.write(head, date: date, requestMethod: request.method, into: &output)
            case .bytes(let bytes):
                try HTTPResponseWriter.write(
                    head, body: bytes, date: date, requestMethod: request.method, into: &output)
            case .stream(let chunks):
                // RFC 9112 §6.1: no chunked coding for HTTP/1.0; the body then ends when the connection closes.
                let chunked = request.head.version != .http10
                var streaming = head
                if chunked {
                    streaming.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
                } else {
                    streaming.headers.replaceOrAdd(name: "Connection", value: "close")
                }
                try HTTPResponseWriter.writeHead(streaming, date: date, into: &output)
                if request.method != .head {
                    log(request, status: response.status.code, bytes: -1, started: started)
                    stream(chunks, chunked: chunked, keepAlive: keepAlive && chunked)
                    return
                }
            }
        } catch {
            server.logger.log(.error, "handler produced an invalid response", ["error": "\(error)"])
            output.removeLast(output.count - before)
            try? HTTPResponseWriter.write(
                HTTPResponseHead(status: .internalServerError, headers: ["Connection": "close"]), date: date,
                into: &output)
            phase = .closing
            flush()
            return
        }
        log(request, status: response.status.code, bytes: output.count - before, started: started)
        if let handover = response.upgrade, response.status.code == 101 {
            upgrade = (handover, request)
            phase = .closing
        } else {
            phase = keepAlive ? .handling : .closing
        }
        flush()
        responseQueued()
    }

    private func stream(_ stream: AsyncStream<[UInt8]>, chunked: Bool, keepAlive: Bool) {
        flush()
        Task(executorPreference: loop) {
            for await chunk in stream where !chunk.isEmpty {
                let open = await self.enqueueChunk(chunk, chunked: chunked)
                if !open { return }
            }
            self.loop.execute {
                guard self.phase == .handling else { return }
                if chunked { try? HTTPChunkedWriter.writeLastChunk(into: &self.output) }
                if !keepAlive { self.phase = .closing }
                self.flush()
                self.responseQueued()
            }
        }
    }

    /// Queues one chunk; waits while the unsent output is above the high-water mark. Returns false once closed.
    private func enqueueChunk(_ chunk: [UInt8], chunked: Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            loop.execute {
                guard self.phase == .handling else { return continuation.resume(returning: false) }
                if chunked {
                    HTTPChunkedWriter.writeChunk(chunk, into: &self.output)
                } else {
                    self.output.append(contentsOf: chunk)
                }
                self.flush()
                if self.output.count - self.written > self.server.configuration.writeHighWater {
                    self.writeWaiters.append(continuation)
                } else {
                    continuation.resume(returning: true)
                }
            }
        }
    }

    private func respondToParseError(_ error: HTTPParseError) {
        let status = error.status
        server.metrics.responded(status.code)
        server.logger.log(.info, "bad request", ["status": "\(status.code)", "reason": error.reason])
        var response = server.configuration.errorRenderer.response(
            for: HTTPError(status, code: "badRequest", message: error.reason))
        response.headers.replaceOrAdd(name: "Connection", value: "close")
        let body: [UInt8]
        if case .bytes(let bytes) = response.body { body = bytes } else { body = [] }
        try? HTTPResponseWriter.write(
            HTTPResponseHead(status: status, headers: response.headers), body: body,
            date: server.date(for: loop), into: &output)
        phase = .closing
        flush()
    }

    /// The whole response is in `output`: the next request starts once it has left (now, or when ``flush()``
    /// drains it).
    private func responseQueued() {
        guard phase == .handling else { return }
        if output.isEmpty { nextRequest() } else { responseComplete = true }
    }

    private func nextRequest() {
        responseComplete = false
        phase = .idle
        armTimer(server.configuration.idleTimeout, phase: .idle)
        if readingPaused {
            readingPaused = false
            if !peerClosed { setInterest(interest.union([.readable, .readHangup])) }
        }
        // Records TLS read ahead before reading paused raise no readiness event: read them now.
        if transport.hasBufferedInput { return readAvailable() }
        if server.isDraining && parser.bufferedByteCount == 0 { return closeNow() }
        processInput()
        if peerClosed && phase == .idle { closeNow() }
    }

    private func log(_ request: HTTPRequest, status: Int, bytes: Int, started: UInt64) {
        server.metrics.responded(status)
        let logger = server.logger
        guard logger.level <= .info else { return }
        let micros = (loop.now() - started) / 1000
        logger.log(
            .info, "request",
            [
                "method": request.method.rawValue, "path": request.path, "status": "\(status)",
                "bytes": bytes < 0 ? "chunked" : "\(bytes)", "duration_us": "\(micros)",
                "remote": remote?.description ?? "-",
            ])
    }

    /// Stops reading until the pending response has left (level-triggered epoll would report the unread input, or
    /// a half-close, again and again): TCP then slows the client down.
    private func pauseReading() {
        readingPaused = true
        setInterest(interest.subtracting([.readable, .readHangup]))
    }

    // MARK: Writing

    private func flush() {
        // Until the output has left, and then any TLS record still waiting for the socket.
        while written < output.count || transport.hasPendingOutput {
            let offset = written
            let result =
                offset < output.count
                ? output.withUnsafeBytes { transport.send(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                : transport.flushPending()
            switch result {
            case .transferred(let count):
                written += count
                stall.progressed(at: loop.time)
                server.metrics.sent(count)
            case .wouldBlock:
                if !interest.contains(.writable) {
                    setInterest(interest.union(.writable))
                    stall.begin(fd: fd, at: loop.time)
                    if writeTimer == nil { armWriteTimer(after: server.configuration.writeTimeout) }
                }
                return
            case .endOfStream, .failed:
                closeNow()
                return
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        written = 0
        writeTimer?.cancel()
        writeTimer = nil
        if interest.contains(.writable) && !transport.readWaitsForWritable {
            setInterest(interest.subtracting(.writable))
        }
        let waiters = writeWaiters
        writeWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: true) }
        if phase == .closing {
            if let (handover, request) = upgrade { return handOver(to: handover, request: request) }
            linger()
        } else if phase == .handling && responseComplete {
            nextRequest()
        }
    }

    /// Counts dropped input; past ``HTTPServerConfiguration/maxLingeringBytes`` the connection stops reading (while
    /// its response leaves) or closes (once lingering). Returns whether to go on reading.
    private func discard(_ count: Int) -> Bool {
        discarded += count
        guard discarded > server.configuration.maxLingeringBytes else { return true }
        if phase == .lingering {
            closeNow()
        } else {
            setInterest(interest.subtracting([.readable, .readHangup]))
        }
        return false
    }

    /// Shuts the write side down after the last response and drops what the client still sends, for at most
    /// ``HTTPServerConfiguration/lingeringTimeout`` and ``HTTPServerConfiguration/maxLingeringBytes``, then closes.
    private func linger() {
        guard !peerClosed, discarded <= server.configuration.maxLingeringBytes else { return closeNow() }
        phase = .lingering
        transport.shutdownWrite()
        timer?.cancel()
        timer = loop.schedule(after: server.configuration.lingeringTimeout) { [self] in self.closeNow() }
        setInterest([.readable, .readHangup])
        readAvailable()
    }

    private func setInterest(_ events: IOEvents) {
        interest = events
        loop.modify(fd, for: events)
    }

    // MARK: Timers and closing

    private func armTimer(_ duration: Duration, phase expected: Phase) {
        timer?.cancel()
        // Held strongly (a weak reference would move the reference count to a slower side table for good); every
        // way out of the connection cancels the timer, which releases it.
        timer = loop.schedule(after: duration) { [self] in
            guard self.phase == expected else { return }
            if expected == .reading, self.output.isEmpty {
                self.respondToTimeout()
            } else {
                self.closeNow()
            }
        }
    }

    private func armWriteTimer(after delay: Duration) {
        writeTimer = loop.schedule(after: delay) { [self] in
            self.writeTimer = nil
            self.checkWriteProgress()
        }
    }

    /// Closes the connection if output is pending and the client has taken none of it for the write timeout;
    /// otherwise waits for the rest of that time (nothing when the output has left).
    private func checkWriteProgress() {
        guard phase != .closed, written < output.count else { return }
        let timeout = server.configuration.writeTimeout
        let stalled = stall.duration(fd: fd, at: loop.now())
        guard stalled >= timeout else { return armWriteTimer(after: timeout - stalled) }
        server.logger.log(
            .notice, "client stopped reading; closing",
            ["unsent": "\(output.count - written)", "remote": remote?.description ?? "-"])
        closeNow()
    }

    private func respondToTimeout() {
        server.metrics.responded(408)
        try? HTTPResponseWriter.write(
            HTTPResponseHead(status: .requestTimeout, headers: ["Connection": "close"]), date: server.date(for: loop),
            into: &output)
        phase = .closing
        flush()
    }

    /// Closes at once if idle; otherwise lets the current response finish and closes after it.
    func drain() {
        switch phase {
        case .idle: closeNow()
        case .reading: if parser.isIdle && head == nil { closeNow() }
        default: break
        }
    }

    func closeNow() {
        guard phase != .closed else { return }
        phase = .closed
        timer?.cancel()
        timer = nil
        writeTimer?.cancel()
        writeTimer = nil
        loop.deregister(fd)
        transport.close()
        for waiter in writeWaiters { waiter.resume(returning: false) }
        writeWaiters.removeAll()
        server.registry(for: loop).remove(self)
        server.metrics.closedConnection()
    }

    private func handOver(to handler: @Sendable (UpgradedConnection) -> Void, request: HTTPRequest) {
        phase = .closed
        timer?.cancel()
        writeTimer?.cancel()
        loop.deregister(fd)
        server.registry(for: loop).remove(self)
        let metrics = server.metrics
        let connection = UpgradedConnection(
            transport: transport, loop: loop, leftover: parser.takeBufferedBytes(), request: request,
            lifetime: ConnectionLifetime { metrics.closedConnection() })
        handler(connection)
    }
}
