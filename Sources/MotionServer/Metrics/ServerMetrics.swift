import Basics
import HTTPServer
import MotionCore
import Synchronization

/// The application's metrics (served at `/metrics`): live sessions, frames, events by kind, HTTP requests by
/// route and status, store latency, and the HTTP server's own counters.
final class ServerMetrics: Sendable {
    let registry = MetricsRegistry()
    private let frames = Atomic<Int>(0)
    private let liveSessions = Atomic<Int>(0)
    private let flowPauses = Atomic<Int>(0)
    private let events = EventCounters()
    private let requests = Locked<[RouteStatus: Int]>([:])

    private struct RouteStatus: Hashable {
        let route: String
        let status: Int
    }

    init() {
        registry.declare(
            "motion_http_requests_total", help: "HTTP requests by route and status.", type: "counter",
            labels: ["route", "status"])
        registry.declare(
            "motion_store_seconds", help: "Session store call latency.", type: "histogram",
            labels: ["operation"], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1])
        registry.declare(
            "motion_store_errors_total", help: "Failed session store calls.", type: "counter",
            labels: ["operation"])
        registry.declare(
            "motion_final_writes_lost_total",
            help: "Stopped or abandoned sessions whose summary the store never took, retried until their window ended.",
            type: "counter", labels: [])
        registry.declare(
            "motion_resumes_total",
            help: "Resume requests by outcome: memory or store (resumed from), or the error code.", type: "counter",
            labels: ["outcome"])
        registry.declare(
            "motion_resume_seconds", help: "Time from a resume request to its answer, by where it resumed from.",
            type: "histogram", labels: ["source"],
            buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1])
    }

    /// Counts a resume request's outcome: `memory`, `store`, or the error code it was refused with.
    func countResume(_ outcome: String) { registry.add("motion_resumes_total", labels: [outcome]) }
    /// Times a resume that succeeded, by where it resumed from.
    func observeResume(source: String, seconds: Double) {
        registry.observe("motion_resume_seconds", labels: [source], seconds)
    }

    func countFrames(_ count: Int) { frames.add(count, ordering: .relaxed) }
    func countEvent(_ event: MotionEvent) { events.count(event) }
    func sessionOpened() { liveSessions.add(1, ordering: .relaxed) }
    func sessionClosed() { liveSessions.subtract(1, ordering: .relaxed) }
    func flowPaused() { flowPauses.add(1, ordering: .relaxed) }
    func observeStore(_ operation: String, seconds: Double) {
        registry.observe("motion_store_seconds", labels: [operation], seconds)
    }
    func storeFailed(_ operation: String) { registry.add("motion_store_errors_total", labels: [operation]) }
    /// Counts a session whose final summary was never stored.
    func finalWriteLost() { registry.add("motion_final_writes_lost_total") }
    /// Counts a request by route pattern and status: once per request, so in a table of its own (no label array
    /// built, no registry lookup by name), copied into the registry's `motion_http_requests_total` when rendered.
    func countRequest(route: String, status: Int) {
        requests.withLock { counts in
            let key = RouteStatus(route: route, status: status)
            if let index = counts.index(forKey: key) {
                counts.values[index] += 1
            } else if counts.count < registry.maxSeriesPerFamily {
                counts[key] = 1
            }
        }
    }

    /// The Prometheus text of everything, including the HTTP server's counters, every sample labelled with the
    /// node's name when it has one (docs/protocol.md §8: nodes sharing a database tell their figures apart).
    func render(
        http: HTTPMetrics.Snapshot, webSockets: Int, httpSessions: Int, storeFailing: Bool, node: String? = nil
    ) -> String {
        let text = unlabelled(
            http: http, webSockets: webSockets, httpSessions: httpSessions, storeFailing: storeFailing)
        guard let node else { return text }
        let label = "node=\"\(MetricsRegistry.escapedLabelValue(node))\""
        var out = ""
        out.reserveCapacity(text.utf8.count * 5 / 4)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") || line.isEmpty {
                out += line
            } else if let space = line.firstIndex(of: " ") {
                let name = line[..<space]
                if let brace = name.firstIndex(of: "{") {
                    out += line[...brace] + label + "," + line[line.index(after: brace)...]
                } else {
                    out += name + "{" + label + "}" + line[space...]
                }
            } else {
                out += line
            }
            out += "\n"
        }
        return String(out.dropLast())
    }

    private func unlabelled(
        http: HTTPMetrics.Snapshot, webSockets: Int, httpSessions: Int, storeFailing: Bool
    ) -> String {
        var lines = [
            "# HELP motion_live_sessions Live WebSocket sessions on this node.", "# TYPE motion_live_sessions gauge",
            "motion_live_sessions \(liveSessions.load(ordering: .relaxed))",
            "# HELP motion_http_sessions Open HTTP-driven sessions on this node.", "# TYPE motion_http_sessions gauge",
            "motion_http_sessions \(httpSessions)",
            "# HELP motion_store_failing 1 while the session store fails (since its last failed call), else 0.",
            "# TYPE motion_store_failing gauge", "motion_store_failing \(storeFailing ? 1 : 0)",
            "# HELP motion_frames_total Pose frames processed.", "# TYPE motion_frames_total counter",
            "motion_frames_total \(frames.load(ordering: .relaxed))",
            "# HELP motion_flow_pauses_total Times a live connection over its frame budget stopped being read.",
            "# TYPE motion_flow_pauses_total counter",
            "motion_flow_pauses_total \(flowPauses.load(ordering: .relaxed))",
            "# HELP motion_events_total Engine events by kind.", "# TYPE motion_events_total counter",
        ]
        for (name, count) in events.snapshot { lines.append("motion_events_total{event=\"\(name)\"} \(count)") }
        lines += [
            "# HELP motion_open_connections Open HTTP and WebSocket connections.",
            "# TYPE motion_open_connections gauge", "motion_open_connections \(http.openConnections)",
            "# HELP motion_websocket_connections Open WebSocket connections.",
            "# TYPE motion_websocket_connections gauge", "motion_websocket_connections \(webSockets)",
            "# HELP motion_bytes_received_total Bytes read from clients.",
            "# TYPE motion_bytes_received_total counter", "motion_bytes_received_total \(http.bytesReceived)",
            "# HELP motion_bytes_sent_total Bytes written to clients.", "# TYPE motion_bytes_sent_total counter",
            "motion_bytes_sent_total \(http.bytesSent)",
            "# HELP motion_connections_refused_total Connections refused at the connection limit.",
            "# TYPE motion_connections_refused_total counter",
            "motion_connections_refused_total \(http.refusedConnections)",
        ]
        for (key, count) in requests.withLock({ $0 }) {
            registry.set("motion_http_requests_total", labels: [key.route, String(key.status)], Double(count))
        }
        return registry.render(extra: lines)
    }
}

/// One atomic counter per event kind: counted on the per-frame path without a lock.
private final class EventCounters: Sendable {
    private let repCompleted = Atomic<Int>(0)
    private let repRejected = Atomic<Int>(0)
    private let holdStarted = Atomic<Int>(0)
    private let holdEnded = Atomic<Int>(0)
    private let formFault = Atomic<Int>(0)
    private let visibilityChanged = Atomic<Int>(0)
    private let setupChanged = Atomic<Int>(0)
    private let baselineCompleted = Atomic<Int>(0)
    private let setCompleted = Atomic<Int>(0)

    func count(_ event: MotionEvent) {
        switch event {
        case .repCompleted: repCompleted.add(1, ordering: .relaxed)
        case .repRejected: repRejected.add(1, ordering: .relaxed)
        case .holdStarted: holdStarted.add(1, ordering: .relaxed)
        case .holdEnded: holdEnded.add(1, ordering: .relaxed)
        case .formFault: formFault.add(1, ordering: .relaxed)
        case .visibilityChanged: visibilityChanged.add(1, ordering: .relaxed)
        case .setupChanged: setupChanged.add(1, ordering: .relaxed)
        case .baselineCompleted: baselineCompleted.add(1, ordering: .relaxed)
        case .setCompleted: setCompleted.add(1, ordering: .relaxed)
        }
    }

    var snapshot: [(String, Int)] {
        [
            ("baselineCompleted", baselineCompleted.load(ordering: .relaxed)),
            ("formFault", formFault.load(ordering: .relaxed)), ("holdEnded", holdEnded.load(ordering: .relaxed)),
            ("holdStarted", holdStarted.load(ordering: .relaxed)),
            ("repCompleted", repCompleted.load(ordering: .relaxed)),
            ("repRejected", repRejected.load(ordering: .relaxed)),
            ("setCompleted", setCompleted.load(ordering: .relaxed)),
            ("setupChanged", setupChanged.load(ordering: .relaxed)),
            ("visibilityChanged", visibilityChanged.load(ordering: .relaxed)),
        ]
    }
}
