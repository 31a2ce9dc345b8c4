import CNetShim
import Glibc
import HTTPWire

/// One HTTP/1.1 connection on its event loop: reads and parses requests, runs their handlers one at a time
/// (so pipelined responses leave in order), writes responses, and enforces the timeouts.
///
/// Lives on its loop's thread; the only other code that touches it is a handler's task, which runs on the same
/// loop (its executor preference).
final class HTTPConnection: EventLoopHandler, ServerConnection, @unchecked Sendable {
    // Safety: every method runs on `loop`'s thread (handlers are invoked by the loop; a handler's task prefers the
    // loop as its executor and re-enters through `loop.execute` when it is not on it), so no state is shared
    // between threads.

    let transport: Transport
    var fd: Int32 { transport.fd }
    let loop: EventLoop
    private let server: ServerContext
    private let remote: SocketAddress?
    /// What the connection holds of the server's connection bounds until it closes (or its upgrade does).
    private let slot: ConnectionAdmission.Slot
    private var parser: HTTPRequestParser
    /// Every decision on the connection; this class does the I/O and keeps the timers.
    private var state: HTTPConnectionState
    /// The request whose head was admitted (``HTTPPipeline/screen(_:remoteAddress:)``), its body arriving.
    private var admitted: HTTPRequest?
    /// The answer to a request refused from its head without a body, sent once the parser has ended it.
    private var refusal: HTTPResponse?
    private var body: [UInt8] = []
    private var output = HTTPOutput()
    private var interest: IOEvents = [.readable, .readHangup]
    /// The phase's timeout (``HTTPConnectionState/Timeout``) and when it passes.
    private var timeout = HTTPConnectionState.Timeout.idle
    private var deadline = MovingDeadline()
    /// Armed while unsent output waits for the socket; closes the connection if the client takes no byte for a
    /// whole ``HTTPServerConfiguration/writeTimeout``.
    private var writeTimeout = WriteTimeout()
    private var writeWaiters: [CheckedContinuation<Bool, Never>] = []
    private var upgrade: (@Sendable (UpgradedConnection) -> Void, HTTPRequest)?
    /// Whether ``processInput()`` is on the stack.
    private var isProcessingInput = false

    init(
        transport: Transport, loop: EventLoop, server: ServerContext, remote: SocketAddress?,
        slot: ConnectionAdmission.Slot
    ) {
        self.transport = transport
        self.loop = loop
        self.server = server
        self.remote = remote
        self.slot = slot
        parser = HTTPRequestParser(limits: server.configuration.limits)
        state = HTTPConnectionState(
            limits: .init(
                budget: server.configuration.budget,
                maxLingeringBytes: server.configuration.maxLingeringBytes))
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
        arm(state.initialTimeout)
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

    /// Does what the state answered.
    private func perform(_ action: HTTPConnectionState.Action?) {
        switch action {
        case nil: break
        case .nextRequest(let resumeReading): startNextRequest(resumeReading: resumeReading)
        case .handOver: handOver()
        case .linger: linger()
        case .respondTimeout: respondToTimeout()
        case .close: closeNow()
        }
    }

    // MARK: Reading

    private func readAvailable() {
        guard !state.isClosed else { return }
        let buffer = loop.readBuffer
        reading: while true {
            // Never more than the input bound beside what is buffered: the connection's memory is bounded by
            // construction, not by what one read happens to bring.
            let allowance = min(buffer.capacity, state.readAllowance(buffered: parser.bufferedByteCount))
            guard allowance > 0 else {
                _ = state.buffered(parser.bufferedByteCount)
                stopReading()
                break reading
            }
            switch transport.receive(into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[..<allowance])) {
            case .transferred(let count):
                server.metrics.received(count)
                switch state.received(count) {
                case .parse:
                    parser.append(UnsafeRawBufferPointer(start: buffer.pointer, count: count))
                    if state.buffered(parser.bufferedByteCount) {
                        // Level-triggered epoll would report the unread input again and again: TCP slows the client.
                        stopReading()
                        break reading
                    }
                case .drop:
                    break
                case .stopReading:
                    stopReading()
                    break reading
                case .close:
                    return closeNow()
                }
                if !transport.mayHaveMore(afterReading: count, capacity: allowance, levelTriggered: true) {
                    break reading
                }
            case .endOfStream:
                if let action = state.receivedEnd() { return perform(action) }
                // End of input stays readable under level-triggered epoll: stop asking, or the loop spins.
                stopReading()
                break reading
            case .wouldBlock:
                if transport.readWaitsForWritable && !interest.contains(.writable) {
                    setInterest(interest.union(.writable))
                }
                break reading
            case .failed:
                return closeNow()
            }
        }
        guard state.parsesInput else { return }
        // Part of a TLS record is a request begun: the head timeout applies, not the idle one.
        if parser.bufferedByteCount == 0 && transport.hasBufferedInput, let timeout = state.requestBegins() {
            arm(timeout)
        }
        processInput()
    }

    /// Parses requests from the buffered input while no request is being answered.
    ///
    /// A request answered at once lets the next one start from inside this loop (its response leaves, the state
    /// moves on, ``startNextRequest(resumeReading:)`` asks to parse again): the loop already running goes on with it,
    /// so pipelined requests do not nest one call per request.
    private func processInput() {
        guard !isProcessingInput else { return }
        isProcessingInput = true
        defer { isProcessingInput = false }
        parsing: while state.parsesInput {
            if state.phase == .idle {
                guard parser.bufferedByteCount > 0 else { break }
                if let timeout = state.requestBegins() { arm(timeout) }
            }
            switch parser.next() {
            case .needMoreData:
                break parsing
            case .head(let parsed):
                body.removeAll(keepingCapacity: true)
                switch server.pipeline.screen(parsed, remoteAddress: remote) {
                case .admitted(let request):
                    admitted = request
                case .withoutBody(let request):
                    // Answered on the head alone; what of the body arrives is dropped by the lingering close.
                    return dispatch(request, bodyUnread: true)
                case .refused(let response) where HTTPPipeline.hasBody(parsed):
                    // Decided from the head: the body is never read, and `Expect: 100-continue` gets this answer.
                    return refuse(response, to: parsed)
                case .refused(let response):
                    refusal = response
                    admitted = HTTPRequest(head: parsed, remoteAddress: remote)
                }
                arm(state.headReceived())
                if parsed.expectsContinue, HTTPPipeline.hasBody(parsed) {
                    output.bytes.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
                    flush()
                }
            case .body(let bytes):
                body.append(contentsOf: bytes)
            case .trailers:
                continue
            case .end:
                // Moved out, not copied: a copy of a request retains every string of its head.
                guard var request = admitted.take() else { return }
                request.body = body
                if let response = refusal {
                    refusal = nil
                    state.requestReceived()
                    deadline.clear()
                    send(response, to: request, started: requestStarted())
                } else {
                    dispatch(request)
                }
            case .error(let error):
                return respondToParseError(error)
            }
        }
        perform(state.inputConsumed())
        if state.roomForInput(buffered: parser.bufferedByteCount) {
            setInterest(interest.union([.readable, .readHangup]))
        }
    }

    /// Answers a request refused from its head while its body is still to come, and closes after the answer: what
    /// of the body arrives meanwhile is dropped by the lingering close, never kept.
    private func refuse(_ response: HTTPResponse, to head: HTTPRequestHead) {
        state.requestReceived()
        deadline.clear()
        let request = HTTPRequest(head: head, remoteAddress: remote)
        send(response, to: request, started: requestStarted(), bodyUnread: true)
    }

    /// When a request's answer began, for its log line (only read at `info`).
    private func requestStarted() -> UInt64 { server.logger.level <= .info ? loop.now() : 0 }

    /// Stops reading: the input has ended, enough is buffered, or what arrives is dropped past its bound.
    private func stopReading() {
        setInterest(interest.subtracting([.readable, .readHangup]))
    }

    // MARK: Responding

    /// Answers the request: at once when nothing in the pipeline waits, otherwise in a task on this loop.
    /// (`Task.immediate` for every request was measured slower than a task created and enqueued on the loop:
    /// bench/RESULTS.md, 2026-12-04; a request answered at once needs no task at all.)
    /// - Parameter bodyUnread: Whether the request's body is left unread (the connection then closes after it).
    private func dispatch(_ request: HTTPRequest, bodyUnread: Bool = false) {
        state.requestReceived()
        deadline.clear()
        let started = requestStarted()
        switch server.pipeline.start(request) {
        case .answered(let response):
            send(response, to: request, started: started, bodyUnread: bodyUnread)
        case .pending(let pending):
            let pipeline = server.pipeline
            Task(executorPreference: loop) {
                let response = await pipeline.finish(pending)
                // The task prefers the loop, so it is normally there already.
                guard self.loop.inEventLoop else {
                    return self.loop.execute {
                        self.send(response, to: request, started: started, bodyUnread: bodyUnread)
                    }
                }
                self.send(response, to: request, started: started, bodyUnread: bodyUnread)
            }
        }
    }

    private func send(_ response: HTTPResponse, to request: HTTPRequest, started: UInt64, bodyUnread: Bool = false) {
        guard state.phase == .handling else { return }
        let switching = response.status.code == HTTPStatus.switchingProtocols.code
        let keepAlive = state.keepsAlive(
            requested: request.head.keepAlive && !bodyUnread, draining: server.isDraining,
            upgrade: response.upgrade != nil || switching)
        let before = output.bytes.count
        let streaming: (chunks: AsyncStream<[UInt8]>, chunked: Bool)?
        do throws(HTTPWriteError) {
            streaming = try write(response, to: request, keepAlive: keepAlive)
        } catch {
            server.logger.log(.error, "handler produced an invalid response", ["error": "\(error)"])
            output.truncate(to: before)
            try? HTTPResponseWriter.write(
                HTTPResponseHead(status: .internalServerError, headers: ["Connection": "close"]),
                date: server.date(for: loop), into: &output.bytes)
            state.respondingAndClosing()
            return flush()
        }
        if let streaming {
            log(request, status: response.status.code, bytes: -1, started: started)
            return stream(streaming.chunks, chunked: streaming.chunked, keepAlive: keepAlive && streaming.chunked)
        }
        log(request, status: response.status.code, bytes: output.bytes.count - before, started: started)
        if let handover = response.upgrade, switching { upgrade = (handover, request) }
        state.responseWritten(keepAlive: keepAlive, upgrade: upgrade != nil)
        flush()
    }

    /// Queues the response's head, and its body unless it streams.
    /// - Returns: The body's chunks and whether they go in chunked coding, for a body that streams.
    private func write(
        _ original: HTTPResponse, to request: HTTPRequest, keepAlive: Bool
    ) throws(HTTPWriteError) -> (chunks: AsyncStream<[UInt8]>, chunked: Bool)? {
        var response = original
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
        switch response.body {
        case .empty:
            try HTTPResponseWriter.write(head, date: date, requestMethod: request.method, into: &output.bytes)
        case .bytes(let bytes):
            try HTTPResponseWriter.write(
                head, body: bytes, date: date, requestMethod: request.method, into: &output.bytes)
        case .stream(let chunks):
            // RFC 9112 §6.1: no chunked coding for HTTP/1.0; the body then ends when the connection closes.
            let chunked = request.head.version != .http10
            var streaming = head
            if chunked {
                streaming.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            } else {
                streaming.headers.replaceOrAdd(name: "Connection", value: "close")
            }
            try HTTPResponseWriter.writeHead(streaming, date: date, into: &output.bytes)
            if request.method != .head { return (chunks, chunked) }
        }
        return nil
    }

    private func stream(_ stream: AsyncStream<[UInt8]>, chunked: Bool, keepAlive: Bool) {
        flush()
        Task(executorPreference: loop) {
            for await chunk in stream where !chunk.isEmpty {
                let open = await self.enqueueChunk(chunk, chunked: chunked)
                if !open { return }
            }
            self.loop.execute {
                guard self.state.phase == .handling else { return }
                if chunked { try? HTTPChunkedWriter.writeLastChunk(into: &self.output.bytes) }
                self.state.streamEnded(keepAlive: keepAlive)
                self.flush()
            }
        }
    }

    /// Queues one chunk; waits while the unsent output is above the high-water mark. Returns false once closed.
    private func enqueueChunk(_ chunk: [UInt8], chunked: Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            loop.execute {
                guard self.state.phase == .handling else { return continuation.resume(returning: false) }
                if chunked {
                    HTTPChunkedWriter.writeChunk(chunk, into: &self.output.bytes)
                } else {
                    self.output.bytes.append(contentsOf: chunk)
                }
                self.flush()
                if self.server.configuration.budget.isOverOutput(self.output.unsentCount) {
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
            date: server.date(for: loop), into: &output.bytes)
        state.respondingAndClosing()
        flush()
    }

    private func respondToTimeout() {
        server.metrics.responded(408)
        try? HTTPResponseWriter.write(
            HTTPResponseHead(status: .requestTimeout, headers: ["Connection": "close"]), date: server.date(for: loop),
            into: &output.bytes)
        flush()
    }

    /// The previous response has left: waits for the next request, which may be buffered already.
    private func startNextRequest(resumeReading: Bool) {
        arm(.idle)
        if resumeReading { setInterest(interest.union([.readable, .readHangup])) }
        // Records TLS read ahead before reading paused raise no readiness event: read them now.
        if transport.hasBufferedInput { return readAvailable() }
        if state.closesWhenIdle(draining: server.isDraining, buffered: parser.bufferedByteCount) { return closeNow() }
        processInput()
    }

    private func log(_ request: HTTPRequest, status: Int, bytes: Int, started: UInt64) {
        server.metrics.responded(status)
        let logger = server.logger
        guard logger.level <= .info else { return }
        var line = LogLine(.info, "request")
        line.field("method", request.method.rawValue)
        line.field("path", request.path)
        line.field("status", status)
        if bytes < 0 { line.field("bytes", "chunked") } else { line.field("bytes", bytes) }
        line.field("duration_us", Int((loop.now() - started) / 1000))
        line.field("remote", remoteText)
        logger.write(line)
    }

    /// The client's address as logged, formatted once.
    private lazy var remoteText = remote?.description ?? "-"

    // MARK: Writing

    private func flush() {
        guard !state.isClosed else { return }
        // Until the output has left, and then any TLS record still waiting for the socket.
        while output.hasUnsent || transport.hasPendingOutput {
            let queued = output.hasUnsent
            switch queued ? output.withUnsent({ transport.send($0) }) : transport.flushPending() {
            case .transferred(let count):
                if queued { output.sent(count) }
                writeTimeout.progressed(at: loop.time)
                server.metrics.sent(count)
            case .wouldBlock:
                if !interest.contains(.writable) {
                    setInterest(interest.union(.writable))
                    writeTimeout.socketFilled(fd: fd, on: loop, timeout: server.configuration.writeTimeout) { [self] in
                        checkWriteProgress()
                    }
                }
                return
            case .endOfStream, .failed:
                return closeNow()
            }
        }
        output.reset()
        writeTimeout.cancel(on: loop)
        if interest.contains(.writable) && !transport.readWaitsForWritable {
            setInterest(interest.subtracting(.writable))
        }
        let waiters = writeWaiters
        writeWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: true) }
        perform(state.outputDrained())
    }

    /// Shuts the write side down after the last response and drops what the client still sends, for at most
    /// ``HTTPServerConfiguration/lingeringTimeout`` and ``HTTPServerConfiguration/maxLingeringBytes``, then closes.
    private func linger() {
        transport.shutdownWrite()
        arm(.lingering)
        setInterest([.readable, .readHangup])
        readAvailable()
    }

    private func setInterest(_ events: IOEvents) {
        interest = events
        loop.modify(fd, for: events)
    }

    // MARK: Timers and closing

    /// Runs `timeout`'s timer from the loop's latest wake-up (``EventLoop/time``: no clock call per request; the
    /// work of one batch of events takes milliseconds at most, against timeouts of seconds).
    private func arm(_ timeout: HTTPConnectionState.Timeout) {
        let timeouts = server.timeouts
        let duration =
            switch timeout {
            case .idle: timeouts.idle
            case .head: timeouts.head
            case .body: timeouts.body
            case .lingering: timeouts.lingering
            }
        self.timeout = timeout
        // Held strongly (a weak reference would move the reference count to a slower side table for good); every
        // way out of the connection cancels the timer, which releases it.
        deadline.set(loop.time + duration, on: loop) { [self] in timerFired() }
    }

    private func timerFired() {
        guard deadline.fired(now: loop.now(), on: loop, { [self] in timerFired() }) else { return }
        perform(state.timerFired(timeout, outputEmpty: output.isEmpty))
    }

    /// Closes the connection if output is pending and the client has taken none of it for the write timeout;
    /// otherwise waits for the rest of that time (nothing when the output has left).
    private func checkWriteProgress() {
        guard
            writeTimeout.check(
                fd: fd, on: loop, timeout: server.configuration.writeTimeout,
                pending: !state.isClosed && output.hasUnsent, then: checkWriteProgress)
                != nil
        else { return }
        server.logger.log(
            .notice, "client stopped reading; closing",
            ["unsent": "\(output.unsentCount)", "remote": remoteText])
        closeNow()
    }

    /// Closes at once if idle; otherwise lets the current response finish and closes after it.
    func drain() {
        perform(state.drain(requestStarted: !parser.isIdle || admitted != nil))
    }

    func closeNow() {
        guard state.closed() else { return }
        deadline.cancel(on: loop)
        writeTimeout.cancel(on: loop)
        loop.deregister(fd)
        transport.close()
        for waiter in writeWaiters { waiter.resume(returning: false) }
        writeWaiters.removeAll()
        server.registry(for: loop).remove(self)
        server.closed(slot)
    }

    private func handOver() {
        deadline.cancel(on: loop)
        writeTimeout.cancel(on: loop)
        loop.deregister(fd)
        server.registry(for: loop).remove(self)
        guard let (handler, request) = upgrade else { return }
        let (server, slot) = (server, slot)
        let connection = UpgradedConnection(
            transport: transport, loop: loop, leftover: parser.takeBufferedBytes(), request: request,
            lifetime: ConnectionLifetime { server.closed(slot) }, budget: server.configuration.budget)
        handler(connection)
    }
}
