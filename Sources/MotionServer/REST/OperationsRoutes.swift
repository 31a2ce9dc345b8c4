import HTTPServer
import HTTPWire

/// `/healthz`, `/readyz`, `/metrics` and `/openapi.json`.
struct OperationsRoutes {
    let context: AppContext
    let isReady: @Sendable () -> Bool
    let httpMetrics: @Sendable () -> HTTPMetrics.Snapshot
    let webSockets: @Sendable () -> Int

    func add(to router: inout Router) {
        router.get("/healthz") { _ in .text("ok") }
        router.get("/readyz") { [isReady, context] _ in
            guard isReady() else { return .text("not ready", status: .serviceUnavailable) }
            guard await context.storeIsWorking() else { return .text("store failing", status: .serviceUnavailable) }
            return .text("ready")
        }
        router.get("/metrics") { [context, httpMetrics, webSockets] _ in
            HTTPResponse(
                contentType: "text/plain; version=0.0.4; charset=utf-8",
                bytes: Array(
                    context.metrics.render(
                        http: httpMetrics(), webSockets: webSockets(), httpSessions: context.httpSessions.count,
                        storeFailing: context.storeFailing.load(ordering: .relaxed),
                        node: context.cluster.hasPeers ? context.cluster.name : nil
                    ).utf8))
        }
        router.get("/openapi.json") { _ in HTTPResponse(contentType: "application/json", bytes: OpenAPI.document) }
    }
}
