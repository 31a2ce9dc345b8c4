import Glibc
import HTTPServer
import HTTPWire
import Synchronization

// ws-bench-client: a WebSocket load client on HTTPServer's event loops, for bench/websocket.sh.
//
//   ws-bench-client echo --url ws://HOST:PORT/v1/echo [--connections 64] [--seconds 10] [--size 1024]
//                        [--pipeline 1] [--warmup-seconds 1]
//   ws-bench-client rate --url ws://HOST:PORT/v1/echo [--connections 1000] [--rate 30] [--seconds 30]
//                        [--size 1024] [--ramp-seconds 5] [--drain-seconds 10] [--tick-us 100]
//   ws-bench-client idle --url ws://HOST:PORT/v1/echo [--connections 10000] [--hold-seconds 10]
// Common: [--loops 1] [--handshakes 256] [--server-pid PID] [--engine raw|library] [--compression]
//
// echo: every connection keeps `--pipeline` messages in flight (it sends the next one when an echo arrives) and
//   the echoes received after the warm-up are counted for `--seconds`.
// rate: connection i sends at `--rate` messages/s on its own fixed schedule, phase i/N of the period, so the N
//   connections together send evenly spaced messages. A message's latency is its echo's arrival minus its
//   *intended* send time (no coordinated omission: a late send, a stalled server or a backlog all count). Echoes
//   are matched to sends in order (TCP and an echo server keep it). After `--seconds` the client stops sending and
//   waits up to `--drain-seconds` for the rest; a message still unanswered then is counted with its age at that
//   moment, a lower bound, and reported as `unanswered`. Sends are driven by a CLOCK_MONOTONIC timerfd; to save
//   wake-ups the client sends whatever is due at most every `--tick-us` microseconds (100; 0 = each message on
//   its own wake-up), and that wait is part of the measured latency. `send_lag` reports how late sends left.
// idle: opens the connections, prints `ready <open>` on stdout, holds them `--hold-seconds`, then closes them.
//
// Connections are opened ramped (echo and idle: as fast as `--handshakes` in-flight handshakes allow; rate: spread
// over `--ramp-seconds`, also capped) so the server does not see a SYN storm. Every mode prints one JSON object
// on stdout at the end; progress and errors go to stderr. With `--server-pid` the client also reads the server's
// CPU time (utime + stime from /proc/PID/stat) at the start and end of the measured window.
//
// Engines. `raw` (default) speaks RFC 6455 itself on the event loops: it pre-encodes 16 masked copies of the
// message (each with its own masking key) and only parses the headers of incoming frames (the payload is checked
// for its length, not copied), so it costs far less per message than the server under test. `library` uses
// `WebSocketClient` and `WebSocket` from HTTPServer (a full client: masking per frame, UTF-8 validation, a
// `String` per message). permessage-deflate is not offered unless `--compression` is given, which selects the
// library engine (the raw engine cannot compress).

// MARK: - Options

/// Command-line options.
struct Options {
    var mode = ""
    var host = "127.0.0.1"
    var port: UInt16 = 0
    var path = "/v1/echo"
    var connections = 0
    var seconds = 0.0
    var warmupSeconds = 1.0
    var size = 1024
    var loops = 1
    var pipeline = 1
    var rate = 30.0
    var rampSeconds = 5.0
    var holdSeconds = 10.0
    var drainSeconds = 10.0
    var tickMicroseconds = 100.0
    var handshakes = 256
    var compression = false
    var library = false
    var serverPID: Int32?

    static func usage(_ problem: String) -> Never {
        Output.error("ws-bench-client: \(problem)")
        Output.error("usage: ws-bench-client echo|rate|idle --url ws://HOST:PORT/PATH [options] (see main.swift)")
        exit(2)
    }

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        guard let mode = arguments.first, ["echo", "rate", "idle"].contains(mode) else { usage("no mode") }
        options.mode = mode
        var url: String?
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            if flag == "--compression" {
                options.compression = true
                options.library = true
                continue
            }
            guard let value = iterator.next() else { usage("\(flag) needs a value") }
            func int() -> Int {
                guard let number = Int(value), number >= 0 else { usage("\(flag): not a count: \(value)") }
                return number
            }
            func double() -> Double {
                guard let number = Double(value), number >= 0 else { usage("\(flag): not a number: \(value)") }
                return number
            }
            switch flag {
            case "--url": url = value
            case "--connections": options.connections = int()
            case "--seconds": options.seconds = double()
            case "--warmup-seconds": options.warmupSeconds = double()
            case "--size": options.size = int()
            case "--loops": options.loops = max(1, int())
            case "--pipeline": options.pipeline = max(1, int())
            case "--rate": options.rate = double()
            case "--ramp-seconds": options.rampSeconds = double()
            case "--hold-seconds": options.holdSeconds = double()
            case "--drain-seconds": options.drainSeconds = double()
            case "--tick-us": options.tickMicroseconds = double()
            case "--handshakes": options.handshakes = max(1, int())
            case "--server-pid": options.serverPID = Int32(int())
            case "--engine":
                guard value == "raw" || value == "library" else { usage("--engine raw|library") }
                options.library = value == "library" || options.compression
            default: usage("unknown flag \(flag)")
            }
        }
        guard let url else { usage("--url is required") }
        options.parseURL(url)
        if options.connections == 0 {
            options.connections = ["echo": 64, "rate": 1000, "idle": 10_000][mode] ?? 64
        }
        if options.seconds == 0 { options.seconds = mode == "rate" ? 30 : 10 }
        guard mode != "rate" || options.rate > 0 else { usage("--rate must be positive") }
        return options
    }

    /// Accepts `ws://HOST:PORT/PATH` with a numeric IPv4 host or `localhost`.
    mutating func parseURL(_ url: String) {
        guard url.hasPrefix("ws://") else { Self.usage("only ws:// URLs: \(url)") }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        let authority = rest[..<slash]
        guard let colon = authority.lastIndex(of: ":"), let number = UInt16(authority[authority.index(after: colon)...])
        else { Self.usage("the URL needs a port: \(url)") }
        port = number
        host = String(authority[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        var probe = in_addr()
        guard inet_pton(AF_INET, host, &probe) == 1 else {
            Self.usage("the host must be a numeric IPv4 address: \(host)")
        }
    }
}

// MARK: - Output and measurements

/// stdout/stderr helpers (no Foundation).
enum Output {
    static func line(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return }
                let count = write(1, base + offset, buffer.count - offset)
                if count <= 0 { return }
                offset += count
            }
        }
    }

    static func error(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// A flat JSON object from already-encoded values.
    static func json(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    static func string(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += " "
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// A number with `places` decimals (no Foundation formatting).
    static func fixed(_ value: Double, _ places: Int = 3) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let integer = UInt64(scaled)
        let divisor = UInt64(scale)
        var text = "\(integer / divisor)"
        if places > 0 {
            let fraction = "\(integer % divisor)"
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return (value < 0 && integer != 0 ? "-" : "") + text
    }

    static func reasons(_ counts: [String: Int]) -> String {
        let sorted = counts.sorted { $0.value > $1.value }.prefix(5)
        return "{" + sorted.map { "\(string($0.key)):\($0.value)" }.joined(separator: ",") + "}"
    }
}

/// CPU time of this process and, when known, of the server, at one instant.
struct CPUSample {
    let time: UInt64
    let client: Double
    let server: Double?

    static func take(serverPID: Int32?) -> CPUSample {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let client =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        return CPUSample(time: EventLoop.now(), client: client, server: serverPID.flatMap(Self.processCPU))
    }

    /// utime + stime of a process from /proc/PID/stat, in seconds.
    static func processCPU(_ pid: Int32) -> Double? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
        guard let paren = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: paren)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU used between two samples as a percentage of one core, for the client and the server.
    static func percent(from start: CPUSample, to end: CPUSample) -> (client: Double, server: Double?) {
        let wall = Double(end.time - start.time) / 1e9
        guard wall > 0 else { return (0, nil) }
        let client = (end.client - start.client) / wall * 100
        guard let first = start.server, let last = end.server else { return (client, nil) }
        return (client, (last - first) / wall * 100)
    }
}

/// A log-linear histogram in the manner of HdrHistogram: values below 256 exactly, above that 128 sub-buckets per
/// power of two, so any value is known to within 1/128 (0.8 %). Values are nanoseconds; up to 2^64.
struct Histogram: Sendable {
    private static let subBuckets = 128
    private static let bucketCount = 256 + 56 * 128
    private(set) var counts: [UInt64] = Array(repeating: 0, count: Histogram.bucketCount)
    private(set) var total: UInt64 = 0
    private(set) var maximum: UInt64 = 0
    private(set) var sum: Double = 0

    private static func index(_ value: UInt64) -> Int {
        if value < 256 { return Int(value) }
        let shift = (63 - value.leadingZeroBitCount) - 7
        return 256 + (shift - 1) * subBuckets + Int(value >> UInt64(shift)) - subBuckets
    }

    /// The largest value that lands in bucket `index`.
    private static func highestEquivalent(_ index: Int) -> UInt64 {
        if index < 256 { return UInt64(index) }
        let shift = UInt64((index - 256) / subBuckets + 1)
        let mantissa = UInt64((index - 256) % subBuckets + subBuckets)
        return ((mantissa + 1) << shift) - 1
    }

    mutating func record(_ value: UInt64) {
        counts[Self.index(value)] += 1
        total += 1
        sum += Double(value)
        maximum = max(maximum, value)
    }

    mutating func merge(_ other: Histogram) {
        for index in 0..<counts.count where other.counts[index] != 0 { counts[index] += other.counts[index] }
        total += other.total
        sum += other.sum
        maximum = max(maximum, other.maximum)
    }

    /// The value at percentile `p` (0–100): the highest value equivalent to the bucket holding that rank.
    func percentile(_ p: Double) -> UInt64 {
        guard total > 0 else { return 0 }
        let rank = max(1, UInt64((p / 100 * Double(total)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, count) in counts.enumerated() where count != 0 {
            seen += count
            if seen >= rank { return min(Self.highestEquivalent(index), maximum) }
        }
        return maximum
    }

    var mean: Double { total == 0 ? 0 : sum / Double(total) }

    /// Milliseconds with three decimals.
    static func ms(_ nanoseconds: UInt64) -> String { Output.fixed(Double(nanoseconds) / 1e6) }
}

// MARK: - Message

/// The benchmark message: pose-like JSON text (a skeleton's joints with position, orientation and velocity),
/// padded to exactly `size` bytes.
enum Payload {
    static func json(size: Int) -> [UInt8] {
        let closing = "],\"pad\":\"\"}"
        var text = "{\"type\":\"pose\",\"seq\":1,\"t\":1718000000.123456,\"frame\":\"world\",\"joints\":["
        guard size >= text.utf8.count + closing.utf8.count else {
            let padding = max(0, size - 8)
            return Array(("{\"p\":\"" + String(repeating: "x", count: padding) + "\"}").utf8)
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func number() -> String {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Int((seed >> 33) % 20_001) - 10_000  // -1.0000 ... 1.0000
            let digits = String(abs(value) % 10_000)
            return (value < 0 ? "-" : "") + "\(abs(value) / 10_000)." + String(repeating: "0", count: 4 - digits.count)
                + digits
        }
        var joint = 0
        while true {
            let entry =
                (joint == 0 ? "" : ",") + "{\"name\":\"joint_\(joint)\",\"p\":[\(number()),\(number()),\(number())],"
                + "\"q\":[\(number()),\(number()),\(number()),\(number())],\"v\":[\(number()),\(number()),\(number())]}"
            if text.utf8.count + entry.utf8.count + closing.utf8.count > size { break }
            text += entry
            joint += 1
        }
        text += "],\"pad\":\"" + String(repeating: " ", count: size - text.utf8.count - closing.utf8.count) + "\"}"
        return Array(text.utf8)
    }

    /// `count` copies of the message as masked client text frames, each with its own random masking key.
    static func maskedFrames(_ payload: [UInt8], count: Int) -> [[UInt8]] {
        (0..<count).map { _ in frame(.text, payload) }
    }

    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        let key = UInt32.random(in: .min ... .max)
        let mask = (UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF))
        return WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload), mask: mask)
    }
}

// MARK: - Connections

/// What all loops share: connection counts, read by the main task while the loops run.
final class Shared: Sendable {
    let inFlight = Atomic<Int>(0)
    let opened = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let lost = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
}

/// In-order send times of the messages still waiting for their echo: intended and actual, nanoseconds.
struct SendTimes {
    private var intended: [UInt64] = []
    private var actual: [UInt64] = []
    private var head = 0

    var count: Int { intended.count - head }

    mutating func push(intended time: UInt64, actual sent: UInt64) {
        intended.append(time)
        actual.append(sent)
    }

    mutating func pop() -> (intended: UInt64, actual: UInt64)? {
        guard head < intended.count else { return nil }
        let times = (intended[head], actual[head])
        head += 1
        if head == intended.count {
            intended.removeAll(keepingCapacity: true)
            actual.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 && head * 2 >= intended.count {
            intended.removeFirst(head)
            actual.removeFirst(head)
            head = 0
        }
        return times
    }

    mutating func drain() -> [UInt64] {
        defer { self = SendTimes() }
        return Array(intended[head...])
    }
}

/// One benchmark connection. Used only on its worker's loop thread.
class Connection {
    let index: Int
    unowned let worker: Worker
    var times = SendTimes()
    var isOpen = false
    var sentFrames = 0

    init(index: Int, worker: Worker) {
        self.index = index
        self.worker = worker
    }

    func start() {}
    func send(_ count: Int) {}
    func close() {}
}

/// The raw engine: RFC 6455 client framing written directly on an event-loop-registered socket.
final class RawConnection: Connection, EventLoopHandler {
    private enum State {
        case idle
        case connecting
        case handshaking
        case open
        case closing
        case closed
    }

    private var state = State.idle
    private var fd: Int32 = -1
    private var request: [UInt8] = []
    private var requestSent = 0
    private var response: [UInt8] = []
    private var key = ""
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var wantsWritable = false
    private var reading = false
    private var timer: LoopTimer?
    private var header: [UInt8] = []
    private var remaining = 0
    private var opcode: UInt8 = 0
    private var fin = false
    private var messageOpcode: UInt8 = 0
    private var messageLength = 0
    private var control: [UInt8] = []
    private var closeInitiated = false

    override func start() {
        fd = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return fail("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = worker.address
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 && errno != EINPROGRESS {
            return fail("connect: \(String(cString: strerror(errno)))")
        }
        key = WebSocketHandshake.makeKey()
        let headers = WebSocketHandshake.clientRequestHeaders(
            host: worker.hostHeader, key: key, protocols: [], extensions: nil)
        request = Array("GET \(worker.path) HTTP/1.1\r\n".utf8)
        for (name, value) in headers { request += Array("\(name): \(value)\r\n".utf8) }
        request += [13, 10]
        state = .connecting
        do {
            try worker.loop.register(fd, for: [.writable], handler: self)
        } catch {
            return fail("register: \(error)")
        }
        timer = worker.loop.schedule(after: .seconds(10)) { [weak self] in self?.fail("handshake timed out") }
    }

    func handle(_ events: IOEvents) {
        switch state {
        case .connecting:
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { return fail("connect: \(String(cString: strerror(error)))") }
            if events.contains(.error) || events.contains(.hangup) { return fail("connect: hangup") }
            if events.contains(.writable) {
                state = .handshaking
                writeRequest()
            }
        case .handshaking:
            if events.contains(.writable) { writeRequest() }
            if events.contains(.readable) { readResponse() }
            if state == .handshaking && (events.contains(.error) || events.contains(.hangup)) {
                fail("handshake: hangup")
            }
        case .open, .closing:
            if events.contains(.writable) { flush() }
            if events.contains(.readable) { readFrames() }
            if state != .closed && (events.contains(.error) || events.contains(.hangup)) { lost("hangup") }
        case .idle, .closed:
            break
        }
    }

    private func writeRequest() {
        while requestSent < request.count {
            let count = request.withUnsafeBytes { bytes -> Int in
                guard let base = bytes.baseAddress else { return 0 }
                return write(fd, base + requestSent, bytes.count - requestSent)
            }
            if count > 0 {
                requestSent += count
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                return
            } else {
                return fail("handshake write: \(String(cString: strerror(errno)))")
            }
        }
        worker.loop.modify(fd, for: [.readable])
    }

    private func readResponse() {
        while state == .handshaking {
            let count = read(fd, worker.buffer, Worker.bufferSize)
            if count > 0 {
                response += UnsafeRawBufferPointer(start: worker.buffer, count: count)
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
                    return fail("handshake: HTTP \(head.status.code) \(validation)")
                }
                guard accepted.extensions == nil else { return fail("handshake: unexpected extensions") }
                timer?.cancel()
                timer = nil
                state = .open
                isOpen = true
                request = []
                worker.opened(self)
                let leftover = Array(response[used...])
                response = []
                if !leftover.isEmpty {
                    leftover.withUnsafeBytes { consume($0) }
                }
                return
            } else if count == 0 {
                return fail("handshake: connection closed")
            } else {
                if errno == EINTR { continue }
                if errno != EAGAIN { fail("handshake read: \(String(cString: strerror(errno)))") }
                return
            }
        }
    }

    override func send(_ count: Int) {
        guard state == .open else { return }
        let frames = worker.frames
        for _ in 0..<count {
            output.append(contentsOf: frames[sentFrames & (frames.count - 1)])
            sentFrames &+= 1
        }
        if !reading { flush() }
    }

    private func sendControl(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        output.append(contentsOf: Payload.frame(opcode, payload))
        if !reading { flush() }
    }

    override func close() {
        guard state == .open else { return }
        closeInitiated = true
        sendControl(.close, [0x03, 0xE8])  // 1000 normal closure
        state = .closing
        timer = worker.loop.schedule(after: .seconds(3)) { [weak self] in self?.finish() }
    }

    private func flush() {
        while outputOffset < output.count {
            let count = output.withUnsafeBytes { bytes -> Int in
                guard let base = bytes.baseAddress else { return 0 }
                return write(fd, base + outputOffset, bytes.count - outputOffset)
            }
            if count > 0 {
                outputOffset += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN {
                if !wantsWritable {
                    wantsWritable = true
                    worker.loop.modify(fd, for: [.readable, .writable])
                }
                return
            }
            return lost("write: \(String(cString: strerror(errno)))")
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        outputOffset = 0
        if wantsWritable {
            wantsWritable = false
            worker.loop.modify(fd, for: [.readable])
        }
    }

    private func readFrames() {
        reading = true
        defer {
            reading = false
            if state != .closed && outputOffset < output.count { flush() }
        }
        while state == .open || state == .closing {
            let count = read(fd, worker.buffer, Worker.bufferSize)
            if count > 0 {
                consume(UnsafeRawBufferPointer(start: worker.buffer, count: count))
                if count < Worker.bufferSize { return }
            } else if count == 0 {
                return state == .closing ? finish() : lost("connection closed without a close frame")
            } else {
                if errno == EINTR { continue }
                if errno != EAGAIN { lost("read: \(String(cString: strerror(errno)))") }
                return
            }
        }
    }

    /// Parses frame headers and skips payloads (control frame payloads are kept).
    private func consume(_ bytes: UnsafeRawBufferPointer) {
        var position = 0
        while position < bytes.count && state != .closed {
            if remaining > 0 {
                let take = min(remaining, bytes.count - position)
                if opcode >= 8 { control += UnsafeRawBufferPointer(rebasing: bytes[position..<(position + take)]) }
                position += take
                remaining -= take
                if remaining == 0 { frameComplete() }
                continue
            }
            header.append(bytes[position])
            position += 1
            guard header.count >= 2 else { continue }
            let short = Int(header[1] & 0x7F)
            let needed = 2 + (short == 126 ? 2 : short == 127 ? 8 : 0) + (header[1] & 0x80 != 0 ? 4 : 0)
            guard header.count == needed else { continue }
            var length = short
            if short == 126 {
                length = Int(header[2]) << 8 | Int(header[3])
            } else if short == 127 {
                length = 0
                for byte in header[2..<10] { length = length << 8 | Int(byte) }
            }
            guard length >= 0 && length <= 16 << 20 else { return lost("protocol: frame of \(length) bytes") }
            opcode = header[0] & 0x0F
            fin = header[0] & 0x80 != 0
            if opcode != 0 && opcode < 8 {
                messageOpcode = opcode
                messageLength = 0
            }
            if opcode < 8 { messageLength += length }
            header.removeAll(keepingCapacity: true)
            control.removeAll(keepingCapacity: true)
            remaining = length
            if remaining == 0 { frameComplete() }
        }
    }

    private func frameComplete() {
        switch opcode {
        case 0x8:
            if state == .open {
                // The server closed first: answer, then wait for it to close the TCP connection.
                let code = control.count >= 2 ? Int(control[0]) << 8 | Int(control[1]) : 1005
                worker.lost(self, "server sent close \(code)")
                isOpen = false
                sendControl(.close, Array(control.prefix(2)))
                state = .closing
                timer = worker.loop.schedule(after: .seconds(3)) { [weak self] in self?.finish() }
            }
        case 0x9:
            if state == .open { sendControl(.pong, control) }
        case 0xA:
            break
        default:
            if fin { worker.message(self, length: messageLength, text: messageOpcode == 1) }
        }
    }

    /// The connection ended while open.
    private func lost(_ reason: String) {
        if state == .open { worker.lost(self, reason) }
        finish()
    }

    private func fail(_ reason: String) {
        guard state != .closed && state != .open else { return }
        finish()
        worker.failed(self, reason)
    }

    private func finish() {
        guard state != .closed else { return }
        let registered = state != .idle
        state = .closed
        isOpen = false
        timer?.cancel()
        timer = nil
        if fd >= 0 {
            if registered { worker.loop.deregister(fd) }
            Glibc.close(fd)
            fd = -1
        }
        output = []
        worker.finished(self)
    }
}

/// The library engine: `WebSocketClient` and `WebSocket` from HTTPServer.
final class LibraryConnection: Connection, @unchecked Sendable {
    // Safety: like every Connection, used only on its worker's loop thread; the connect task only hops there.
    private var socket: WebSocket?

    override func start() {
        let worker = worker
        var options = WebSocketClient.Options()
        options.compression = worker.options.compression
        if !worker.options.compression { options.configuration.compression = nil }
        Task {
            do {
                let socket = try await WebSocketClient.connect(
                    host: worker.options.host, port: worker.options.port, path: worker.options.path,
                    options: options, on: worker.loop)
                worker.loop.execute { self.adopt(socket) }
            } catch {
                worker.loop.execute { worker.failed(self, "\(error)") }
            }
        }
    }

    private func adopt(_ socket: WebSocket) {
        self.socket = socket
        isOpen = true
        socket.onMessage = { [weak self] message in
            guard let self else { return }
            switch message {
            case .text(let text): worker.message(self, length: text.utf8.count, text: true)
            case .binary(let bytes): worker.message(self, length: bytes.count, text: false)
            }
        }
        socket.onClose = { [weak self] code, reason in
            guard let self else { return }
            if isOpen { worker.lost(self, "closed: \(code.map { "\($0.rawValue)" } ?? "no code") \(reason)") }
            isOpen = false
            worker.finished(self)
        }
        worker.opened(self)
    }

    override func send(_ count: Int) {
        guard isOpen, let socket else { return }
        for _ in 0..<count { socket.sendText(utf8: worker.payload) }
    }

    override func close() {
        guard isOpen, let socket else { return }
        isOpen = false
        socket.close()
    }
}

// MARK: - Workers

/// Everything on one client loop: its connections, counters and histograms. Used only on that loop's thread,
/// except for the immutable configuration.
final class Worker: EventLoopHandler, @unchecked Sendable {
    // Safety: mutable state is touched only on `loop`'s thread; the main task reaches it with `onLoop`.
    static let bufferSize = 64 * 1024
    let loop: EventLoop
    let options: Options
    let shared: Shared
    let address: sockaddr_in
    let hostHeader: String
    let path: String
    let payload: [UInt8]
    let frames: [[UInt8]]
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: Worker.bufferSize, alignment: 16)

    var connections: [Connection] = []
    var received = 0
    var sent = 0
    var mismatched = 0
    var unexpected = 0
    var lostCount = 0
    var lostReasons: [String: Int] = [:]
    var failReasons: [String: Int] = [:]

    // echo
    var echoing = false
    // rate
    var latency = Histogram()
    var service = Histogram()
    var lag = Histogram()
    var recording = false
    private var schedule: [(connection: Connection, phase: UInt64)] = []
    private var cursor = 0
    private var cycleStart: UInt64 = 0
    private var end: UInt64 = 0
    private var period: UInt64 = 0
    private var timerFD: Int32 = -1
    private var tick: UInt64 = 0

    init(loop: EventLoop, options: Options, shared: Shared, payload: [UInt8], frames: [[UInt8]]) {
        self.loop = loop
        self.options = options
        self.shared = shared
        self.payload = payload
        self.frames = frames
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = options.port.bigEndian
        inet_pton(AF_INET, options.host, &address.sin_addr)
        self.address = address
        hostHeader = "\(options.host):\(options.port)"
        path = options.path
    }

    /// Starts connection `index` (loop thread).
    func connect(_ index: Int) {
        let connection: Connection =
            options.library ? LibraryConnection(index: index, worker: self) : RawConnection(index: index, worker: self)
        connection.start()
    }

    // Connection events (loop thread).

    func opened(_ connection: Connection) {
        connections.append(connection)
        shared.inFlight.subtract(1, ordering: .relaxed)
        shared.opened.add(1, ordering: .relaxed)
    }

    func failed(_ connection: Connection, _ reason: String) {
        failReasons[reason, default: 0] += 1
        shared.inFlight.subtract(1, ordering: .relaxed)
        shared.failed.add(1, ordering: .relaxed)
    }

    func lost(_ connection: Connection, _ reason: String) {
        lostCount += 1
        lostReasons[reason, default: 0] += 1
        shared.lost.add(1, ordering: .relaxed)
    }

    func finished(_ connection: Connection) {
        shared.finished.add(1, ordering: .relaxed)
    }

    func message(_ connection: Connection, length: Int, text: Bool) {
        if length != payload.count || !text { mismatched += 1 }
        if echoing {
            received += 1
            connection.send(1)
            sent += 1
        } else if recording {
            guard let times = connection.times.pop() else {
                unexpected += 1
                return
            }
            received += 1
            let now = EventLoop.now()
            latency.record(now &- times.intended)
            service.record(now &- times.actual)
        }
    }

    // Echo mode.

    func startEcho() {
        echoing = true
        for connection in connections where connection.isOpen {
            connection.send(options.pipeline)
            sent += options.pipeline
        }
    }

    // Rate mode: connection i sends at start + phase_i + k * period, phase_i = i/N of the period.

    func startRate(at start: UInt64, until end: UInt64) {
        period = UInt64(1e9 / options.rate)
        tick = UInt64(options.tickMicroseconds * 1000)
        self.end = end
        cycleStart = start
        let count = UInt64(options.connections)
        schedule = connections.map { ($0, UInt64($0.index) * period / count) }.sorted { $0.phase < $1.phase }
        cursor = 0
        recording = true
        guard !schedule.isEmpty else { return }
        if let timer = PreciseTimer.make() {
            timerFD = timer
            do {
                try loop.register(timerFD, for: [.readable], handler: self)
            } catch {
                Output.error("ws-bench-client: timerfd register failed (\(error)); using millisecond timers")
                close(timerFD)
                timerFD = -1
            }
        } else {
            Output.error("ws-bench-client: no timerfd; using millisecond timers")
        }
        arm(after: 0)
    }

    private var nextDue: UInt64 { cycleStart + schedule[cursor].phase }

    /// Arms the timer for the next send; with `--tick-us`, no sooner than that long after `now` (sends are then
    /// batched, and the wait counts in their latency).
    private func arm(after now: UInt64) {
        guard nextDue < end else { return stopTimer() }
        let due = max(nextDue, now + tick)
        if timerFD >= 0 {
            PreciseTimer.set(timerFD, at: due)
        } else {
            let now = EventLoop.now()
            loop.schedule(after: .nanoseconds(Int64(due > now ? due - now : 0))) { [self] in fire() }
        }
    }

    /// The timerfd fired.
    func handle(_ events: IOEvents) {
        var expirations: UInt64 = 0
        _ = read(timerFD, &expirations, 8)
        fire()
    }

    private func fire() {
        guard recording, !schedule.isEmpty else { return }
        let now = EventLoop.now()
        while nextDue <= now && nextDue < end {
            let due = nextDue
            let connection = schedule[cursor].connection
            if connection.isOpen {
                let actual = EventLoop.now()
                connection.times.push(intended: due, actual: actual)
                connection.send(1)
                sent += 1
                lag.record(actual - due)
            }
            cursor += 1
            if cursor == schedule.count {
                cursor = 0
                cycleStart += period
            }
        }
        arm(after: now)
    }

    private func stopTimer() {
        guard timerFD >= 0 else { return }
        loop.deregister(timerFD)
        close(timerFD)
        timerFD = -1
    }

    var outstanding: Int { connections.reduce(0) { $0 + $1.times.count } }

    /// Ends the rate run: every message still unanswered counts with its age now (a lower bound).
    func stopRate() -> Int {
        recording = false
        stopTimer()
        let now = EventLoop.now()
        var unanswered = 0
        for connection in connections {
            for intended in connection.times.drain() {
                latency.record(now &- intended)
                unanswered += 1
            }
        }
        return unanswered
    }

    func closeAll() {
        echoing = false
        recording = false
        for connection in connections { connection.close() }
    }
}

/// A CLOCK_MONOTONIC timerfd, for sub-millisecond send times (the event loop's own timers round to 1 ms).
/// Glibc's Swift module does not export <sys/timerfd.h>, so the two calls are looked up with dlsym.
enum PreciseTimer {
    private typealias Create = @convention(c) (Int32, Int32) -> Int32
    private typealias SetTime =
        @convention(c) (Int32, Int32, UnsafePointer<itimerspec>?, UnsafeMutablePointer<itimerspec>?) -> Int32

    private static let functions: (create: Create, setTime: SetTime)? = {
        guard let handle = dlopen(nil, RTLD_NOW), let create = dlsym(handle, "timerfd_create"),
            let setTime = dlsym(handle, "timerfd_settime")
        else { return nil }
        return (unsafeBitCast(create, to: Create.self), unsafeBitCast(setTime, to: SetTime.self))
    }()

    static func make() -> Int32? {
        guard let functions else { return nil }
        let fd = functions.create(CLOCK_MONOTONIC, Int32(O_NONBLOCK | O_CLOEXEC))  // TFD_NONBLOCK | TFD_CLOEXEC
        return fd >= 0 ? fd : nil
    }

    /// Arms `fd` to fire once at monotonic time `deadline` (ns).
    static func set(_ fd: Int32, at deadline: UInt64) {
        guard let functions else { return }
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
        spec.it_value.tv_nsec = Int(max(1, deadline % 1_000_000_000))
        _ = functions.setTime(fd, 1, &spec, nil)  // TFD_TIMER_ABSTIME
    }
}

// MARK: - Driver

/// Runs `body` on `loop`'s thread and returns its result.
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
}

func sleep(seconds: Double) async {
    try? await Task.sleep(for: .nanoseconds(Int64(max(0, seconds) * 1e9)))
}

/// The benchmark: connections, then the mode's measurement.
struct Bench {
    let options: Options
    let shared = Shared()
    let workers: [Worker]

    init(options: Options, group: EventLoopGroup) {
        self.options = options
        let payload = Payload.json(size: options.size)
        let frames = Payload.maskedFrames(payload, count: 16)
        let shared = shared
        workers = group.loops.map {
            Worker(loop: $0, options: options, shared: shared, payload: payload, frames: frames)
        }
    }

    /// Opens the connections: ramped over `rampSeconds`, at most `handshakes` in flight. Returns when each has
    /// opened or failed.
    func openAll(rampSeconds: Double) async -> Double {
        let start = EventLoop.now()
        let total = options.connections
        var started = 0
        while started < total {
            let elapsed = Double(EventLoop.now() - start) / 1e9
            let due = rampSeconds <= 0 ? total : min(total, Int(Double(total) * elapsed / rampSeconds) + 1)
            var batch: [[Int]] = Array(repeating: [], count: workers.count)
            while started < due && shared.inFlight.load(ordering: .relaxed) < options.handshakes {
                shared.inFlight.add(1, ordering: .relaxed)
                batch[started % workers.count].append(started)
                started += 1
            }
            for (worker, indices) in zip(workers, batch) where !indices.isEmpty {
                worker.loop.execute { for index in indices { worker.connect(index) } }
            }
            await sleep(seconds: 0.001)
        }
        let deadline = EventLoop.now() + 15_000_000_000
        while shared.opened.load(ordering: .relaxed) + shared.failed.load(ordering: .relaxed) < total {
            if EventLoop.now() > deadline {
                Output.error("ws-bench-client: some handshakes neither finished nor failed")
                break
            }
            await sleep(seconds: 0.005)
        }
        let seconds = Double(EventLoop.now() - start) / 1e9
        let failed = shared.failed.load(ordering: .relaxed)
        Output.error(
            "ws-bench-client: \(shared.opened.load(ordering: .relaxed)) of \(total) connections open in "
                + "\(Output.fixed(seconds, 2)) s\(failed > 0 ? ", \(failed) failed" : "")")
        return seconds
    }

    func closeAll() async {
        let before = shared.finished.load(ordering: .relaxed)
        var open = 0
        for worker in workers {
            open += await onLoop(worker.loop) {
                let count = worker.connections.filter(\.isOpen).count
                worker.closeAll()
                return count
            }
        }
        let deadline = EventLoop.now() + 3_000_000_000
        while shared.finished.load(ordering: .relaxed) - before < open && EventLoop.now() < deadline {
            await sleep(seconds: 0.01)
        }
    }

    /// Counters summed over the workers: (received, sent, mismatched, unexpected, lost, reasons).
    func counters() async -> (received: Int, sent: Int, mismatched: Int, unexpected: Int, lost: Int) {
        var sum = (received: 0, sent: 0, mismatched: 0, unexpected: 0, lost: 0)
        for worker in workers {
            let values = await onLoop(worker.loop) {
                (worker.received, worker.sent, worker.mismatched, worker.unexpected, worker.lostCount)
            }
            sum.received += values.0
            sum.sent += values.1
            sum.mismatched += values.2
            sum.unexpected += values.3
            sum.lost += values.4
        }
        return sum
    }

    func reasons() async -> (failed: [String: Int], lost: [String: Int]) {
        var failed: [String: Int] = [:]
        var lost: [String: Int] = [:]
        for worker in workers {
            let (f, l) = await onLoop(worker.loop) { (worker.failReasons, worker.lostReasons) }
            failed.merge(f, uniquingKeysWith: +)
            lost.merge(l, uniquingKeysWith: +)
        }
        return (failed, lost)
    }

    func commonFields() async -> [(String, String)] {
        let (failed, lost) = await reasons()
        return [
            ("mode", Output.string(options.mode)),
            ("engine", Output.string(options.library ? "library" : "raw")),
            ("compression", options.compression ? "true" : "false"),
            ("client_loops", "\(options.loops)"),
            ("connections", "\(options.connections)"),
            ("opened", "\(shared.opened.load(ordering: .relaxed))"),
            ("connect_failures", "\(shared.failed.load(ordering: .relaxed))"),
            ("connect_failure_reasons", Output.reasons(failed)),
            ("lost", "\(shared.lost.load(ordering: .relaxed))"),
            ("lost_reasons", Output.reasons(lost)),
        ]
    }

    func echo() async {
        _ = await openAll(rampSeconds: 0)
        for worker in workers { worker.loop.execute { worker.startEcho() } }
        await sleep(seconds: options.warmupSeconds)
        let first = await counters()
        let start = CPUSample.take(serverPID: options.serverPID)
        await sleep(seconds: options.seconds)
        let last = await counters()
        let stop = CPUSample.take(serverPID: options.serverPID)
        let cpu = CPUSample.percent(from: start, to: stop)
        let wall = Double(stop.time - start.time) / 1e9
        let messages = last.received - first.received
        await closeAll()
        var fields = await commonFields()
        fields += [
            ("pipeline", "\(options.pipeline)"),
            ("size", "\(options.size)"),
            ("seconds", Output.fixed(wall)),
            ("messages", "\(messages)"),
            ("messages_per_second", Output.fixed(Double(messages) / wall, 1)),
            ("mismatched", "\(last.mismatched)"),
            ("client_cpu_percent", Output.fixed(cpu.client, 1)),
            ("server_cpu_percent", cpu.server.map { Output.fixed($0, 1) } ?? "null"),
        ]
        Output.line(Output.json(fields))
    }

    func rate() async {
        let connectSeconds = await openAll(rampSeconds: options.rampSeconds)
        let start = EventLoop.now() + 200_000_000
        let end = start + UInt64(options.seconds * 1e9)
        for worker in workers { worker.loop.execute { worker.startRate(at: start, until: end) } }
        await sleep(seconds: Double(start - EventLoop.now()) / 1e9)
        let first = CPUSample.take(serverPID: options.serverPID)
        await sleep(seconds: Double(end - EventLoop.now()) / 1e9)
        let last = CPUSample.take(serverPID: options.serverPID)
        let cpu = CPUSample.percent(from: first, to: last)
        let sentByEnd = await counters()
        // Drain: wait for the echoes still on their way.
        let drainDeadline = EventLoop.now() + UInt64(options.drainSeconds * 1e9)
        while EventLoop.now() < drainDeadline {
            var outstanding = 0
            for worker in workers { outstanding += await onLoop(worker.loop) { worker.outstanding } }
            if outstanding == 0 { break }
            await sleep(seconds: 0.02)
        }
        let drained = Double(EventLoop.now() - end) / 1e9
        var unanswered = 0
        var latency = Histogram()
        var service = Histogram()
        var lag = Histogram()
        for worker in workers {
            let result = await onLoop(worker.loop) { (worker.stopRate(), worker.latency, worker.service, worker.lag) }
            unanswered += result.0
            latency.merge(result.1)
            service.merge(result.2)
            lag.merge(result.3)
        }
        let totals = await counters()
        await closeAll()
        var fields = await commonFields()
        let wall = Double(end - start) / 1e9
        fields += [
            ("connect_seconds", Output.fixed(connectSeconds, 2)),
            ("rate_per_connection", Output.fixed(options.rate, 1)),
            ("size", "\(options.size)"),
            ("seconds", Output.fixed(wall)),
            ("sent", "\(totals.sent)"),
            ("received", "\(totals.received)"),
            ("unanswered", "\(unanswered)"),
            ("mismatched", "\(totals.mismatched)"),
            ("unexpected", "\(totals.unexpected)"),
            ("send_rate", Output.fixed(Double(sentByEnd.sent) / wall, 1)),
            ("receive_rate_during_run", Output.fixed(Double(sentByEnd.received) / wall, 1)),
            ("drain_seconds", Output.fixed(drained, 2)),
            ("p50_ms", Histogram.ms(latency.percentile(50))),
            ("p90_ms", Histogram.ms(latency.percentile(90))),
            ("p99_ms", Histogram.ms(latency.percentile(99))),
            ("p999_ms", Histogram.ms(latency.percentile(99.9))),
            ("max_ms", Histogram.ms(latency.maximum)),
            ("mean_ms", Output.fixed(latency.mean / 1e6)),
            ("service_p50_ms", Histogram.ms(service.percentile(50))),
            ("service_p99_ms", Histogram.ms(service.percentile(99))),
            ("send_lag_p99_ms", Histogram.ms(lag.percentile(99))),
            ("send_lag_max_ms", Histogram.ms(lag.maximum)),
            ("client_cpu_percent", Output.fixed(cpu.client, 1)),
            ("server_cpu_percent", cpu.server.map { Output.fixed($0, 1) } ?? "null"),
        ]
        Output.line(Output.json(fields))
    }

    func idle() async {
        let seconds = await openAll(rampSeconds: 0)
        Output.line("ready \(shared.opened.load(ordering: .relaxed))")
        await sleep(seconds: options.holdSeconds)
        let lostDuringHold = shared.lost.load(ordering: .relaxed)
        await closeAll()
        var fields = await commonFields()
        fields += [
            ("connect_seconds", Output.fixed(seconds, 2)),
            ("hold_seconds", Output.fixed(options.holdSeconds, 1)),
            ("lost_during_hold", "\(lostDuringHold)"),
        ]
        Output.line(Output.json(fields))
    }
}

/// Raises the soft open-files limit to the hard one (10,000 connections need 10,000 descriptors).
func raiseFileLimit(needed: Int) {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    if Int(limit.rlim_cur) < needed + 64 {
        Output.error("ws-bench-client: warning: open files limit \(limit.rlim_cur) < \(needed + 64)")
    }
}

func main() async {
    let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
    signal(SIGPIPE, SIG_IGN)
    raiseFileLimit(needed: options.connections)
    let group: EventLoopGroup
    do {
        group = try EventLoopGroup(loops: options.loops)
    } catch {
        Output.error("ws-bench-client: \(error)")
        exit(1)
    }
    let bench = Bench(options: options, group: group)
    switch options.mode {
    case "echo": await bench.echo()
    case "rate": await bench.rate()
    default: await bench.idle()
    }
    exit(0)
}

await main()
