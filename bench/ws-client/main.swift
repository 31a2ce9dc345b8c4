import Glibc
import LoadKit
import NetCore

// ws-bench-client: a WebSocket load client on NetCore's event loops, for bench/websocket.sh.
//
//   ws-bench-client echo --url ws[s]://HOST:PORT/v1/echo [--connections 64] [--seconds 10] [--size 1024]
//                        [--pipeline 1] [--warmup-seconds 1]
//   ws-bench-client rate --url ws[s]://HOST:PORT/v1/echo [--connections 1000] [--rate 30] [--seconds 30]
//                        [--size 1024] [--ramp-seconds 5] [--drain-seconds 10] [--tick-us 100] [--poll]
//   ws-bench-client idle --url ws[s]://HOST:PORT/v1/echo [--connections 10000] [--hold-seconds 10]
// Common: [--loops 1] [--handshakes 256] [--server-pid PID] [--engine raw|library] [--compression]
// TLS (wss://): [--ca FILE] (verify against these PEM CA certificates, or the server's self-signed certificate;
//   default: the system's) or [--insecure] (no verification); [--server-name NAME] (the name the certificate must
//   carry, also sent as SNI; default: the URL's host; raw engine only).
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
//   `--poll`: the loops poll every tick instead of sleeping in epoll (as `motion-load --poll`), so echoes are read
//   up to a tick late and never have to wake the client.
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
// `WebSocketClient` and `WebSocket` (modules WebSocketClient and WebSocketCore: a full client, masking per frame,
// UTF-8 validation, a `String` per message). permessage-deflate is not offered unless `--compression` is given, which
// selects the library engine (the raw engine cannot compress).

func main() async {
    let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
    signal(SIGPIPE, SIG_IGN)
    ProcessStats.raiseFileLimit(needed: options.connections)
    let group: EventLoopGroup
    do {
        let tick = Duration.nanoseconds(Int64(max(1, options.tickMicroseconds * 1000)))
        group = try EventLoopGroup(
            loops: options.loops, name: "bench-loop", idleWait: options.poll ? .poll(interval: tick) : .block)
    } catch {
        Report.error("ws-bench-client: \(error)")
        exit(1)
    }
    guard let target = options.target else { Options.usage("--url is required") }
    let bench = Bench(options: options, target: target, group: group)
    switch options.mode {
    case "echo": await bench.echo()
    case "rate": await bench.rate()
    default: await bench.idle()
    }
    exit(0)
}

await main()
